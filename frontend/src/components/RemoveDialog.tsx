import { useEffect, useRef, useState } from 'react'
import { api, toApiError, type ApiError, type Progress, type Receipt, type Removal, type RemovalPlan } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

/** The one thing removal cannot do (spec/lifecycle.md "What removal does not do"), said before the admin confirms. */
export function limitSentence(name: string): string {
  return `Removal cannot reach what ${name} already decrypted onto their own devices.`
}

export const plural = (n: number, one: string, many = one + 's') => `${n} ${n === 1 ? one : many}`

/**
 * planSentences: what the removal will do, in the order it does it
 * (docs/protocol/lifecycle.md "Steps"), in plain words.
 */
export function planSentences(p: RemovalPlan, workspace: string): string[] {
  const out: string[] = []
  if (p.channel) {
    out.push(`${p.name}'s ${plural(p.devices, 'device')} ${p.agents ? `and ${plural(p.agents, 'agent')} ` : ''}leave #${p.channel}.`)
    out.push(
      p.groups > 0
        ? `#${p.channel} gets new keys, so ${p.name} cannot read anything sent there after this.`
        : `None of ${p.name}'s devices is in #${p.channel} any more, so no new keys are needed.`,
    )
    out.push(`${p.name} stays in ${workspace} and in every other channel.`)
    return out
  }
  out.push(
    `${p.name}'s ${plural(p.devices, 'device')}${p.agents ? ` and ${plural(p.agents, 'agent')}` : ''} ${p.devices + p.agents === 1 ? 'is' : 'are'} revoked: the relay disconnects ${p.devices + p.agents === 1 ? 'it' : 'them'} within seconds and refuses ${p.devices + p.agents === 1 ? 'it' : 'them'} from then on.`,
  )
  out.push(`The workspace and every channel they are in get new keys (${plural(p.groups, 'group')}), so they cannot read anything sent after this.`)
  if (p.notMember > 0) {
    out.push(
      `You are not in ${plural(p.notMember, 'other channel')}, so you cannot give ${p.notMember === 1 ? 'it' : 'them'} new keys: if ${p.name} is in ${p.notMember === 1 ? 'it' : 'one'}, its members' devices remove them there the next time they sync, once 10 minutes have passed. The relay refuses ${p.name}'s devices within seconds.`,
    )
  }
  if (p.recoveryKeys > 0) out.push(`Their recovery phrase stops working: the copies of channel keys sealed to it are deleted from the relay.`)
  if (p.invites > 0) out.push(`${plural(p.invites, 'invite link')} naming them ${p.invites === 1 ? 'is' : 'are'} revoked.`)
  out.push(`A new list of who may connect is published without them, and the removal is written to the membership log with a receipt.`)
  return out
}

const workspaceSteps = [
  ['revoke', 'Revoke their devices'],
  ['rotate', 'New keys for each channel'],
  ['wraps', 'Delete their recovery copies'],
  ['invites', 'Revoke invites naming them'],
  ['access', 'Publish who may connect'],
  ['receipt', 'Write the receipt'],
] as const
const channelSteps = [
  ['rotate', 'New keys for the channel'],
  ['wraps', 'Delete their recovery copies'],
  ['receipt', 'Write the receipt'],
] as const

type Stage =
  | { kind: 'plan'; plan: RemovalPlan | null }
  | { kind: 'running' }
  | { kind: 'paused'; removal: Removal }
  | { kind: 'done'; receipt: Receipt }
  | { kind: 'failed'; error: ApiError }

/**
 * RemoveDialog removes a person from the workspace (or, with channel, from
 * one private channel): it says first what will happen and what removal
 * cannot do, then shows the steps as they run, and ends on the receipt.
 * A removal paused because another admin changed the membership shows the
 * changes and asks again.
 */
