import { useState } from 'react'
import { api, toApiError, type ApiError, type Pairing } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

const lives = [
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
]

/**
 * AddDeviceDialog makes a one-use pairing link for a new device of yours
 * (docs/protocol/devices.md). On the new device, "Join as an existing user"
 * takes the link; it joins as you and your devices add it to your private
 * channels and direct messages.
 */
export function AddDeviceDialog({ workspace, onClose }: { workspace: string; onClose: () => void }) {
  const [minutes, setMinutes] = useState(15)
  const [pairing, setPairing] = useState<Pairing | null>(null)
  const [busy, setBusy] = useState(false)
  const [copied, setCopied] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  return (
    <Dialog title="Add a device" onClose={onClose}>
      {pairing ? (
        <div className="invite-result">
          <label htmlFor="pair-link">Pairing link</label>
          <input id="pair-link" data-autofocus readOnly value={pairing.link} onFocus={(e) => e.currentTarget.select()} />
          <p className="help">
            On your new device, open Weald, choose <strong>Join as an existing user</strong> and paste this link. It works once, until{' '}
            {new Date(pairing.expiresAt).toLocaleTimeString()}. Whoever has it can join as you: move it to your device privately. This is the only
            time it is shown.
          </p>
          {pairing.published ? null : (
            <p className="help" role="note">
              You are not an admin, so the relay learns of this link when an admin’s Weald next syncs; until then your new device is asked to wait.
            </p>
          )}
          <p className="help">Keep this device open: it adds the new one to your private channels once it has joined.</p>
          <div className="dialog-actions">
            <span role="status" className="copied">
              {copied ? 'Copied' : ''}
            </span>
            <button type="button" className="primary" onClick={async () => setCopied(await api.copy(pairing.link))}>
              Copy link
            </button>
            <button type="button" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            setBusy(true)
            setError(null)
            try {
              setPairing(await api.workspaces.pairDevice(workspace, minutes))
            } catch (err) {
              setError(toApiError(err))
            } finally {
              setBusy(false)
            }
          }}
        >
          <p>
            A pairing link lets another computer of yours join this workspace as you: it joins your channels and sends as you. Private channels and
            direct messages show it what is sent from its arrival on. The link works once.
          </p>
          <label htmlFor="pair-expiry">The link works for</label>
          <select id="pair-expiry" value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
            {lives.map((x) => (
              <option key={x.minutes} value={x.minutes}>
                {x.label}
              </option>
            ))}
          </select>
          <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
          <div className="dialog-actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Making a link…' : 'Make a pairing link'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  )
}
