import { useState } from 'react'
import { toApiError, type ApiError } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

/**
 * NameDialog changes your display name in one workspace (issue 17 item 3):
 * a roster set-name operation, so every member sees the new name on your
 * messages, old ones included, once their devices sync.
 */
export function NameDialog({
  workspace,
  current,
  onSave,
  onClose,
}: {
  /** The workspace's name, to say where the name applies. */
  workspace: string
  current: string
  onSave: (name: string) => Promise<void>
  onClose: () => void
}) {
  const [name, setName] = useState(current)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  return (
    <Dialog title="Your name" onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault()
          setBusy(true)
          setError(null)
          try {
            await onSave(name.trim())
            onClose()
          } catch (err) {
            setError(toApiError(err))
            setBusy(false)
          }
        }}
      >
        <label htmlFor="display-name">Your name in {workspace}</label>
        <input id="display-name" data-autofocus value={name} onChange={(e) => setName(e.target.value)} autoComplete="name" />
        <p className="help">Everyone in {workspace} sees this name on your messages, the ones you already sent included.</p>
        <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
