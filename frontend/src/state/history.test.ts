import { describe, expect, it } from 'vitest'
import type { Message } from '../lib/api'
import { GROUP_MS, dayLabel, mergeNewest, mergeOlder, rows } from './history'

const t0 = new Date(2026, 0, 10, 9, 0).getTime()
const m = (id: string, at: number, author = 'Ada'): Message => ({ id, channel: 'c', author, mine: false, text: id, sentAt: at, state: 'sent' })

describe('rows', () => {
  it('groups one author’s run and separates days', () => {
    const r = rows(
      [m('a', t0), m('b', t0 + 60_000), m('c', t0 + 120_000, 'Ben'), m('d', t0 + 120_000 + GROUP_MS + 1, 'Ben'), m('e', t0 + 86_400_000, 'Ben')],
      t0 + 86_400_000,
    )
    expect(r.map((x) => (x.kind === 'day' ? `[${x.label}]` : `${x.key}${x.grouped ? '+' : ''}`))).toEqual([
      `[${dayLabel(t0, t0 + 86_400_000)}]`,
      'a',
      'b+',
      'c',
      'd', // more than five minutes after Ben's last: a new run
      '[Today]',
      'e', // a new day starts a new run
    ])
    expect(dayLabel(t0, t0 + 86_400_000)).toBe('Yesterday')
  })
})

describe('rows of a window with older messages before it', () => {
  it('leaves the first day without a separator until the page that shows where it begins, keeping every key', () => {
    const label = (r: ReturnType<typeof rows>) => r.map((x) => (x.kind === 'day' ? '[day]' : x.key))
    const held = [m('c', t0 + 120_000), m('d', t0 + 86_400_000)]
    const open = rows(held, t0, { openStart: true })
    expect(label(open)).toEqual(['c', '[day]', 'd'])
    // An older page of the same day goes in front: the rows held keep their keys and order, nothing above them moves in.
    const page = [m('a', t0), m('b', t0 + 60_000)]
    const more = rows([...page, ...held], t0, { openStart: true })
    expect(label(more)).toEqual(['a', 'b', 'c', '[day]', 'd'])
    expect(more.slice(2).map((x) => x.key)).toEqual(open.map((x) => x.key))
    // The start of the history: the first day gets its separator.
    expect(label(rows([...page, ...held], t0))).toEqual(['[day]', 'a', 'b', 'c', '[day]', 'd'])
  })
})

describe('rows with a join notice', () => {
  it('keeps a notice out of the runs around it', () => {
    const joined: Message = { ...m('j', t0 + 60_000, 'Ben'), kind: 'joined', text: '' }
    const r = rows([m('a', t0, 'Ben'), joined, m('b', t0 + 120_000, 'Ben')], t0)
    expect(r.map((x) => (x.kind === 'day' ? '[day]' : `${x.key}${x.grouped ? '+' : ''}`))).toEqual(['[day]', 'a', 'j', 'b'])
  })
})

describe('mergeNewest', () => {
  it('adds what is new to the window held, in time order', () => {
    const held = [m('a', 1), m('b', 2)]
    expect(mergeNewest(held, [m('b', 2), m('c', 3)], true).list.map((x) => x.id)).toEqual(['a', 'b', 'c'])
    expect(mergeNewest(held, [m('a', 1), m('b', 2)], false).list).toBe(held)
  })
  it('takes an edit, a deletion and a new name from the newest page', () => {
    const held = [m('a', 1), m('b', 2), m('c', 3)]
    // b was edited, c deleted; a (before the page) stays.
    const r = mergeNewest(held, [{ ...m('b', 2), text: 'b2', edited: true }], true)
    expect(r.list.map((x) => `${x.id}:${x.text}${x.edited ? '*' : ''}`)).toEqual(['a:a', 'b:b2*'])
    const renamed = mergeNewest(held, [m('a', 1), m('b', 2), m('c', 3, 'Ada Lovelace')], false)
    expect(renamed.list.map((x) => x.author)).toEqual(['Ada', 'Ada', 'Ada Lovelace'])
  })
  it('restarts at the newest page when more than a page arrived at once', () => {
    const r = mergeNewest([m('a', 1)], [m('y', 8), m('z', 9)], true)
    expect(r).toEqual({ list: [m('y', 8), m('z', 9)], reset: true })
  })
  it('puts older pages in front without duplicates', () => {
    expect(mergeOlder([m('b', 2), m('c', 3)], [m('a', 1), m('b', 2)]).map((x) => x.id)).toEqual(['a', 'b', 'c'])
  })
})
