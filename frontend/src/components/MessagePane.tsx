import { useState } from 'react'
import type { Status } from '../lib/api'
import { EmptyState } from './EmptyState'

/** MessagePane: the message history and the composer below it. */
export function MessagePane({ status, loading }: { status?: Status; loading: boolean }) {
  const [draft, setDraft] = useState('')
  const canSend = !!status?.hasWorkspace && draft.trim() !== ''
  return (
    <section className="pane">
      <div className="messages" aria-live="polite" aria-label="Messages">
        {loading ? <p className="muted">Loading…</p> : !status?.hasWorkspace ? <EmptyState /> : null}
      </div>
      <form className="composer" onSubmit={(e) => e.preventDefault()} aria-label="Composer">
        <label htmlFor="composer-input" className="visually-hidden">
          Message
        </label>
        <input
          id="composer-input"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder={status?.hasWorkspace ? 'Message #general' : 'Join a workspace to send messages'}
          disabled={!status?.hasWorkspace}
        />
        <button type="submit" disabled={!canSend}>
          Send
        </button>
      </form>
    </section>
  )
}
