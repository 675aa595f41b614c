import { useState } from 'react'
import { api, toApiError, type ApiError } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'
import { plural } from './RemoveDialog'

/** Whose a device is, as the dialogs name it. */
export type Owner = { name: string; you: boolean }

const short = (device: string) => device.slice(0, 8)
const whose = (o: Owner) => (o.you ? 'your' : `${o.name}'s`)

/**
 * A dialog that says what an action will do, runs it once on confirmation
 * and ends on what it did; Close reports whether anything changed.
 */
function ActionDialog({
  title,
  children,
  confirm,
  busyLabel,
  danger,
  run,
  onClose,
}: {
  title: string
  children: React.ReactNode
  confirm: string
  busyLabel: string
  danger?: boolean
  run: () => Promise<string>
  onClose: (changed: boolean) => void
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const [done, setDone] = useState<string | null>(null)
  return (
    <Dialog title={title} onClose={() => onClose(done !== null)}>
      {done === null ? children : <p role="status">{done}</p>}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="button" onClick={() => onClose(done !== null)}>
          {done === null ? 'Cancel' : 'Close'}
        </button>
        {done === null ? (
          <button
            type="button"
            className={danger ? 'danger' : 'primary'}
            disabled={busy}
            onClick={async () => {
              setBusy(true)
              setError(null)
              try {
                setDone(await run())
              } catch (e) {
                setError(toApiError(e))
              } finally {
                setBusy(false)
              }
            }}
          >
            {busy ? busyLabel : confirm}
          </button>
        ) : null}
      </div>
    </Dialog>
  )
}

/** RevokeDeviceDialog: one lost or stolen device (spec/lifecycle.md "Key compromise"), said before it is done. */
export function RevokeDeviceDialog({
  workspace,
  owner,
  device,
  onClose,
}: {
  workspace: string
  owner: Owner
  device: string
  onClose: (changed: boolean) => void
}) {
  return (
    <ActionDialog
      title={`Revoke ${whose(owner)} device ${short(device)}`}
      confirm="Revoke device"
      busyLabel="Revoking…"
      danger
      onClose={onClose}
      run={async () => {
        const r = await api.members.revokeDevice(workspace, device)
        return `Device ${short(device)} is revoked${r.agents ? `, with ${plural(r.agents, 'agent')}` : ''}; ${plural(r.groups.length, 'channel')} got new keys.`
      }}
    >
      <ul className="plan-list" aria-label="What revoking does">
        <li>The device, and any agent it delegated to, is revoked in the membership log.</li>
        <li>Every channel you are in that it is in gets new keys, so it cannot read anything sent after this.</li>
        <li>
          {owner.you
            ? 'The relay disconnects it once an admin’s device next publishes who may connect.'
            : 'The relay disconnects it within seconds and refuses it from then on.'}
        </li>
        <li>{owner.you ? 'You stay in the workspace with your other devices.' : `${owner.name} stays in the workspace with their other devices.`}</li>
      </ul>
      <p className="limit">
        <strong>Revoking cannot reach what that device already decrypted.</strong>
      </p>
    </ActionDialog>
  )
}

/**
 * ApproveDeviceDialog: ends the probation of a device added with a
 * recovery phrase (spec/lifecycle.md "Detection": the approval request).
 * What probation forbids is the roster's rule (roster.RecoverDevice).
 */
export function ApproveDeviceDialog({
  workspace,
  owner,
  device,
  onClose,
}: {
  workspace: string
  owner: Owner
  device: string
  onClose: (changed: boolean) => void
}) {
  const who = owner.you ? 'you' : owner.name
  return (
    <ActionDialog
      title={`Approve ${whose(owner)} device ${short(device)}`}
      confirm="Approve device"
      busyLabel="Approving…"
      onClose={onClose}
      run={async () => {
        await api.members.approveDevice(workspace, device)
        return `Device ${short(device)} is approved: its probation is over.`
      }}
    >
      <p>
        This device was added with {owner.you ? 'your' : `${owner.name}'s`} recovery phrase. Until an admin approves it, it is on probation: it can
        read and write, but it cannot add or remove anyone, change roles, invite, approve retention changes or publish who may connect.
      </p>
      <p>
        Approving ends the probation, so it acts with {owner.you ? 'your' : `${owner.name}'s`} full rights.{' '}
        <strong>Approve it only if {who === 'you' ? 'you recovered a device yourself' : `${who} told you they recovered a device`}</strong>; otherwise
        revoke it.
      </p>
    </ActionDialog>
  )
}

/**
 * RevokeAgentsDialog: "revoke all certificates issued by this device"
 * (spec/lifecycle.md "Key compromise"), naming how many agents it revokes.
 */
export function RevokeAgentsDialog({
  workspace,
  owner,
  device,
  agents,
  onClose,
}: {
  workspace: string
  owner: Owner
  device: string
  /** How many agents whose certificate the device issued are not revoked yet. */
  agents: number
  onClose: (changed: boolean) => void
}) {
  return (
    <ActionDialog
      title={`Revoke the agents of device ${short(device)}`}
      confirm={`Revoke ${plural(agents, 'agent')}`}
      busyLabel="Revoking…"
      danger
      onClose={onClose}
      run={async () => {
        const list = await api.members.revokeAgentsIssuedBy(workspace, device)
        return list.length === 0 ? 'No agent was left to revoke.' : `Revoked ${plural(list.length, 'agent')}: ${list.map((a) => a.name).join(', ')}.`
      }}
    >
      <p>
        Revoke all certificates issued by {whose(owner)} device {short(device)}: {plural(agents, 'agent')}, in one change of the membership log.
      </p>
      <ul className="plan-list" aria-label="What revoking the agents does">
        <li>Each agent is then removed from the channels it was in.</li>
        <li>The device itself stays; revoke it separately if it is lost or stolen.</li>
      </ul>
    </ActionDialog>
  )
}
