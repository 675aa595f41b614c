import { useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Channel, type Person } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

/**
 * NewDMDialog: pick a person and write the first message; sending it starts
 * the direct message (every device of both of you is added).
 */
export function NewDMDialog({ workspace, onClose }: { workspace: string; onClose: (dm?: Channel) => void }) {
  const [people, setPeople] = useState<Person[] | null>(null)
  const [user, setUser] = useState('')
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => {
    api.people.list(workspace).then(
      (list) => setPeople(list.filter((p) => !p.you)),
      (e) => setError(toApiError(e)),
    )
  }, [workspace])
  return (
    <Dialog title="New message" onClose={() => onClose()}>
      <form
        onSubmit={async (e) => {
          e.preventDefault()
          setBusy(true)
          setError(null)
          try {
            const sent = await api.dms.send(workspace, user, text)
            onClose(sent.channel)
          } catch (err) {
            setError(toApiError(err))
            setBusy(false)
          }
        }}
      >
        <fieldset className="people-picker">
          <legend>To</legend>
          {people === null && !error ? <p className="muted">Loading people…</p> : null}
          {people?.length === 0 ? <p className="muted">Nobody else is in this workspace yet. Invite someone first.</p> : null}
          {people?.map((p) => (
            <label key={p.user} className="person-choice">
              <input type="radio" name="dm-to" value={p.user} checked={user === p.user} onChange={() => setUser(p.user)} />
              <span>{p.name}</span>
            </label>
          ))}
        </fieldset>
        <label htmlFor="dm-text">Message</label>
        <textarea id="dm-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
        <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
        <div className="dialog-actions">
          <button type="button" onClick={() => onClose()}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || user === '' || text.trim() === ''}>
            {busy ? 'Sending…' : 'Send'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
