import type { Channel } from '../lib/api'

/** mentionCount: unread messages of a channel that mention you (counted even when it is muted). */
export const mentionCount = (c: Channel) => c.mentions ?? 0

/** badgeLabel: what a sidebar row says of its unread messages and mentions, for its accessible name. */
export function badgeLabel(c: Channel): string {
  const unread = !c.muted && c.unread > 0
  const m = mentionCount(c)
  return `${m > 0 ? `, ${m} ${m === 1 ? 'mention' : 'mentions'}` : ''}${unread ? `, ${c.unread} unread` : ''}`
}

/**
 * Badges: a sidebar row's mention badge ("@2", until the channel is read)
 * and its unread count, which a muted channel does not show.
 */
export function Badges({ c }: { c: Channel }) {
  const unread = !c.muted && c.unread > 0
  const m = mentionCount(c)
  return (
    <>
      {m > 0 ? (
        <span className="badge mention-badge" aria-hidden="true" data-testid="mention-badge">
          @{m}
        </span>
      ) : null}
      {unread ? (
        <span className="badge" aria-hidden="true">
          {c.unread}
        </span>
      ) : null}
    </>
  )
}
