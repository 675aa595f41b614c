import { useState } from 'react'
import type { Channel, Message } from '../lib/api'
import { plainMessage } from '../state/errors'
import type { Outgoing } from '../state/useMessages'
import { ErrorNote } from './Dialog'

const time = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })

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

/** MessagePane: the channel's history, the sends in flight and the composer below. */
export function MessagePane({
  channel,
  messages,
  outgoing,
  loading,
  error,
  onSend,
  onRetry,
  onDiscard,
}: {
  channel?: Channel
  messages: Message[]
  outgoing: Outgoing[]
  loading: boolean
  error: { code: string; message: string } | null
  onSend: (text: string) => void
  onRetry: (key: string) => void
  onDiscard: (key: string) => void
}) {
  const [draft, setDraft] = useState('')
  // Ready means the Send button is enabled (gaps.md "Onboarding"); an empty draft is simply not sent.
  const canSend = !!channel && channel.joined
  return (
    <section className="pane">
      <div className="messages" role="log" aria-label="Messages" aria-live="polite">
        {loading ? <p className="muted">Loading messages…</p> : null}
        {error ? <ErrorNote error={{ code: error.code, message: plainMessage(error) }} /> : null}
        {!loading && channel && messages.length === 0 && outgoing.length === 0 ? (
          <p className="muted">No messages in #{channel.name} yet. Say hello.</p>
        ) : null}
        <ol className="message-list">
          {messages.map((m) => (
            <li key={m.id} className="message" data-mine={m.mine || undefined} data-state={m.state}>
              <div className="message-meta">
                <span className="author">{m.author}</span> <time dateTime={new Date(m.sentAt).toISOString()}>{time(m.sentAt)}</time>
                {m.state !== 'sent' ? (
                  <>
                    {' '}
                    <span className="send-state" role="status">
                      {m.state === 'pending' ? 'Sending…' : 'Not sent'}
                    </span>
                  </>
                ) : null}
              </div>
              <div className="message-text">{m.text}</div>
              {m.state === 'failed' ? <SendError error={m.error} onRetry={() => onRetry(m.id)} onDiscard={() => onDiscard(m.id)} /> : null}
            </li>
          ))}
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
      </div>
      <form
        className="composer"
        aria-label="Composer"
        onSubmit={(e) => {
          e.preventDefault()
          if (!canSend || draft.trim() === '') return
          onSend(draft.trim())
          setDraft('')
        }}
      >
        <label htmlFor="composer-input" className="visually-hidden">
          Message
        </label>
        <input
          id="composer-input"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder={channel ? (channel.joined ? `Message #${channel.name}` : `Joining #${channel.name}…`) : 'Join a workspace to send messages'}
          disabled={!channel || !channel.joined}
        />
        <button type="submit" disabled={!canSend}>
          Send
        </button>
      </form>
    </section>
  )
}
