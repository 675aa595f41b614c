import type { MentionRef } from '../lib/api'

/** Someone who can be mentioned: a member of the channel. */
export interface Mentionable {
  user: string
  name: string
}

/**
 * mentionQuery finds the "@…" being typed before the caret: the index of
 * its '@' and the text after it, or null when the caret is not in one. An
 * '@' counts at the start or after a space, and the query stops at a space
 * or another '@' (display names of one word are matched as typed; longer
 * ones by their start).
 */
export function mentionQuery(text: string, caret: number): { at: number; query: string } | null {
  const before = text.slice(0, caret)
  const at = before.lastIndexOf('@')
  if (at < 0 || (at > 0 && !/\s/.test(before[at - 1]))) return null
  const query = before.slice(at + 1)
  // A name may hold one space ("Dana S"); a second one, a line break or another '@' ends the query.
  if (/[@\n]/.test(query) || (query.match(/\s/g)?.length ?? 0) > 1 || query.length > 40) return null
  return { at, query }
}

/** matches lists the people whose name starts with the query (or has a word that does), best first, at most 8. */
export function matches(people: Mentionable[], query: string): Mentionable[] {
  const q = query.toLowerCase()
  const starts = people.filter((p) => p.name.toLowerCase().startsWith(q))
  const words = people.filter(
    (p) =>
      !starts.includes(p) &&
      p.name
        .toLowerCase()
        .split(/\s+/)
        .some((w) => w.startsWith(q)),
  )
  return [...starts, ...words].slice(0, 8)
}

/**
 * resolveMentions finds, for each person picked while typing, the "@name"
 * inserted for them that is still in the final text (a picked mention the
 * writer deleted again is dropped), in order of position.
 */
export function resolveMentions(text: string, picked: Mentionable[]): MentionRef[] {
  const out: MentionRef[] = []
  const taken = new Set<number>()
  for (const p of picked) {
    const token = `@${p.name}`
    let from = 0
    for (;;) {
      const i = text.indexOf(token, from)
      if (i < 0) break
      const end = i + token.length
      const clean = (i === 0 || /\s/.test(text[i - 1])) && (end === text.length || !/[\p{L}\p{N}]/u.test(text[end]))
      if (clean && !taken.has(i)) {
        taken.add(i)
        out.push({ user: p.user, name: p.name, start: i, end })
        break
      }
      from = i + 1
    }
  }
  return out.sort((a, b) => a.start - b.start)
}

/** A piece of a message's text: plain, or a mention shown by the person's current name. */
export type Segment = { kind: 'text'; text: string } | { kind: 'mention'; user: string; name: string; raw: string; you: boolean }

/**
 * segments splits text at its mentions. Spans that overlap, run backwards
 * or fall outside the text are left as plain text: a mention only ever
 * changes how its own span looks.
 */
export function segments(text: string, mentions: MentionRef[] | null | undefined): Segment[] {
  const out: Segment[] = []
  let at = 0
  for (const m of [...(mentions ?? [])].sort((a, b) => a.start - b.start)) {
    if (m.start < at || m.end <= m.start || m.end > text.length) continue
    if (m.start > at) out.push({ kind: 'text', text: text.slice(at, m.start) })
    out.push({ kind: 'mention', user: m.user, name: m.name, raw: text.slice(m.start, m.end), you: !!m.you })
    at = m.end
  }
  if (at < text.length || out.length === 0) out.push({ kind: 'text', text: text.slice(at) })
  return out
}

/** mentionable: the people of a channel's member list (one per person, not you), by name. */
export function mentionable(members: { user: string; name: string; you: boolean; pending: boolean }[]): Mentionable[] {
  const seen = new Map<string, Mentionable>()
  for (const m of members) if (!m.you && !m.pending && !seen.has(m.user)) seen.set(m.user, { user: m.user, name: m.name })
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name))
}
