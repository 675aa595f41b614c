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
