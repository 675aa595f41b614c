import { useCallback, useEffect, useRef, useState } from 'react'
import { api, toApiError, type AdminMember, type ApiError, type MemberDevice, type Receipt } from '../lib/api'
import { plainMessage } from '../state/errors'
import { newest } from '../state/newest'
import { Dialog, ErrorNote } from './Dialog'
import { ApproveDeviceDialog, RevokeAgentsDialog, RevokeDeviceDialog } from './DeviceDialogs'
import { waitingSentence } from './MembersDialog'
import { ReceiptPanel, RemoveDialog, plural } from './RemoveDialog'

const day = (ms: number) => new Date(ms).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })

/**
 * When this device last saw another device active: the newest message it wrote or roster change it signed
 * that this device received (engine.LastSeen). A date only (UTC, the day a message names), since a message's day
 * is all it says; 0 means nothing since it joined.
 */
export const lastSeenSentence = (ms: number) =>
  ms > 0
    ? `last seen ${new Date(ms).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' })}`
    : 'not seen since joining'

/** The reason the last admin's own Remove and demote controls are disabled (spec/lifecycle.md "If the removed person is the last admin"). */
export const lastAdminReason = 'You are the only admin. Promote someone first: a workspace needs an admin to remove people and invite.'

type Open =
  | { kind: 'remove'; member: AdminMember }
  | { kind: 'revoke' | 'approve' | 'agents'; member: AdminMember; device: MemberDevice }
  | { kind: 'receipt'; receipt: Receipt }
  | null

/**
 * PeopleView: the workspace's member list (spec/lifecycle.md "Removing a
 * person"): every person with their role, when they joined and their
 * devices (this one, revoked, on probation, waiting to check in). An admin
 * promotes and demotes, removes a person (RemoveDialog), revokes a lost
 * device; a member revokes their own other devices. Unfinished removals
 * and the receipts of finished ones are listed here.
 */
