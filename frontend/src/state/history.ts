import type { Message } from '../lib/api'

const byTime = (a: Message, b: Message) => a.sentAt - b.sentAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * mergeNewest folds the newest page of a channel into the window held. When
 * the page does not reach back to anything held and older messages exist
 * between them (more than a page arrived at once), the window restarts at
 * the page (reset), since the gap cannot be shown as continuous history.
 */
export function mergeNewest(held: Message[], page: Message[], more: boolean): { list: Message[]; reset: boolean } {
  if (held.length === 0) return { list: page, reset: true }
  if (page.length === 0) return { list: held, reset: false }
  const states = new Map(held.map((m) => [m.id, m.state]))
  const ids = { has: (id: string) => states.has(id) }
  const overlaps = page.some((m) => ids.has(m.id)) || byTime(page[0], held[held.length - 1]) <= 0
  if (!overlaps && more) return { list: page, reset: true }
  const pageIds = new Set(page.map((m) => m.id))
  // The page lists this device's whole outbox: a pending or failed message it no longer
  // carries went out (it is in the log now, maybe under another id) or was discarded.
  // A logged message the page covers and no longer carries was deleted by its author.
  const from = more ? page[0] : undefined
  const covered = (m: Message) => !from || byTime(m, from) >= 0
  const gone = held.some((m) => !pageIds.has(m.id) && (m.state !== 'sent' || covered(m)))
  const prev = new Map(held.map((m) => [m.id, m]))
  const changed = page.some((m) => {
    const h = prev.get(m.id)
    return !h || h.state !== m.state || h.text !== m.text || h.author !== m.author || !!h.edited !== !!m.edited
  })
  if (!gone && !changed) return { list: held, reset: false }
  // Held messages the page carries again are replaced by the page's copy (a newer state, an edit, a new name).
  return { list: [...held.filter((m) => m.state === 'sent' && !pageIds.has(m.id) && !covered(m)), ...page].sort(byTime), reset: false }
}

/** mergeOlder puts an older page in front of the window held. */
export function mergeOlder(held: Message[], page: Message[]): Message[] {
  const ids = new Set(held.map((m) => m.id))
  return [...page.filter((m) => !ids.has(m.id)), ...held]
}

/** A row of the message list: a day separator or a message, maybe continuing its author's run. */
export type Row = { kind: 'day'; key: string; label: string } | { kind: 'message'; key: string; message: Message; grouped: boolean }

/** Messages by one author less than this apart are shown as one run, under one name. */
export const GROUP_MS = 5 * 60 * 1000

const dayKey = (ms: number) => {
  const d = new Date(ms)
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`
}

// Formatters made once: Date's toLocale*String with options builds a new
// Intl.DateTimeFormat on every call, which cost most of a frame while
// scrolling a long channel (issue 17 item 2: 24 s of 77 s profiled).
const clock = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' })
const full = new Intl.DateTimeFormat([], { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
const dayThisYear = new Intl.DateTimeFormat([], { weekday: 'long', month: 'long', day: 'numeric' })
const dayOtherYear = new Intl.DateTimeFormat([], { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' })

/** clockTime is a message's time as its row shows it: hours and minutes. */
export const clockTime = (ms: number) => clock.format(ms)

/** fullTime is a message's date and time, for its tooltip. */
export const fullTime = (ms: number) => full.format(ms)

/** dayLabel names a day as a reader expects: Today, Yesterday, or the date. */
export function dayLabel(ms: number, now = Date.now()): string {
  const k = dayKey(ms)
  if (k === dayKey(now)) return 'Today'
  const y = new Date(now)
  y.setDate(y.getDate() - 1)
  if (k === dayKey(y.getTime())) return 'Yesterday'
  const sameYear = new Date(ms).getFullYear() === new Date(now).getFullYear()
  return (sameYear ? dayThisYear : dayOtherYear).format(ms)
}

/**
 * rows lays out messages (oldest first) with a separator before each new day
 * and runs of one author grouped. With openStart (older messages exist that
 * are not held) the first day has no separator yet: where it begins is not
 * known, and a separator drawn at the top would move to the top of each older
 * page as it arrives.
 */
export function rows(messages: Message[], now = Date.now(), { openStart = false } = {}): Row[] {
  const out: Row[] = []
  let prev: Message | undefined
  let prevDay = ''
  for (const m of messages) {
    const day = dayKey(m.sentAt)
    const newDay = !prev || prevDay !== day
    prevDay = day
    if (newDay && (prev || !openStart)) out.push({ kind: 'day', key: `day-${day}`, label: dayLabel(m.sentAt, now) })
    // A join notice stands alone: it neither continues a run nor starts one.
    const grouped =
      !newDay && !!prev && !prev.kind && !m.kind && prev.author === m.author && prev.mine === m.mine && m.sentAt - prev.sentAt < GROUP_MS
    out.push({ kind: 'message', key: m.id, message: m, grouped })
    prev = m
  }
  return out
}
