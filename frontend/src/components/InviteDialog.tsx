import { useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Invite, type InviteRecord, type InviteScope, type Role } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

const expiries = [
  { hours: 24, label: '1 day' },
  { hours: 24 * 7, label: '7 days' },
  { hours: 24 * 30, label: '30 days' },
]

const useCounts = [1, 5, 10, 25, 100]

/** What a link allows, said plainly. */
export function usesSentence(maxUses: number): string {
  return maxUses === 1 ? 'One person can join with this link, once' : `Up to ${maxUses} people can join with this link, each once`
}

/**
 * LiveInvites lists the workspace's invites that still work, with their
 * use count, and revokes one (the relay refuses its link from then on).
 */
export function LiveInvites({ workspace, refresh }: { workspace: string; refresh: number }) {
  const [list, setList] = useState<InviteRecord[] | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState('')
  const load = () =>
    api.invites.list(workspace).then(
      (l) => setList(l.filter((i) => i.state === 'live')),
      (e) => setError(toApiError(e)),
    )
  useEffect(() => {
    load()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workspace, refresh])
  return (
    <section className="live-invites" aria-labelledby="live-invites-h">
      <h3 id="live-invites-h">Links that still work</h3>
      {list === null && !error ? <p className="muted">Loading…</p> : null}
      {list?.length === 0 ? <p className="muted">None.</p> : null}
      <ul>
        {list?.map((i) => (
          <li key={i.id} className="invite-row">
            <span>
              {i.role === 'admin' ? 'Admin' : 'Member'} link by {i.createdBy}: {i.uses} of {i.maxUses} used, expires{' '}
              {new Date(i.expiresAt).toLocaleDateString()}
              {i.joinedBy.length > 0 ? ` (joined: ${i.joinedBy.join(', ')})` : ''}
            </span>
            <button
              type="button"
              disabled={busy === i.id}
              aria-label={`Revoke the ${i.role} link by ${i.createdBy} created ${new Date(i.createdAt).toLocaleString()}`}
              onClick={async () => {
                setBusy(i.id)
                setError(null)
                try {
                  await api.invites.revoke(workspace, i.id)
                  await load()
                } catch (err) {
                  setError(toApiError(err))
                } finally {
                  setBusy('')
                }
              }}
            >
              {busy === i.id ? 'Revoking…' : 'Revoke'}
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
    </section>
  )
}

/**
 * InviteDialog makes an invite link. The workspace root is always in scope
 * and cannot be removed; closed groups are never listed (gaps.md "Invites
 * and bootstrap": they are never offered as invite scopes).
 */
export function InviteDialog({ workspace, relay, onClose }: { workspace: string; relay?: string; onClose: () => void }) {
  const [scopes, setScopes] = useState<InviteScope[] | null>(null)
  const [chosen, setChosen] = useState<Set<string>>(new Set())
  const [hours, setHours] = useState(24 * 7)
  const [uses, setUses] = useState(1)
  const [role, setRole] = useState<Role>('member')
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
            {usesSentence(invite.maxUses)}, as {invite.role === 'admin' ? 'an admin' : 'a member'}, until{' '}
            {new Date(invite.expiresAt).toLocaleString()}. Anyone who has the link can use it: send it privately. This is the only time the link is
            shown; you can revoke it below.
          </p>
          {relay ? (
            <p className="help">
              The link carries the relay&rsquo;s address, <code data-testid="invite-relay">{relay}</code>: whoever joins must be able to reach it (for
              a relay this computer hosts on the network, while Weald is open here).
            </p>
          ) : null}
          <LiveInvites workspace={workspace} refresh={1} />
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
              setInvite(await api.invites.create(workspace, [...new Set([...root, ...chosen])], hours, uses, role))
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
          <label htmlFor="invite-uses">How many people can join with it</label>
          <select id="invite-uses" value={uses} onChange={(e) => setUses(Number(e.target.value))}>
            {useCounts.map((n) => (
              <option key={n} value={n}>
                {n === 1 ? 'One person (single use)' : `Up to ${n} people`}
              </option>
            ))}
          </select>
          <label htmlFor="invite-role">They join as</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="member">Members</option>
            <option value="admin">Admins (can invite, remove people and change settings)</option>
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
          <LiveInvites workspace={workspace} refresh={0} />
        </form>
      )}
    </Dialog>
  )
}
