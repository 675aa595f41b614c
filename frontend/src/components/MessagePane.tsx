import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { measureElement, useVirtualizer } from '@tanstack/react-virtual'
import type { Channel, MentionRef, Message } from '../lib/api'
import { segments, type Mentionable } from '../state/mentions'
import { plainMessage } from '../state/errors'
import { clockTime, fullTime, rows, type Row } from '../state/history'
import type { Outgoing } from '../state/useMessages'
import { Composer } from './Composer'
import { OwnMessage, ownable, type OwnActions } from './MessageActions'
import { ErrorNote } from './Dialog'

/** SendError: why a message was not sent, and what to do with it. */
function SendError({ error, onRetry, onDiscard }: { error?: { code: string; message: string } | null; onRetry: () => void; onDiscard: () => void }) {
  return (
    <div className="send-error">
      {error ? (
        <p role="alert">
          {plainMessage(error)} <code>{error.code}</code>
        </p>
      ) : null}
      <button type="button" onClick={onRetry}>
        Send again
      </button>
      <button type="button" onClick={onDiscard}>
        Discard
      </button>
    </div>
  )
}

/** Within this many pixels of the bottom the list counts as following the newest message. */
const NEAR_BOTTOM = 48
/**
 * The next older page is fetched this many viewports before the reader
 * reaches the top (at least PREFETCH_MIN px), so that it is in place before
 * it is needed: a page of 200 rows is about 7,000 px.
 */
const PREFETCH_VIEWPORTS = 4
const PREFETCH_MIN = 2400
/**
 * MessagePane: the channel's history in a virtualized list that scrolls on
 * its own between the pinned header and composer. It follows the newest
 * message unless the reader scrolled up, and then offers a "New messages"
 * marker; older pages load as the reader nears the top. Runs of one author
 * are grouped and each day gets a separator.
 */
export function MessagePane({
  channel,
  messages,
  hasOlder = false,
  onOlder,
  highlight,
  outgoing,
  loading,
  error,
  focusKey,
  onSend,
  onRetry,
  onDiscard,
  loadMembers,
  own,
}: {
  channel?: Channel
  messages: Message[]
  /** Older messages exist before the first one held. */
  hasOlder?: boolean
  onOlder?: () => void
  /** A message to scroll to and highlight (a search result), once it is held. */
  highlight?: string
  outgoing: Outgoing[]
  loading: boolean
  error: { code: string; message: string } | null
  /** When it changes to this channel's id, the composer takes focus (a channel just created). */
  focusKey?: string
  onSend: (text: string, mentions: MentionRef[]) => void
  onRetry: (key: string) => void
  onDiscard: (key: string) => void
  /** The people who can be mentioned in this channel (the composer's "@" list). */
  loadMembers?: () => Promise<Mentionable[]>
  /** Edit and delete your own messages. */
  own?: OwnActions
}) {
  return (
    <section className="pane">
      <History
        // A new list for each channel, and once its first messages are held, so that it opens on the newest.
        key={`${channel?.id ?? ''}/${messages.length > 0}`}
        channel={channel}
        messages={messages}
        hasOlder={hasOlder}
        onOlder={onOlder}
        highlight={highlight}
        outgoing={outgoing}
        loading={loading}
        error={error}
        onRetry={onRetry}
        onDiscard={onDiscard}
        own={own}
      />
      <Composer channel={channel} focusKey={focusKey} onSend={onSend} loadMembers={loadMembers} />
    </section>
  )
}

function emptyText(channel: Channel): string {
  if (channel.kind === 'dm') return `No messages with ${channel.name} yet.`
  if (channel.defaultName === 'activity') {
    return `Nothing in #${channel.name} yet. It is the place for agent and CI output, kept apart from conversation.`
  }
  return `No messages in #${channel.name} yet. Say hello.`
}

/** A row's size before it is measured; the stylesheet's at 15 px type, one line of text (learned again from rows measured). */
const FIRST_GUESS: Record<RowKind, number> = { day: 36, head: 46, grouped: 24.75, notice: 25 }
/** A line of message text (15 px × 1.45) and an average character of its font, for guessing how far a text wraps. */
const LINE = 21.75
const CHAR = 7
/** The text column is the list's width less the row's padding (2 × 20 px) and the avatar column (44 + 8 px). */
const TEXT_INSET = 92

type RowKind = 'day' | 'head' | 'grouped' | 'notice'
const kindOf = (r: Row): RowKind => (r.kind === 'day' ? 'day' : r.message.kind ? 'notice' : r.grouped ? 'grouped' : 'head')