export function PeopleView({ workspace, workspaceName }: { workspace: string; workspaceName: string }) {
  const [members, setMembers] = useState<AdminMember[] | null>(null)
  const [receipts, setReceipts] = useState<Receipt[]>([])
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const [open, setOpen] = useState<Open>(null)
  const firstPromote = useRef<HTMLButtonElement | null>(null)

  // Loaded again on every workspace change: the newest load's answers are shown.
  const [listed] = useState(newest)
  const [receipted] = useState(newest)
  const load = useCallback(() => {
    listed(api.members.list(workspace), setMembers, (e) => setError(toApiError(e)))
    receipted(api.members.receipts(workspace), setReceipts)
  }, [workspace, listed, receipted])
  useEffect(() => {
    load()
    // A roster change (someone joined, another admin removed someone) reaches every device as a workspace change.
    return api.workspaces.onChanged(() => load())
  }, [load])

  const me = members?.find((m) => m.you)
  const amAdmin = me?.role === 'admin' && !me.revoked
  const liveAdmins = members?.filter((m) => m.role === 'admin' && !m.revoked).length ?? 0
  const lastAdmin = amAdmin && liveAdmins <= 1
  let promoteSeen = false

  const setAdmin = async (m: AdminMember, admin: boolean) => {
    setBusy(m.user)
    setError(null)
    try {
      await api.members.setAdmin(workspace, m.user, admin)
      load()
    } catch (e) {
      setError(toApiError(e))
    } finally {
      setBusy(null)
    }
  }

  return (
    <section className="people-view" aria-labelledby="people-h">
      <h2 id="people-h">People in {workspaceName}</h2>
      {members === null && !error ? <p className="muted">Loading people…</p> : null}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      {members ? (
        <ul className="people-list" aria-label="People">
          {members.map((m) => {
            const promote = amAdmin && !m.revoked && m.role !== 'admin'
            const isFirstPromote = promote && !promoteSeen
            if (promote) promoteSeen = true
            return (
              <li key={m.user} className="person-row" aria-label={m.name} data-revoked={m.revoked || undefined}>
                <div className="person-head">
                  <span className="member-name">{m.name}</span>
                  {m.you ? <span className="muted"> (you)</span> : null}
                  <span className="role-badge" data-role={m.role}>
                    {m.role === 'admin' ? 'Admin' : 'Member'}
                  </span>
                  {m.revoked ? <span className="removed-badge">Removed</span> : null}
                  <span className="muted"> · joined {day(m.joined)}</span>
                </div>
                <ul className="device-list" aria-label={`Devices of ${m.name}`}>
                  {m.devices.map((d) => (
                    <li key={d.device}>
                      <span>
                        Device <code>{d.device.slice(0, 8)}</code>
                        {d.you ? ' · this device' : ''}
                        {d.revoked ? ' · revoked' : ''}
                        {d.probation ? ' · on probation: waiting for an admin to approve it' : ''}
                        {d.you ? '' : ` · ${lastSeenSentence(d.lastSeen)}`}
                      </span>
                      {d.waiting.map((w) => (
                        <span key={w.channel} className="member-waiting">
                          {' '}
                          · #{w.channel}: {waitingSentence(w.since)}
                        </span>
                      ))}
                      {d.canApprove && d.probation && !d.revoked ? (
                        <button type="button" className="link-button" onClick={() => setOpen({ kind: 'approve', member: m, device: d })}>
                          Approve device
                        </button>
                      ) : null}
                      {!d.revoked && !d.you && !m.revoked && (amAdmin || m.you) ? (
                        <button type="button" className="link-button" onClick={() => setOpen({ kind: 'revoke', member: m, device: d })}>
                          Revoke device
                        </button>
                      ) : null}
                      {d.agents > 0 && (amAdmin || m.you) ? (
                        <button type="button" className="link-button" onClick={() => setOpen({ kind: 'agents', member: m, device: d })}>
                          Revoke all certificates issued by this device ({d.agents})
                        </button>
                      ) : null}
                    </li>
                  ))}
                </ul>
                {m.removal?.state === 'running' ? (
                  <p className="help">
                    Removal of {m.name} not finished yet; it continues by itself while Weald is connected.{' '}
                    <button type="button" className="link-button" onClick={() => setOpen({ kind: 'remove', member: m })}>
                      Continue now
                    </button>
                  </p>
                ) : null}
                {m.removal?.state === 'needs_reapproval' ? (
                  <p className="error-note" role="alert">
                    Removal of {m.name} paused: the membership changed after you approved it.{' '}
                    <button type="button" onClick={() => setOpen({ kind: 'remove', member: m })}>
                      Review and approve
                    </button>
                  </p>
                ) : null}
                {amAdmin && !m.revoked ? (
                  <div className="person-actions">
                    {promote ? (
                      <button
                        type="button"
                        ref={isFirstPromote ? firstPromote : undefined}
                        disabled={busy === m.user}
                        onClick={() => setAdmin(m, true)}
                      >
                        Make admin
                      </button>
                    ) : (
                      <button
                        type="button"
                        disabled={busy === m.user || (m.you && lastAdmin)}
                        aria-describedby={m.you && lastAdmin ? 'self-reason' : undefined}
                        onClick={() => setAdmin(m, false)}
                      >
                        Remove admin role
                      </button>
                    )}
                    <button
                      type="button"
                      className="danger"
                      disabled={m.you}
                      aria-describedby={m.you ? 'self-reason' : undefined}
                      onClick={() => setOpen({ kind: 'remove', member: m })}
                    >
                      Remove {m.name}…
                    </button>
                    {m.you ? (
                      <p className="help" id="self-reason">
                        {lastAdmin ? lastAdminReason : 'You cannot remove yourself; another admin can.'}{' '}
                        {lastAdmin ? (
                          <button
                            type="button"
                            className="link-button"
                            onClick={() => firstPromote.current?.focus()}
                            disabled={members.every((x) => x.you || x.revoked)}
                          >
                            Promote someone
                          </button>
                        ) : null}
                      </p>
                    ) : null}
                  </div>
                ) : null}
              </li>
            )
          })}
        </ul>
      ) : null}
      {members && !amAdmin ? <p className="help">Only admins can remove people or change roles. You can revoke your own other devices.</p> : null}
      <h3>Removal receipts</h3>
      {receipts.length === 0 ? (
        <p className="muted">Nobody has been removed.</p>
      ) : (
        <ul className="receipt-list" aria-label="Removal receipts">
          {receipts.map((r) => (
            <li key={r.operation}>
              {r.name} · removed from {r.channel ? 'a channel' : 'the workspace'} on {new Date(r.at).toLocaleString()} ·{' '}
              {plural(r.groups.length, 'group')} with new keys{' '}
              <button type="button" className="link-button" onClick={() => setOpen({ kind: 'receipt', receipt: r })}>
                Open receipt
              </button>
            </li>
          ))}
        </ul>
      )}
      {open?.kind === 'remove' ? (
        <RemoveDialog
          workspace={workspace}
          workspaceName={workspaceName}
          person={open.member}
          paused={open.member.removal?.state === 'needs_reapproval' ? open.member.removal : undefined}
          onClose={(changed) => {
            setOpen(null)
            if (changed) load()
          }}
        />
      ) : null}
      {open?.kind === 'revoke' || open?.kind === 'approve' || open?.kind === 'agents' ? (
        <DeviceAction
          kind={open.kind}
          workspace={workspace}
          member={open.member}
          device={open.device}
          onClose={(changed) => {
            setOpen(null)
            if (changed) load()
          }}
        />
      ) : null}
      {open?.kind === 'receipt' ? (
        <Dialog title="Removal receipt" onClose={() => setOpen(null)}>
          <ReceiptPanel workspace={workspace} workspaceName={workspaceName} receipt={open.receipt} onClose={() => setOpen(null)} />
        </Dialog>
      ) : null}
    </section>
  )
}

/** DeviceAction opens the dialog of one action on a device row. */
function DeviceAction({
  kind,
  workspace,
  member,
  device,
  onClose,
}: {
  kind: 'revoke' | 'approve' | 'agents'
  workspace: string
  member: AdminMember
  device: MemberDevice
  onClose: (changed: boolean) => void
}) {
  const owner = { name: member.name, you: member.you }
  if (kind === 'approve') return <ApproveDeviceDialog workspace={workspace} owner={owner} device={device.device} onClose={onClose} />
  if (kind === 'agents')
    return <RevokeAgentsDialog workspace={workspace} owner={owner} device={device.device} agents={device.agents} onClose={onClose} />
  return <RevokeDeviceDialog workspace={workspace} owner={owner} device={device.device} onClose={onClose} />
}
