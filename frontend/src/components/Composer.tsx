import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { Channel, MentionRef } from '../lib/api'
import { matches, mentionQuery, resolveMentions, type Mentionable } from '../state/mentions'

/**
 * Composer: the message field pinned under the history. Typing "@" opens a
 * list of the channel's members by display name (arrows move, Enter or Tab
 * picks, Escape closes); a picked person goes into the message as a mention
 * of their user id, not just as text.
 */
export function Composer({
  channel,
  focusKey,
  onSend,
  loadMembers,
}: {
  channel?: Channel
  /** When it changes to this channel's id, the composer takes focus (a channel just created). */
  focusKey?: string
  onSend: (text: string, mentions: MentionRef[]) => void
  /** The people who can be mentioned in this channel. */
  loadMembers?: () => Promise<Mentionable[]>
}) {
  const [draft, setDraft] = useState('')
  const [caret, setCaret] = useState(0)
  const [picked, setPicked] = useState<Mentionable[]>([])
  const [people, setPeople] = useState<Mentionable[] | null>(null)
  const [active, setActive] = useState(0)
  // Escape closes the list for the '@' at this index (until the draft is sent).
  const [closedAt, setClosedAt] = useState<number | null>(null)
  const input = useRef<HTMLInputElement>(null)
  // Where a pick leaves the caret: set in the same commit as the new draft
  // (React's new value puts it at the end), so a key typed right after the
  // pick never lands before a caret that moves later.
  const caretTo = useRef<number | null>(null)
  useLayoutEffect(() => {
    if (caretTo.current === null) return
    input.current?.setSelectionRange(caretTo.current, caretTo.current)
    caretTo.current = null
  })
  // Ready means the Send button is enabled (gaps.md "Onboarding"); an empty draft is simply not sent.
  const canSend = !!channel && channel.joined
  useEffect(() => {
    if (focusKey && channel?.id === focusKey && canSend) input.current?.focus()
  }, [focusKey, channel?.id, canSend])
  // Another channel: its own members, and no half-made mentions carried over.
  useEffect(() => {
    setPeople(null)
    setPicked([])
  }, [channel?.id])

  const q = mentionQuery(draft, caret)
  const open = q !== null && closedAt !== q.at && canSend
  useEffect(() => {
    if (open && people === null && loadMembers) {
      let live = true
      loadMembers().then(
        (p) => live && setPeople(p),
        () => live && setPeople([]),
      )
      return () => {
        live = false
      }
    }
  }, [open, people, loadMembers])
  const options = open && people ? matches(people, q.query) : []
  const shown = options.length > 0
  const current = Math.min(active, options.length - 1)

  const pick = (p: Mentionable) => {
    if (!q) return
    const token = `@${p.name} `
    const next = draft.slice(0, q.at) + token + draft.slice(caret)
    const at = q.at + token.length
    setDraft(next)
    setCaret(at)
    setPicked((list) => (list.some((x) => x.user === p.user) ? list : [...list, p]))
    setActive(0)
    caretTo.current = at
  }
  const track = (el: HTMLInputElement) => setCaret(el.selectionStart ?? el.value.length)

  return (
    <form
      className="composer"
      aria-label="Composer"
      onSubmit={(e) => {
        e.preventDefault()
        if (!canSend || draft.trim() === '') return
        const text = draft.trim()
        const lead = draft.length - draft.trimStart().length
        onSend(
          text,
          resolveMentions(draft, picked)
            .map((m) => ({ ...m, start: m.start - lead, end: m.end - lead }))
            .filter((m) => m.start >= 0 && m.end <= text.length),
        )
        setDraft('')
        setCaret(0)
        setPicked([])
        setClosedAt(null)
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      {shown ? (
        <ul className="mention-list" id="mention-list" role="listbox" aria-label="People to mention">
          {options.map((p, i) => (
            <li
              key={p.user}
              id={`mention-${p.user}`}
              role="option"
              aria-selected={i === current}
              onMouseDown={(e) => {
                e.preventDefault() // keep focus in the field
                pick(p)
              }}
            >
              @{p.name}
            </li>
          ))}
        </ul>
      ) : null}
      <input
        id="composer-input"
        ref={input}
        value={draft}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={shown ? 'mention-list' : undefined}
        aria-activedescendant={shown ? `mention-${options[current].user}` : undefined}
        onChange={(e) => {
          setDraft(e.target.value)
          track(e.target)
          setActive(0)
        }}
        onSelect={(e) => track(e.currentTarget)}
        onKeyDown={(e) => {
          if (!shown) return
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault()
            const n = options.length
            setActive((current + (e.key === 'ArrowDown' ? 1 : n - 1)) % n)
          } else if (e.key === 'Enter' || e.key === 'Tab') {
            e.preventDefault()
            pick(options[current])
          } else if (e.key === 'Escape') {
            e.preventDefault()
            setClosedAt(q!.at)
          }
        }}
        placeholder={composerPlaceholder(channel)}
        disabled={!channel || !channel.joined}
        autoComplete="off"
      />
      <button type="submit" disabled={!canSend}>
        Send
      </button>
    </form>
  )
}

/** composerPlaceholder: what the empty composer says for a channel, a DM, or nothing yet. */
function composerPlaceholder(channel?: Channel): string {
  if (!channel) return 'Join a workspace to send messages'
  if (channel.kind === 'dm') return channel.joined ? `Message ${channel.name}` : `Waiting for ${channel.name}'s Weald to add this device…`
  return channel.joined ? `Message #${channel.name}` : `Joining #${channel.name}…`
}