/** lines is how many lines a row's text takes in a text column of cols characters (0 for a row without text). */
function lines(r: Row, cols: number): number {
  if (r.kind !== 'message' || r.message.kind) return 0
  const text = r.message.text
  let n = 0
  for (let from = 0; ;) {
    const nl = text.indexOf('\n', from)
    const len = (nl < 0 ? text.length : nl) - from
    n += Math.max(1, Math.ceil(len / cols))
    if (nl < 0) return n
    from = nl + 1
  }
}

/** The list's box as last seen, so that a channel opened next draws its newest rows in its first frame. */
let lastRect = { width: 1000, height: 600 }

function History({
  channel,
  messages,
  hasOlder,
  onOlder,
  highlight,
  outgoing,
  loading,
  error,
  onRetry,
  onDiscard,
  own,
}: {
  channel?: Channel
  messages: Message[]
  hasOlder: boolean
  onOlder?: () => void
  highlight?: string
  outgoing: Outgoing[]
  loading: boolean
  error: { code: string; message: string } | null
  onRetry: (key: string) => void
  onDiscard: (key: string) => void
  own?: OwnActions
}) {
  const scroller = useRef<HTMLDivElement>(null)
  // While older messages exist the window's first day may begin before it:
  // its separator waits for the page that shows where the day begins, so
  // that a row put in front never replaces the one the reader is on.
  const items = useMemo(() => rows(messages, Date.now(), { openStart: hasOlder }), [messages, hasOlder])
  const cols = () => Math.max(8, Math.floor((lastRect.width - TEXT_INSET) / CHAR))
  // Sizes learned from rows measured (one line of text), so that rows not yet
  // drawn are guessed at their real size: a guess that is off moves the rows
  // under the reader when they are measured (issue 17 item 2).
  const learned = useRef<Record<RowKind, number>>({ ...FIRST_GUESS })
  const estimateSize = useCallback(
    (i: number) => {
      const r = items[i]
      const n = lines(r, cols())
      return learned.current[kindOf(r)] + (n > 1 ? (n - 1) * LINE : 0)
    },
    [items],
  )
  const getItemKey = useCallback((i: number) => items[i].key, [items])
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    overscan: 12,
    paddingStart: 8,
    paddingEnd: 12,
    // A chat: an older page put in front keeps the reader's row where it was
    // in the same frame, and rows measured while the view is at the end keep it there.
    anchorTo: 'end',
    scrollEndThreshold: NEAR_BOTTOM,
    // Rows are absolutely placed and the list's height is written by the
    // virtualizer: a scroll re-renders only when the rows in range change.
    directDomUpdates: true,
    // The first frame draws the newest rows (the list mounts once messages are held).
    initialRect: lastRect,
    initialOffset: () => {
      let total = 20
      for (let i = 0; i < items.length; i++) total += estimateSize(i)
      return Math.max(0, total - lastRect.height)
    },
    measureElement: (el, entry, inst) => {
      const size = measureElement(el, entry, inst)
      const r = items[inst.indexFromElement(el)]
      if (r && (r.kind === 'day' || (r.message.state === 'sent' && lines(r, cols()) <= 1 && r.message.text.length * 2 < cols()))) {
        learned.current[kindOf(r)] = size
      }
      return size
    },
  })
  if (v.scrollRect && v.scrollRect.width > 0) lastRect = { width: v.scrollRect.width, height: v.scrollRect.height }
  // Following: the view sticks to the newest message until the reader scrolls up.
  const follow = useRef(true)
  const [unseen, setUnseen] = useState(false)
  const lastKey = items[items.length - 1]?.key
  const last = useRef<{ last?: string; count: number }>({ last: lastKey, count: items.length })

  const toBottom = () => {
    const el = scroller.current
    if (el) el.scrollTop = el.scrollHeight
  }

  // A newer message: follow it, or say it is there. (An older page put in
  // front is anchored by the virtualizer itself.) One of the reader's own
  // is no news: the message they sent here was already drawn below the
  // list while it was being sent, and arrives again when the relay has it,
  // maybe after the reader scrolled up; that must not pull them down.
  useLayoutEffect(() => {
    const prev = last.current
    last.current = { last: lastKey, count: items.length }
    if (prev.count === 0 || prev.last === lastKey) return
    const newest = items[items.length - 1]
    const mine = newest?.kind === 'message' && newest.message.mine
    if (follow.current) toBottom()
    else if (!mine) setUnseen(true)
  }, [lastKey, items.length]) // eslint-disable-line react-hooks/exhaustive-deps

  // The messages being sent are drawn below the list. Sending one takes the
  // reader to it (they wrote it at the bottom); otherwise the view stays at
  // the bottom only while following.
  const sending = useRef(outgoing.length)
  useLayoutEffect(() => {
    const sent = outgoing.length > sending.current
    sending.current = outgoing.length
    if (sent) {
      follow.current = true
      setUnseen(false)
    }
    if (follow.current) toBottom()
  }, [outgoing.length])

  // A highlighted message (a search result) is scrolled into the middle once it is held.
  const shown = useRef<string | undefined>(undefined)
  const hi = highlight ? items.findIndex((r) => r.key === highlight) : -1
  useEffect(() => {
    if (hi < 0 || shown.current === highlight) return
    shown.current = highlight
    follow.current = false
    v.scrollToIndex(hi, { align: 'center' })
  }, [hi, highlight]) // eslint-disable-line react-hooks/exhaustive-deps

  const onScroll = () => {
    const el = scroller.current
    if (!el) return
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM
    follow.current = atBottom
    if (atBottom) setUnseen(false)
    // Well before the top: the older page is in place before the reader gets there.
    if (hasOlder && el.scrollTop < Math.max(PREFETCH_MIN, PREFETCH_VIEWPORTS * el.clientHeight)) onOlder?.()
  }

  const virtual = v.getVirtualItems()
  return (
    <div className="history">
      {loading || error || (channel && messages.length === 0 && outgoing.length === 0) ? (
        <div className="history-notes">
          {loading ? <p className="muted">Loading messages…</p> : null}
          {error ? <ErrorNote error={{ code: error.code, message: plainMessage(error) }} /> : null}
          {!loading && channel && messages.length === 0 && outgoing.length === 0 ? <p className="muted">{emptyText(channel)}</p> : null}
        </div>
      ) : null}
      <div className="messages" ref={scroller} role="log" aria-label="Messages" aria-live="polite" onScroll={onScroll} tabIndex={0}>
        <ol className="message-list virtual" ref={v.containerRef} aria-label={`${messages.length} messages loaded`}>
          {virtual.map((vi) => {
            const r = items[vi.index]
            return (
              <li
                key={vi.key}
                data-index={vi.index}
                ref={v.measureElement}
                className={r.kind === 'day' ? 'day-separator' : r.message.kind ? 'notice' : 'message'}
                data-grouped={r.kind === 'message' && r.grouped ? true : undefined}
                data-mine={r.kind === 'message' && r.message.mine ? true : undefined}
                data-state={r.kind === 'message' ? r.message.state : undefined}
                data-mentions-me={r.kind === 'message' && r.message.mentionsMe ? true : undefined}
                data-highlighted={r.kind === 'message' && r.key === highlight ? true : undefined}
                aria-current={r.kind === 'message' && r.key === highlight ? 'true' : undefined}
              >
                <Line r={r} onRetry={onRetry} onDiscard={onDiscard} own={own} />
              </li>
            )
          })}
        </ol>
        {outgoing.length > 0 ? (
          <ol className="message-list outgoing-list" aria-label="Messages you are sending">
            {outgoing.map((o) => (
              <li key={o.key} className="message outgoing" data-state={o.state}>
                <div className="message-meta">
                  <span className="author">You</span>{' '}
                  <span className="send-state" role="status">
                    {o.state === 'sending' ? 'Sending…' : 'Not sent'}
                  </span>
                </div>
                <div className="message-text">{o.text}</div>
                {o.state === 'failed' && o.error ? (
                  <SendError error={o.error} onRetry={() => onRetry(o.key)} onDiscard={() => onDiscard(o.key)} />
                ) : null}
              </li>
            ))}
          </ol>
        ) : null}
      </div>
      {unseen ? (
        <button
          type="button"
          className="new-messages"
          onClick={() => {
            follow.current = true
            setUnseen(false)
            toBottom()
          }}
        >
          New messages ↓
        </button>
      ) : null}
    </div>
  )
}

