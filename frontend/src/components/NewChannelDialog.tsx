import { useState } from 'react'
import { toApiError, type ApiError, type Channel } from '../lib/api'
import { scopes } from '../state/lock'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

/**
 * NewChannelDialog with the scope picker (spec/channels.md "Interaction with
 * removal"): "parent" says anyone in this workspace can join and that nobody
 * can be removed from it alone; "explicit" says it is private and members
 * add people. The choice is final: admission never changes after creation.
 */
export function NewChannelDialog({
  onCreate,
  onClose,
}: {
  onCreate: (name: string, admission: 'parent' | 'explicit') => Promise<Channel>
  onClose: (created?: Channel) => void
}) {
  const [name, setName] = useState('')
  const [admission, setAdmission] = useState<'parent' | 'explicit'>('parent')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const clean = name.trim().replace(/^#/, '')
  return (
    <Dialog title="New channel" onClose={() => onClose()}>
      <form
        onSubmit={async (e) => {
          e.preventDefault()
          setBusy(true)
          setError(null)
          try {
            onClose(await onCreate(clean, admission))
          } catch (err) {
            setError(toApiError(err))
            setBusy(false)
          }
        }}
      >
        <label htmlFor="channel-name">Name</label>
        <input id="channel-name" data-autofocus value={name} onChange={(e) => setName(e.target.value)} placeholder="design" />
        <fieldset className="scope-picker">
          <legend>Who can join</legend>
          {(['parent', 'explicit'] as const).map((a) => (
            <label key={a} className="scope-choice" data-checked={admission === a || undefined}>
              <input
                type="radio"
                name="admission"
                value={a}
                checked={admission === a}
                onChange={() => setAdmission(a)}
                aria-describedby={`scope-${a}`}
              />
              <span className="scope-label">{scopes[a].label}</span>
              <span id={`scope-${a}`} className="scope-text">
                <strong>{scopes[a].sentence}</strong>
                <span> {scopes[a].detail}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <p className="help">This cannot be changed later: a channel with different access is a new channel.</p>
        <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
        <div className="dialog-actions">
          <button type="button" onClick={() => onClose()}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || clean === ''}>
            {busy ? 'Creating…' : 'Create channel'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
