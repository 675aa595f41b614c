import { describe, expect, expectTypeOf, it } from 'vitest'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Admission, ChannelKind, History, InviteState, MessageState, Project, ProjectState, Role, Workspace } from './types'

const here = path.dirname(fileURLToPath(import.meta.url))
const src = path.resolve(here, '..', '..')
const models = readFileSync(path.resolve(src, '..', 'wailsjs', 'go', 'models.ts'), 'utf8')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n)
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(n) ? [p] : []
  })
}

describe('the types of the Go contract', () => {
  // Checked by tsc (npm run build): the Go enums of app/enums.go arrive as unions.
  it('carry Go enums as string-literal unions', () => {
    expectTypeOf<ChannelKind>().toEqualTypeOf<'chan' | 'dm'>()
    expectTypeOf<Admission>().toEqualTypeOf<'everyone' | 'parent' | 'explicit'>()
    expectTypeOf<History>().toEqualTypeOf<'open' | 'closed'>()
    expectTypeOf<MessageState>().toEqualTypeOf<'sent' | 'pending' | 'failed'>()
    expectTypeOf<Role>().toEqualTypeOf<'member' | 'admin'>()
    expectTypeOf<InviteState>().toEqualTypeOf<'live' | 'used' | 'expired' | 'revoked'>()
    expectTypeOf<ProjectState>().toEqualTypeOf<'none' | 'local' | 'bound' | 'invalid'>()
    expectTypeOf<Project['problem']>().toEqualTypeOf<{ code: string; message: string } | null | undefined>()
    expectTypeOf<Workspace['provision']>().toEqualTypeOf<{ workspace: string; genesisKey: string; command: string } | null | undefined>()
  })

  it('are declared once, from the generated models', () => {
    const generated = [...models.matchAll(/^\s*export class (\w+)/gm)].map((m) => m[1])
    expect(generated).toContain('Project')
    const names = generated.join('|')
    const name = new RegExp(`^[ \\t]*(?:export\\s+)?(?:(?:interface|class)\\s+(${names})\\b|type\\s+(${names})\\s*[=<])`, 'gm')
    const typesFile = path.join(here, 'types.ts')
    const declared: string[] = []
    for (const f of files(src)) {
      const text = readFileSync(f, 'utf8')
      for (const m of text.matchAll(name)) {
        // In types.ts a model's type is derived from the generated class; anywhere else it is a copy.
        const n = m[1] ?? m[2]
        const derived = f === typesFile && new RegExp(`^export type ${n} = Wire<app\\.${n}>$`, 'm').test(text)
        if (!derived) declared.push(`${path.relative(src, f)}: ${m[0].trim()}`)
      }
    }
    expect(declared).toEqual([])
  })
})
