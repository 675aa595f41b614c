import { lazy, Suspense, useEffect, useState } from 'react'
import {
  api,
  toApiError,
  type ApiError,
  type EncryptionHealth,
  type GroupEncryption,
  type HealthFinding,
  type RetentionProposal,
  type WorkspaceMember,
} from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'
import { RetentionDialog } from './RetentionDialog'

// The chart library (recharts, over half of the bundle) loads when this panel
// shows its chart, not before the app's first screen.
const StorageChart = lazy(() => import('./StorageChart').then((m) => ({ default: m.StorageChart })))

const stateLabel: Record<HealthFinding['state'], string> = {
  ok: 'OK',
  repaired: 'Repaired',
  action: 'Needs action',
  dismissed: 'Dismissed',
  not_checked: 'Not checked',
}

function when(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

function windowText(days: number): string {
  return days === 0 ? 'unlimited' : `${days} days`
}

/** retentionText: a group's retention policy in words. */
export function retentionText(g: GroupEncryption): string {
  return `text ${windowText(g.textDays)}, media ${windowText(g.mediaDays)}${g.defaultPolicy ? ' (defaults)' : ''}`
}

/** groupLabel: a group as the panel names it: #channel, a DM's person, the workspace. */
function groupLabel(g: GroupEncryption): string {
  return g.kind === 'dm' ? g.channel : g.kind === 'ws' ? `${g.channel} (workspace)` : `#${g.channel}`
}

/** checkpointText: the last checkpoint and, when history was read from one, "history verified from". */
export function checkpointText(g: GroupEncryption): string {
  const parts = [g.lastCheckpoint ? `last checkpoint ${when(g.lastCheckpoint)}` : 'no checkpoint yet']
  if (g.verifiedFrom) parts.push(`history verified from ${new Date(g.verifiedFrom).toLocaleDateString()}`)
  if (g.chainFrozen) parts.push('retention chain frozen')
  return parts.join('; ')
}

/**
 * The resolve actions the panel runs itself (app ResolveHealth); the others
 * are named with their command. Compact-now says what it deletes first
 * (spec/lifecycle.md "Dropping": "a clear statement of what will be deleted").
 */
const buttons: Record<string, { label: string; confirm?: string }> = {
  sync: { label: 'Repair now' },
  compact_now: {
    label: 'Compact now',
    confirm:
      'Compact now writes a fresh checkpoint of every channel this device is in and deletes from the relay every message envelope below it. The messages stay readable from the checkpoint; people who join later read them from it. Continue?',
  },
  resolve_chain: {
    label: 'Resolve',
    confirm:
      'Resolve keeps, in each frozen channel, the retention key this device derives from its own epochs and discards the competing one; compaction then resumes. Continue?',
  },
}

/**
 * QuorumForm: register a recovery quorum (docs/protocol/roster.md
 * "Recovery quorum"): the people chosen, threshold of whom must vouch for a
 * device someone recovered with their phrase before it may admit or remove
 * anyone. Only people still in the workspace are offered.
 */
export function QuorumForm({
  workspace,
  busy,
  onRegister,
  onCancel,
}: {
  workspace: string
  busy: boolean
  onRegister: (users: string[], threshold: number) => void
  onCancel: () => void
}) {
  const [people, setPeople] = useState<WorkspaceMember[] | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [chosen, setChosen] = useState<string[]>([])
  const [threshold, setThreshold] = useState(1)
  useEffect(() => {
    api.workspaces.members(workspace).then(
      (ms) => setPeople(ms.filter((m) => !m.revoked)),
      (e) => setError(toApiError(e)),
    )
  }, [workspace])
  const toggle = (user: string) => setChosen((c) => (c.includes(user) ? c.filter((u) => u !== user) : [...c, user]))
  const valid = chosen.length > 0 && threshold >= 1 && threshold <= chosen.length
  return (
    <form
      className="health-quorum"
      aria-label="Register a recovery quorum"
      onSubmit={(ev) => {
        ev.preventDefault()
        if (valid) onRegister(chosen, threshold)
      }}
    >
      <p className="help">
        If someone loses every device and recovers with their recovery phrase, the new device can read and write but cannot admit or remove anyone
        until this many of the people you choose vouch for it (with <code>weald recovery vouch DEVICE</code>). Choose people who would hear from them
        directly.
      </p>
      {people === null && !error ? <p className="muted">Loading people…</p> : null}
      {people ? (
        <fieldset>
          <legend>People in the quorum</legend>
          {people.map((m) => (
            <label key={m.user}>
              <input type="checkbox" checked={chosen.includes(m.user)} onChange={() => toggle(m.user)} /> {m.name}
              {m.you ? ' (you)' : ''}
            </label>
          ))}
        </fieldset>
      ) : null}
      <label>
        Vouches needed{' '}
        <input type="number" min={1} max={Math.max(1, chosen.length)} value={threshold} onChange={(ev) => setThreshold(Number(ev.target.value))} /> of{' '}
        {chosen.length}
      </label>
      {chosen.length > 0 && !valid ? <p role="alert">The number of vouches must be from 1 to the number of people chosen.</p> : null}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="submit" className="primary" disabled={busy || !valid}>
          Register quorum
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}

function Finding({
  f,
  busy,
  onDismiss,
  onResolve,
  onQuorum,
}: {
  f: HealthFinding
  busy: boolean
  onDismiss: () => void
  onResolve: (action: string) => void
  onQuorum: () => void
}) {
  const shown = f.action && (f.state === 'action' || f.state === 'dismissed') ? f.action : null
  const button = shown && f.state === 'action' ? buttons[shown.id] : undefined
  return (
    <li className="health-finding" data-state={f.state} data-severity={f.severity} data-check={f.check}>
      <span className="health-state">{stateLabel[f.state]}</span>
      <div>
        <strong>{f.title}</strong>
        <p>{f.finding}</p>
        {shown ? (
          <p className="health-action">
            To resolve: {shown.label}
            {shown.command ? (
              <>
                {' '}
                <code>{shown.command}</code>
              </>
            ) : null}
            {button && shown ? (
              <>
                {' '}
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => {
                    if (!button.confirm || window.confirm(button.confirm)) onResolve(shown.id)
                  }}
                >
                  {button.label}
                </button>
              </>
            ) : null}
            {f.check === 'admin_devices' && (f.state === 'action' || f.state === 'dismissed') ? (
              <>
                {' '}
                <button type="button" disabled={busy} onClick={onQuorum}>
                  Register a recovery quorum
                </button>
              </>
            ) : null}
            {f.check === 'admin_devices' && f.state === 'action' ? (
              <>
                {' '}
                <button type="button" disabled={busy} onClick={onDismiss}>
                  Dismiss
                </button>
              </>
            ) : null}
          </p>
        ) : null}
      </div>
    </li>
  )
}

function windowDays(days: number): string {
  return days === 0 ? 'unlimited' : `${days}d`
}

/** proposalText: what a pending retention change does, in plain words. */
function proposalText(p: RetentionProposal): string {
  if (p.resolve) {
    const key = p.resolveEpoch ? `the key of epoch ${p.resolveEpoch}` : "a key this device's chain does not hold"
    const until = p.expiresAt ? `, if approved before ${new Date(p.expiresAt).toLocaleString()}` : ''
    return `resolve the frozen retention chain: keep ${key} and discard the competing one(s), so compaction resumes${until}`
  }
  if (!p.destroy) return `text ${windowDays(p.textDays)}, media ${windowDays(p.mediaDays)}`
  const at = p.checkpointAt ? ` of ${new Date(p.checkpointAt).toLocaleString()}` : ''
  return `compact now: delete the channel's history on the relay below the checkpoint${at} (messages stay readable from the checkpoint), if approved before ${new Date(p.expiresAt).toLocaleString()}`
}

/** Pending: retention changes waiting for admins' approval, with Approve. */
function Pending({ items, busy, onApprove }: { items: RetentionProposal[]; busy: boolean; onApprove: (id: string) => void }) {
  return (
    <section aria-label="Retention changes waiting for approval" className="health-pending">
      <h3>Waiting for approval</h3>
      <ul>
        {items.map((p) => (
          <li key={p.id}>
            #{p.channel}: {proposalText(p)}; proposed by {p.proposer}; approved by {p.approvedBy.join(', ')} ({p.approvedBy.length} of {p.threshold}){' '}
            {p.approvable ? (
              <button type="button" disabled={busy} onClick={() => onApprove(p.id)}>
                Approve
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  )
}

/**
 * HealthPanel: the Encryption & health panel (spec/lifecycle.md "Ongoing
 * health"): the weekly check's findings with their resolve actions, Run
 * now, each channel's encryption state and the storage chart.
 */
export function HealthPanel({ workspace, onClose }: { workspace: string; onClose: () => void }) {
  const [data, setData] = useState<EncryptionHealth | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const [quorum, setQuorum] = useState(false)
  // The channel whose Retention dialog is open, in place of the panel; the panel reads its state again after it.
  const [retention, setRetention] = useState<{ group: string; label: string } | null>(null)
  useEffect(() => {
    if (retention) return
    api.health.get(workspace).then(setData, (e) => setError(toApiError(e)))
  }, [workspace, retention])
  const act = (p: Promise<EncryptionHealth>) => {
    setBusy(true)
    setError(null)
    p.then(setData, (e) => setError(toApiError(e))).finally(() => setBusy(false))
  }
  const report = data?.report
  const needing = report?.findings.filter((f) => f.state === 'action').length ?? 0
  if (retention) {
    return <RetentionDialog workspace={workspace} channel={retention.group} label={retention.label} onClose={() => setRetention(null)} />
  }
  return (
    <Dialog title="Encryption & health" onClose={onClose} wide>
      {data === null && !error ? <p className="muted">Loading…</p> : null}
      {report ? (
        <section aria-label="Health checks" className="health-checks">
          <div className="health-summary">
            <p role="status">
              {report.at === 0
                ? 'The health check has not run yet.'
                : needing > 0
                  ? `${needing} check${needing === 1 ? ' needs' : 's need'} action. Last run ${when(report.at)}.`
                  : `Nothing needs action. Last run ${when(report.at)}.`}
            </p>
            <button type="button" className="primary" disabled={busy} onClick={() => act(api.health.run(workspace))}>
              {busy ? 'Running…' : 'Run now'}
            </button>
          </div>
          {report.findings.length > 0 ? (
            <ul className="health-list" aria-label="Findings">
              {report.findings.map((f) => (
                <Finding
                  key={f.check}
                  f={f}
                  busy={busy}
                  onDismiss={() => act(api.health.dismiss(workspace, f.check))}
                  onResolve={(action) => act(api.health.resolve(workspace, action))}
                  onQuorum={() => setQuorum(true)}
                />
              ))}
            </ul>
          ) : null}
          {quorum ? (
            <QuorumForm
              workspace={workspace}
              busy={busy}
              onCancel={() => setQuorum(false)}
              onRegister={(users, threshold) => {
                setBusy(true)
                setError(null)
                api.health
                  .registerQuorum(workspace, users, threshold)
                  .then(
                    (d) => {
                      setData(d)
                      setQuorum(false)
                    },
                    (e) => setError(toApiError(e)),
                  )
                  .finally(() => setBusy(false))
              }}
            />
          ) : null}
        </section>
      ) : null}
      {data && data.pending.length > 0 ? (
        <Pending items={data.pending} busy={busy} onApprove={(id) => act(api.health.approve(workspace, id))} />
      ) : null}
      {data ? (
        <section aria-label="Channels" className="health-groups">
          <h3>Channels</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Channel</th>
                <th scope="col">Epoch</th>
                <th scope="col">Members</th>
                <th scope="col">Retention</th>
                <th scope="col">History</th>
              </tr>
            </thead>
            <tbody>
              {data.groups.map((g) => (
                <tr key={g.group}>
                  <th scope="row">{groupLabel(g)}</th>
                  <td>{g.epoch}</td>
                  <td>
                    {g.people} {g.people === 1 ? 'person' : 'people'}, {g.devices} {g.devices === 1 ? 'device' : 'devices'}
                  </td>
                  <td>
                    {retentionText(g)}
                    {g.kind !== 'ws' ? (
                      <>
                        {' '}
                        <button type="button" disabled={busy} onClick={() => setRetention({ group: g.group, label: groupLabel(g) })}>
                          Retention…
                        </button>
                      </>
                    ) : null}
                  </td>
                  <td>{checkpointText(g)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {data ? (
        <section aria-label="Storage" className="health-storage">
          <h3>Storage</h3>
          <Suspense fallback={<p className="help">Loading the chart…</p>}>
            <StorageChart points={data.storage} />
          </Suspense>
        </section>
      ) : null}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  )
}