/**
 * Line is the content of one row, rendered again only when its row changed:
 * the list renders on every scroll event, and the rows that stay on screen
 * must cost nothing then (issue 17 item 2).
 */
const Line = memo(
  function Line({ r, onRetry, onDiscard, own }: { r: Row; onRetry: (id: string) => void; onDiscard: (id: string) => void; own?: OwnActions }) {
    if (r.kind === 'day') return <DaySeparator label={r.label} />
    if (r.message.kind === 'joined') return <JoinNotice m={r.message} />
    return <MessageRow m={r.message} grouped={r.grouped} onRetry={onRetry} onDiscard={onDiscard} own={own} />
  },
  (a, b) => a.onRetry === b.onRetry && a.onDiscard === b.onDiscard && a.own === b.own && sameRow(a.r, b.r),
)

/** sameRow: rows are laid out afresh for each page; a row showing the same message the same way is the same. */
function sameRow(a: Row, b: Row): boolean {
  if (a.kind === 'day' || b.kind === 'day')
    return a.kind === b.kind && a.key === b.key && (a as { label: string }).label === (b as { label: string }).label
  return a.message === b.message && a.grouped === b.grouped
}

function DaySeparator({ label }: { label: string }) {
  return (
    <div className="day-line" role="separator" aria-label={label}>
      <span>{label}</span>
    </div>
  )
}

