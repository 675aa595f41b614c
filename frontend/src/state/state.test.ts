import { describe, expect, it } from 'vitest'
import { chan, defaults, hex, policy } from '../test/apiMock'
import { moved, splitChannels, unreadTotal } from './channels'
import { lockState, scopes } from './lock'
import { plainMessage } from './errors'
import { upsert } from './useProjects'

describe('lockState', () => {
  it('maps every legal channel policy to who can join and what a joiner sees', () => {
    expect(lockState(policy({ admission: 'parent', history: 'open', hash: hex(5) }))).toEqual({
      icon: 'open',
      who: 'Anyone in the workspace can join',
      sees: 'Joiners see the history',
      title: `Policy ${hex(5)}`,
    })
    const priv = lockState(policy({ admission: 'explicit', history: 'closed' }))
    expect([priv.icon, priv.who, priv.sees]).toEqual(['locked', 'Members add people', 'Joiners see messages from joining on'])
  })
  it('keeps the spec sentence of the scope picker verbatim', () => {
    // spec/channels.md "Interaction with removal", as a sentence: capital first letter and a full stop.
    expect(scopes.parent.sentence).toBe('Anyone in this workspace can join this channel.')
  })
})

describe('channels', () => {
  it('splits defaults from others and leaves the workspace root (not a chat surface) out', () => {
    const root = chan({ name: 'root', policy: policy({ admission: 'everyone', default: true }) })
    const design = chan({ name: 'design' })
    const { defaults: d, others } = splitChannels([root, ...defaults(), design])
    expect(d.map((c) => c.name)).toEqual(['general', 'activity'])
    expect(others).toEqual([design])
  })
  it('moves within a list and stops at its edges', () => {
    const d = defaults()
    expect(moved(d, d[0].id, -1)).toBeNull()
    expect(moved(d, d[0].id, 1)).toBe(1)
    expect(moved(d, d[1].id, 1)).toBeNull()
    expect(moved(d, 'nope', 1)).toBeNull()
  })
  it('counts unread outside muted channels only', () => {
    expect(unreadTotal([...defaults(), chan({ name: 'x', unread: 3 })])).toBe(3)
  })
})

describe('errors and projects', () => {
  it('says what to do for the byte-budget refusal and keeps Go’s sentence otherwise', () => {
    expect(plainMessage({ code: 'quota/log_budget_exhausted', message: 'x' })).toMatch(/Ask an admin/)
    expect(plainMessage({ code: 'projects/no_folder', message: 'There is no folder at /x; check the path.' })).toBe(
      'There is no folder at /x; check the path.',
    )
  })
  it('upserts projects by folder', () => {
    const p = { folder: '/a', state: 'none' as const, name: 'a', workspace: '', relay: '', member: false, problem: null }
    expect(upsert([p], { ...p, name: 'b' })).toEqual([{ ...p, name: 'b' }])
    expect(upsert([p], { ...p, folder: '/b' })).toHaveLength(2)
  })
})
