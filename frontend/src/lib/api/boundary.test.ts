import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

// src/lib/api is the only code that imports the generated Wails bindings.
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const apiDir = path.join(src, 'lib', 'api')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n)
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(n) ? [p] : []
  })
}

describe('the wailsjs boundary', () => {
  it('is crossed only by src/lib/api', () => {
    const all = files(src)
    expect(all.length).toBeGreaterThan(5)
    const offenders = all.filter((f) => !f.startsWith(apiDir) && /from\s+['"][^'"]*wailsjs/.test(readFileSync(f, 'utf8')))
    expect(offenders).toEqual([])
    expect(readFileSync(path.join(apiDir, 'index.ts'), 'utf8')).toMatch(/wailsjs\/go\/app\/App/)
  })
})
