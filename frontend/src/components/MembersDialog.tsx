import { useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Channel, type ChannelMember } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

/** waitingSentence is a pending add's line in a member list. */
export function waitingSentence(since: number): string {
  const d = new Date(since)
  return `waiting for that device to check in (added ${d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })})`
}

/**
 * MembersDialog: who is in a channel, device by device, and the pending
 * adds, shown as "waiting for that device to check in" with the date, so an
 * add that cannot complete is visible rather than silently absent.
 */
export function MembersDialog({ workspace, channel, onClose }: { workspace: string; channel: Channel; onClose: () => void }) {
  const [members, setMembers] = useState<ChannelMember[] | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => {
    api.channels.members(workspace, channel.id).then(setMembers, (e) => setError(toApiError(e)))
  }, [workspace, channel.id])
  const title = channel.kind === 'dm' ? `Members of the conversation with ${channel.name}` : `Members of #${channel.name}`
  return (
    <Dialog title={title} onClose={onClose}>
      {members === null && !error ? <p className="muted">Loading members…</p> : null}
      {members ? (
        <ul className="member-list" aria-label="Members">
          {members.map((m) => (
            <li key={m.device + (m.pending ? '-pending' : '')} data-pending={m.pending || undefined}>
              <span className="member-name">{m.name}</span>
              <span className="muted"> · device {m.device.slice(0, 8)}</span>
              {m.pending ? <span className="member-waiting"> · {waitingSentence(m.since)}</span> : null}
            </li>
          ))}
        </ul>
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