export function RemoveDialog({
  workspace,
  workspaceName,
  person,
  channel,
  paused,
  onClose,
}: {
  workspace: string
  workspaceName: string
  person: { user: string; name: string }
  channel?: { id: string; name: string }
  /** Open on a removal waiting for reapproval. */
  paused?: Removal
  onClose: (changed: boolean) => void
}) {
  const [stage, setStage] = useState<Stage>(paused ? { kind: 'paused', removal: paused } : { kind: 'plan', plan: null })
  const [planError, setPlanError] = useState<ApiError | null>(null)
  const [steps, setSteps] = useState<Record<string, Progress>>({})
  const changed = useRef(false)

  useEffect(() => {
    if (paused) return
    api.members.plan(workspace, person.user, channel?.id ?? '').then(
      (plan) => setStage({ kind: 'plan', plan }),
      (e) => setPlanError(toApiError(e)),
    )
  }, [workspace, person.user, channel?.id, paused])

  useEffect(
    () =>
      api.onProgress((p) => {
        const prefix = `${workspace}/removal/`
        if (p.id.startsWith(prefix)) setSteps((s) => ({ ...s, [p.id.slice(prefix.length)]: p }))
      }),
    [workspace],
  )

  const run = async (reapprove: boolean) => {
    changed.current = true
    setSteps({})
    setStage({ kind: 'running' })
    try {
      const r = await api.members.remove(workspace, person.user, channel?.id ?? '', reapprove)
      if (r.state === 'done' && r.receipt) setStage({ kind: 'done', receipt: r.receipt })
      else if (r.state === 'needs_reapproval') setStage({ kind: 'paused', removal: r })
      else
        setStage({
          kind: 'failed',
          error: toApiError({ code: 'app/failed', message: 'The removal stopped before its receipt; try again to continue it.' }),
        })
    } catch (e) {
      setStage({ kind: 'failed', error: toApiError(e) })
    }
  }

  const scope = channel ? `#${channel.name}` : workspaceName
  const close = () => onClose(changed.current)
  const title = stage.kind === 'done' ? 'Removal receipt' : `Remove ${person.name} from ${scope}`
  return (
    <Dialog title={title} onClose={close}>
      {stage.kind === 'plan' ? (
        <>
          {stage.plan === null && !planError ? <p className="muted">Checking what the removal involves…</p> : null}
          <ErrorNote error={planError ? { code: planError.code, message: plainMessage(planError) } : null} />
          {stage.plan ? (
            <>
              {stage.plan.resumes ? (
                <p className="help">A removal of {person.name} was started already and is not finished; going on continues that one.</p>
              ) : null}
              <p>When you remove {person.name}:</p>
              <ul className="plan-list" aria-label="What the removal does">
                {planSentences(stage.plan, workspaceName).map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ul>
              <p className="limit" data-testid="removal-limit">
                <strong>{limitSentence(person.name)}</strong>
              </p>
            </>
          ) : null}
          <div className="dialog-actions">
            <button type="button" onClick={close}>
              Cancel
            </button>
            <button type="button" className="danger" disabled={!stage.plan} onClick={() => run(false)}>
              Remove {person.name}
            </button>
          </div>
        </>
      ) : null}
      {stage.kind === 'running' || stage.kind === 'failed' ? (
        <>
          <ol className="removal-steps" aria-label="Removal progress">
            {(channel ? channelSteps : workspaceSteps).map(([key, label]) => {
              const p = steps[key]
              const state = p?.finished ? 'done' : p ? 'working' : 'waiting'
              return (
                <li key={key} data-state={state}>
                  <span className="step-mark" aria-hidden="true">
                    {state === 'done' ? '✓' : state === 'working' ? '…' : '·'}
                  </span>{' '}
                  {label}
                  {p && !p.finished && p.total > 1 ? ` (${p.done} of ${p.total})` : ''}
                  <span className="visually-hidden">{state === 'done' ? ', done' : state === 'working' ? ', in progress' : ', waiting'}</span>
                </li>
              )
            })}
          </ol>
          {stage.kind === 'running' ? (
            <p className="help" role="status">
              Removing {person.name}… If Weald is closed now, the removal continues by itself the next time it connects.
            </p>
          ) : (
            <>
              <ErrorNote error={{ code: stage.error.code, message: plainMessage(stage.error) }} />
              <p className="help">What is done stays done; trying again continues the same removal.</p>
              <div className="dialog-actions">
                <button type="button" onClick={close}>
                  Close
                </button>
                <button type="button" className="primary" onClick={() => run(false)}>
                  Try again
                </button>
              </div>
            </>
          )}
        </>
      ) : null}
      {stage.kind === 'paused' ? (
        <>
          <p role="alert">
            This removal is paused: the workspace&apos;s membership changed after you approved it, and nothing more happens until you look at the
            changes and approve it again.
          </p>
          <ul className="plan-list" aria-label="Changes since you approved">
            {stage.removal.intervening.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <p className="limit">
            <strong>{limitSentence(person.name)}</strong>
          </p>
          <div className="dialog-actions">
            <button type="button" onClick={close}>
              Not now
            </button>
            <button type="button" className="danger" onClick={() => run(true)}>
              Approve and continue
            </button>
          </div>
        </>
      ) : null}
      {stage.kind === 'done' ? <ReceiptPanel workspace={workspace} workspaceName={workspaceName} receipt={stage.receipt} onClose={close} /> : null}
    </Dialog>
  )
}

/** ReceiptPanel: a removal's receipt, exportable as JSON and as a printable page. */
export function ReceiptPanel({
  workspace,
  workspaceName,
  receipt: r,
  onClose,
}: {
  workspace: string
  workspaceName: string
  receipt: Receipt
  onClose: () => void
}) {
  const [saved, setSaved] = useState<{ json: string; page: string } | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  return (
    <section className="receipt" aria-label="Receipt" data-testid="receipt">
      <p role="status">
        <strong>
          {r.name} was removed from {r.channel ? 'a channel of ' : ''}
          {workspaceName}
        </strong>{' '}
        on {new Date(r.at).toLocaleString()}.
      </p>
      <dl className="facts">
        <dt>Devices revoked</dt>
        <dd data-testid="receipt-devices">{r.devicesRevoked}</dd>
        <dt>Agents revoked</dt>
        <dd>{r.agentsRevoked}</dd>
        <dt>Groups with new keys</dt>
        <dd data-testid="receipt-groups">
          {r.groups.length}
          {r.groups.length > 0 ? ': ' + r.groups.map((g) => `${g.name || 'workspace root'} (epoch ${g.epoch})`).join(', ') : ''}
        </dd>
        {r.accessVersion ? (
          <>
            <dt>Access set version</dt>
            <dd>{r.accessVersion}</dd>
          </>
        ) : null}
        <dt>Operation</dt>
        <dd>
          <code className="hash" data-testid="receipt-operation">
            {r.operation}
          </code>
        </dd>
      </dl>
      {saved ? (
        <p className="copied" role="status" data-testid="receipt-saved">
          Saved <code>{saved.json}</code> and a printable page, <code>{saved.page}</code>.
        </p>
      ) : null}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      <div className="dialog-actions no-print">
        <button
          type="button"
          onClick={async () => {
            setError(null)
            try {
              setSaved(await api.members.exportReceipt(workspace, r.operation))
            } catch (e) {
              setError(toApiError(e))
            }
          }}
        >
          Export (JSON and printable page)
        </button>
        <button type="button" onClick={() => window.print()}>
          Print
        </button>
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  )
}
