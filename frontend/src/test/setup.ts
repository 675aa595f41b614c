import { afterEach, beforeEach, vi } from 'vitest'
import { cleanup, configure } from '@testing-library/react'
import { holder, makeApi } from './apiMock'

// The test files of a worker share one window and one module graph
// (isolate: false in vite.config.ts), so every test leaves them as it found
// them. This file runs again before each test file.

// Every file talks to the stand-in backend of apiMock (holder.current), so
// that a component module is the same whichever file loads it first.
vi.mock('../lib/api', async (orig) => (await import('./apiMock')).mockedModule(await orig<object>()))

// The machine is shared: give findBy* more than the default second under load.
configure({ asyncUtilTimeout: 5000 })

// The globals as each test found them: one it replaced or added
// (window.matchMedia, a spied window.confirm) is put back after it. Most of
// jsdom's are accessors whose setter keeps what a test assigns, so both the
// property and the value it reads are kept.
const g = globalThis as unknown as Record<string, unknown>
type Kept = { property: PropertyDescriptor; value: unknown }
const read = (k: string): unknown => {
  try {
    return g[k]
  } catch {
    return undefined
  }
}
const keep = () =>
  new Map<string, Kept>(Object.getOwnPropertyNames(g).map((k) => [k, { property: Object.getOwnPropertyDescriptor(g, k)!, value: read(k) }]))
const same = (a: PropertyDescriptor, b: PropertyDescriptor) =>
  Object.is(a.value, b.value) && a.get === b.get && a.set === b.set && a.writable === b.writable
let globals = keep()
beforeEach(() => {
  globals = keep()
})

afterEach(() => {
  cleanup()
  document.body.replaceChildren()
  vi.useRealTimers()
  for (const k of Object.getOwnPropertyNames(g)) {
    const was = globals.get(k)
    if (!was) {
      delete g[k]
      continue
    }
    const now = Object.getOwnPropertyDescriptor(g, k)!
    if (!same(was.property, now)) Object.defineProperty(g, k, was.property)
    else if ((now.set || now.writable) && !Object.is(read(k), was.value)) g[k] = was.value
  }
  holder.current = makeApi()
})

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
