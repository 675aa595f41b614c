import { useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Invite, type InviteScope } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

const expiries = [
  { hours: 24, label: '1 day' },
  { hours: 24 * 7, label: '7 days' },
  { hours: 24 * 30, label: '30 days' },
]

/**
 * InviteDialog makes an invite link. The workspace root is always in scope
 * and cannot be removed; closed groups are never listed (gaps.md "Invites
 * and bootstrap": they are never offered as invite scopes).
 */
export function InviteDialog({ workspace, onClose }: { workspace: string; onClose: () => void }) {
  const [scopes, setScopes] = useState<InviteScope[] | null>(null)
  const [chosen, setChosen] = useState<Set<string>>(new Set())
  const [hours, setHours] = useState(24 * 7)
  const [invite, setInvite] = useState<Invite | null>(null)
  const [busy, setBusy] = useState(false)
  const [copied, setCopied] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)

  useEffect(() => {
    let live = true
    api.invites.scopes(workspace).then(
      (list) => {
        if (!live) return
        const offered = list.filter((s) => s.root || s.history === 'open')
        setScopes(offered)
        setChosen(new Set(offered.map((s) => s.group)))
      },
      (e) => live && setError(toApiError(e)),
    )
    return () => {
      live = false
    }
  }, [workspace])

  const toggle = (g: string) =>
    setChosen((c) => {
      const n = new Set(c)
      if (n.has(g)) n.delete(g)
      else n.add(g)
      return n
    })

  return (
    <Dialog title="Invite people" onClose={onClose}>
      {invite ? (
        <div className="invite-result">
          <label htmlFor="invite-link">Invite link</label>
          <input id="invite-link" data-autofocus readOnly value={invite.link} onFocus={(e) => e.currentTarget.select()} />
          <p className="help">
            Expires {new Date(invite.expiresAt).toLocaleString()}. One person can join with this link, once, until then; send it privately to them.
          </p>
          <div className="dialog-actions">
            <span role="status" className="copied">
              {copied ? 'Copied' : ''}
            </span>
            <button
              type="button"
              className="primary"
              onClick={async () => {
                setCopied(await api.copy(invite.link))
              }}
            >
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
              const root = scopes?.filter((s) => s.root).map((s) => s.group) ?? []
              setInvite(await api.invites.create(workspace, [...new Set([...root, ...chosen])], hours))
            } catch (err) {
              setError(toApiError(err))
            } finally {
              setBusy(false)
            }
          }}
        >
          <fieldset className="scopes">
            <legend>What the invite opens</legend>
            {scopes === null && !error ? <p className="muted">Loading…</p> : null}
            {scopes?.map((s) => (
              <label key={s.group} className="scope-row">
                <input
                  type="checkbox"
                  checked={s.root || chosen.has(s.group)}
                  disabled={s.root}
                  onChange={() => toggle(s.group)}
                  aria-describedby={s.root ? 'root-always' : undefined}
                />
                {s.root ? s.name : `#${s.name}`}
                {s.root ? (
                  <span id="root-always" className="help">
                    {' '}
                    (always included: the workspace itself)
                  </span>
                ) : null}
              </label>
            ))}
            <p className="help">Private channels are never part of an invite: their members add people after they arrive.</p>
          </fieldset>
          <label htmlFor="invite-expiry">Expires after</label>
          <select id="invite-expiry" value={hours} onChange={(e) => setHours(Number(e.target.value))}>
            {expiries.map((x) => (
              <option key={x.hours} value={x.hours}>
                {x.label}
              </option>
            ))}
          </select>
          <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
          <div className="dialog-actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy || scopes === null}>
              {busy ? 'Creating…' : 'Create link'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  )
}