/** JoinNotice: "Sam joined", a line of #general drawn from the roster, not a message anyone sent. */
function JoinNotice({ m }: { m: Message }) {
  return (
    <div className="notice-line">
      <span className="author">{m.author}</span> joined{' '}
      <time dateTime={new Date(m.sentAt).toISOString()} title={fullTime(m.sentAt)}>
        {clockTime(m.sentAt)}
      </time>
    </div>
  )
}

/** sendState says where a message of this device's outbox, or your change to one, stands. */
export function sendState(m: Pick<Message, 'state' | 'change'>): string {
  if (m.change === 'edit') return m.state === 'pending' ? 'Edit waiting to send…' : 'Edit not sent'
  if (m.change === 'delete') return m.state === 'pending' ? 'Deleting…' : 'Delete not sent'
  return m.state === 'pending' ? 'Sending…' : 'Not sent'
}

function MessageRow({
  m,
  grouped,
  onRetry,
  onDiscard,
  own,
}: {
  m: Message
  grouped: boolean
  onRetry: (id: string) => void
  onDiscard: (id: string) => void
  own?: OwnActions
}) {
  const edited = m.edited ? <span className="edited"> (edited)</span> : null
  const text = ownable(m, own) ? (
    <OwnMessage m={m} own={own}>
      <MessageText m={m} />
      {edited}
    </OwnMessage>
  ) : (
    <>
      <MessageText m={m} />
      {edited}
    </>
  )
  const iso = new Date(m.sentAt).toISOString()
  // A message of this device's outbox says so, and a refused one says why and what to do.
  const state =
    m.state !== 'sent' ? (
      <span className="send-state" role="status">
        {sendState(m)}
      </span>
    ) : null
  const failed = m.state === 'failed' ? <SendError error={m.error} onRetry={() => onRetry(m.id)} onDiscard={() => onDiscard(m.id)} /> : null
  if (grouped) {
    return (
      <div className="message-body">
        <time className="gutter-time" dateTime={iso} title={fullTime(m.sentAt)}>
          {clockTime(m.sentAt)}
        </time>
        <div>
          <div className="message-text" data-change={m.change || undefined}>
            <span className="visually-hidden">{m.author}: </span>
            {text}
          </div>
          {state}
          {failed}
        </div>
      </div>
    )
  }
  return (
    <div className="message-body">
      <div className="avatar" aria-hidden="true">
        {m.author.slice(0, 1).toUpperCase()}
      </div>
      <div>
        <div className="message-meta">
          <span className="author">{m.author}</span>{' '}
          <time dateTime={iso} title={fullTime(m.sentAt)}>
            {clockTime(m.sentAt)}
          </time>
          {state ? <> {state}</> : null}
        </div>
        <div className="message-text" data-change={m.change || undefined}>
          {text}
        </div>
        {failed}
      </div>
    </div>
  )
}

/**
 * MessageText: a message's text with its mentions highlighted under each
 * person's current name (a mention of you stands out more). A mention only
 * changes how its own span looks.
 */
function MessageText({ m }: { m: Message }) {
  if (!m.mentions || m.mentions.length === 0) return <>{m.text}</>
  return (
    <>
      {segments(m.text, m.mentions).map((s, i) =>
        s.kind === 'text' ? (
          s.text
        ) : (
          <span key={i} className="mention" data-you={s.you || undefined} title={s.raw}>
            @{s.name}
          </span>
        ),
      )}
    </>
  )
}
