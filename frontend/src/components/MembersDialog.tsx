import { useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Channel, type ChannelMember } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'
import { RemoveDialog } from './RemoveDialog'

/** waitingSentence is a pending add's line in a member list. */
export function waitingSentence(since: number): string {
  const d = new Date(since)
  return `waiting for that device to check in (added ${d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })})`
}

/**
 * verifiedSentence is the member list's line for a channel whose history
 * this device read from a checkpoint (spec/lifecycle.md "Interaction with
 * open history"): it could not check the author chains beneath it.
 */
export function verifiedSentence(from: number): string {
  const d = new Date(from)
  return `History verified from ${d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })}. What came before was compacted on the relay before this device joined: it was read from a signed checkpoint, whose author chains this device could not check.`
}

/**
 * MembersDialog: who is in a channel, device by device, and the pending
 * adds, shown as "waiting for that device to check in" with the date, so an
 * add that cannot complete is visible rather than silently absent. In a
 * private channel an admin removes a person from that channel alone. When
 * this device read the channel's earlier history from a checkpoint, the
 * list says from when its history is verified.
 */
export function MembersDialog({
  workspace,
  workspaceName = '',
  admin = false,
  channel,
  onClose,
}: {
  workspace: string
  workspaceName?: string
  /** This device is an admin's: a private channel's members can be removed from it alone. */
  admin?: boolean
  channel: Channel
  onClose: () => void
}) {
  const [members, setMembers] = useState<ChannelMember[] | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [removing, setRemoving] = useState<{ user: string; name: string } | null>(null)
  const [reload, setReload] = useState(0)
  const [verifiedFrom, setVerifiedFrom] = useState(0)
  useEffect(() => {
    api.channels.members(workspace, channel.id).then(setMembers, (e) => setError(toApiError(e)))
  }, [workspace, channel.id, reload])
  useEffect(() => {
    let live = true
    api.channels.historyVerifiedFrom(workspace, channel.id).then(
      (t) => live && setVerifiedFrom(t),
      () => {},
    )
    return () => {
      live = false
    }
  }, [workspace, channel.id])
  const title = channel.kind === 'dm' ? `Members of the conversation with ${channel.name}` : `Members of #${channel.name}`
  // Partial removal: explicit channels only (spec/channels.md "Interaction with removal"), by an admin, one row per person.
  const canRemove = admin && channel.kind !== 'dm' && channel.policy.admission === 'explicit'
  const firstRow = new Set<string>()
  if (removing) {
    return (
      <RemoveDialog
        workspace={workspace}
        workspaceName={workspaceName}
        person={removing}
        channel={{ id: channel.id, name: channel.name }}
        onClose={(changed) => {
          setRemoving(null)
          if (changed) setReload((n) => n + 1)
        }}
      />
    )
  }
  return (
    <Dialog title={title} onClose={onClose}>
      {members === null && !error ? <p className="muted">Loading members…</p> : null}
      {members ? (
        <ul className="member-list" aria-label="Members">
          {members.map((m) => (
            <li key={m.device + (m.pending ? '-pending' : '')} data-pending={m.pending || undefined}>
              <span className="member-name">{m.name}</span>
              {m.agent ? <span className="muted"> · agent of {m.ownerName}</span> : <span className="muted"> · device {m.device.slice(0, 8)}</span>}
              {m.pending ? <span className="member-waiting"> · {waitingSentence(m.since)}</span> : null}
              {canRemove && !m.you && !m.pending && !firstRow.has(m.user) && firstRow.add(m.user) ? (
                <button type="button" className="link-button" onClick={() => setRemoving({ user: m.user, name: m.name })}>
                  Remove {m.name} from this channel
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {members && verifiedFrom ? (
        <p className="muted history-verified" role="note">
          {verifiedSentence(verifiedFrom)}
        </p>
      ) : null}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  )
}
