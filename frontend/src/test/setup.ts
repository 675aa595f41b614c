import { afterEach } from 'vitest'
import { cleanup, configure } from '@testing-library/react'

// The machine is shared: give findBy* more than the default second under load.
configure({ asyncUtilTimeout: 5000 })

afterEach(() => cleanup())

// jsdom has no CSS.escape; user-event uses it for radio groups.
if (!(globalThis as { CSS?: { escape?: unknown } }).CSS?.escape) {
  ;(globalThis as unknown as { CSS: { escape: (s: string) => string } }).CSS = {
    escape: (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c}`),
  }
}

// jsdom lays nothing out: give the message list a browser's boxes so that
// the virtualized list mounts the rows in view, as a browser does, not the
// whole history. The scroller is a window-sized box whose content is as tall
// as the list says (its style height); a row is 20 px.
const log = (el: HTMLElement) => el.getAttribute('role') === 'log'
const sizes: Record<string, (el: HTMLElement) => number> = {
  clientHeight: (el) => (log(el) ? 600 : 0),
  clientWidth: (el) => (log(el) ? 800 : 0),
  scrollHeight: (el) => (log(el) ? parseFloat(el.querySelector('ol')?.style.height ?? '') || 0 : 0),
  offsetHeight: (el) => (el.hasAttribute('data-index') ? 20 : 0),
}
for (const [prop, size] of Object.entries(sizes)) {
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get(this: HTMLElement) {
      return size(this)
    },
  })
}
