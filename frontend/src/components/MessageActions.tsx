import { useState, type ReactNode } from 'react'
import { toApiError, type ApiError, type Message } from '../lib/api'
import { plainMessage } from '../state/errors'
import { ErrorNote } from './Dialog'

/** What you can do to a message of yours: edit its text, delete it. */
export interface OwnActions {
  onEdit: (id: string, text: string) => Promise<void>
  onDelete: (id: string) => Promise<void>
}

/**
 * The actions a message row offers: only on your own messages (not a notice),
 * also while they or an edit of them wait in the outbox; not on one whose
 * delete waits.
 */
export function ownable(m: Message, own?: OwnActions): own is OwnActions {
  return !!own && m.mine && !m.kind && m.change !== 'delete'
}

/**
 * OwnMessage wraps the text of one of your messages: Edit and Delete on
 * hover or focus; Edit swaps the text for a field (Enter saves, Escape
 * cancels); Delete asks first, in the row itself.
 */
export function OwnMessage({ m, own, children }: { m: Message; own: OwnActions; children: ReactNode }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view')
  const [draft, setDraft] = useState(m.text)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const run = async (f: () => Promise<void>) => {
    setBusy(true)
    setError(null)
    try {
      await f()
      setMode('view')
    } catch (e) {
      setError(toApiError(e))
    } finally {
      setBusy(false)
    }
  }
  const note = <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
  if (mode === 'edit') {
    return (
      <form
        className="edit-box"
        onSubmit={(e) => {
          e.preventDefault()
          if (draft.trim() === m.text) return setMode('view')
          void run(() => own.onEdit(m.id, draft.trim()))
        }}
      >
        <label className="visually-hidden" htmlFor={`edit-${m.id}`}>
          Edit message
        </label>
        <input
          id={`edit-${m.id}`}
          autoFocus
          value={draft}
          disabled={busy}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault()
              setError(null)
              setMode('view')
            }
          }}
        />
        <p className="help">Enter to save, Escape to cancel.</p>
        {note}
      </form>
    )
  }
  return (
    <>
      {children}
      {mode === 'delete' ? (
        <div className="delete-confirm" role="group" aria-label="Delete this message?">
          <span>Delete this message? It is removed for everyone in the channel.</span>{' '}
          <button type="button" className="danger" disabled={busy} onClick={() => void run(() => own.onDelete(m.id))}>
            Delete
          </button>{' '}
          <button type="button" autoFocus onClick={() => (setError(null), setMode('view'))}>
            Cancel
          </button>
          {note}
        </div>
      ) : (
        <span className="message-actions">
          <button type="button" aria-label="Edit message" onClick={() => (setDraft(m.text), setError(null), setMode('edit'))}>
            Edit
          </button>
          <button type="button" aria-label="Delete message" onClick={() => (setError(null), setMode('delete'))}>
            Delete
          </button>
        </span>
      )}
    </>
  )
}
