import type { Channel } from '../lib/api'

/**
 * The sidebar's lists: the default channels first (#general before
 * #activity unless reordered), then the others, each in the order the
 * backend gives (their position); direct messages apart.
 */
export function splitChannels(all: Channel[]): { defaults: Channel[]; others: Channel[]; dms: Channel[] } {
  const chans = all.filter((c) => c.kind !== 'dm')
  return {
    defaults: chans.filter((c) => c.policy.default && c.policy.admission !== 'everyone'),
    others: chans.filter((c) => !c.policy.default),
    dms: all.filter((c) => c.kind === 'dm'),
  }
}

/** moved returns the index a channel goes to when moved up (-1) or down (+1) within its list, or null at an edge. */
export function moved(list: Channel[], id: string, by: -1 | 1): number | null {
  const i = list.findIndex((c) => c.id === id)
  if (i < 0) return null
  const j = i + by
  return j < 0 || j >= list.length ? null : j
}

/** unreadTotal counts unread messages in channels that are not muted. */
export function unreadTotal(all: Channel[]): number {
  return all.reduce((n, c) => n + (c.muted ? 0 : c.unread), 0)
}
