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

// jsdom lays nothing out: give the message list's scroller a window-sized box
// so that the virtualized list renders its rows (each row measures 0 px, so
// all of a test's few rows are in view).
for (const [prop, size] of [
  ['clientHeight', 600],
  ['clientWidth', 800],
] as const) {
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get(this: HTMLElement) {
      return this.getAttribute('role') === 'log' ? size : 0
    },
  })
}
