import { useCallback, useEffect, useRef, useState } from 'react'
import { api, toApiError, type ApiError, type RecoveryRotation, type RecoveryState, type SecurityAlert } from '../lib/api'
import { plainMessage } from '../state/errors'
import { newest } from '../state/newest'
import { ErrorNote } from './Dialog'
import { ApproveDeviceDialog, RevokeDeviceDialog } from './DeviceDialogs'
import { PhraseOnce, randomPositions } from './FirstRun'
import { plural } from './RemoveDialog'

const when = (ms: number) =>
  new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
const day = (ms: number) => new Date(ms).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })

/** Who acted, in words: the person (or agent, or recovery phrase) and the acting device. */
export function actorSentence(a: Pick<SecurityAlert, 'actorName' | 'actorDevice'>): string {
  const dev = a.actorDevice ? `device ${a.actorDevice.slice(0, 8)}` : ''
  if (a.actorName && dev) return `By ${a.actorName}, from ${dev}`
  if (a.actorName) return `By ${a.actorName}`
  if (dev) return `By ${dev}`
  return ''
}

/** How an alert was acknowledged on this device. */
export function outcomeSentence(a: Pick<SecurityAlert, 'outcome' | 'acknowledged'>): string {
  const on = day(a.acknowledged)
  switch (a.outcome) {
    case 'approved':
      return `Device approved on ${on}.`
    case 'vouched':
      return `Vouched for the device on ${on}.`
    case 'revoked':
      return `Device revoked on ${on}.`
    case 'rotated':
      return `Recovery phrase rotated on ${on}.`
    default:
      return `Dismissed on ${on}.`
  }
}

/** needsAttention counts the security alerts (not notices) nobody acknowledged on this device: the sidebar's badge. */
export const needsAttention = (list: SecurityAlert[]) => list.filter((a) => a.tone === 'alert' && !a.acknowledged).length

type Open = { kind: 'approve' | 'revoke'; alert: SecurityAlert } | null

/**
 * SecurityView: the workspace's alerts (spec/lifecycle.md "Detection"),
 * each in plain words with who acted, when, and the action it calls for —
 * approve or revoke the device it concerns, rotate your recovery phrase,
 * dismiss — with the acknowledgement kept on this device; then the
 * recovery phrase and its rotation ("Key compromise").
 */
export function SecurityView({
  workspace,
  workspaceName,
  workspaceLink,
  onChanged,
}: {
  workspace: string
  workspaceName: string
  /** The workspace link (weald://workspace?…): what recovering onto a new device needs beside the phrase. */
  workspaceLink?: string
  onChanged?: () => void
}) {
  const [alerts, setAlerts] = useState<SecurityAlert[] | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [open, setOpen] = useState<Open>(null)
  const [rotateAsked, setRotateAsked] = useState(0)
  // While a new phrase is on screen, it is all this view shows.
  const [phraseUp, setPhraseUp] = useState(false)
  const changed = useRef(onChanged)
  changed.current = onChanged

  // Loaded again on every alert and workspace change: the newest load's answer is shown.
  const [loaded] = useState(newest)
  const load = useCallback(() => {
    loaded(
      api.security.alerts(workspace),
      (list) => {
        setAlerts(list)
        changed.current?.()
      },
      (e) => setError(toApiError(e)),
    )
  }, [workspace, loaded])
  useEffect(() => {
    load()
    const offAlert = api.onAlert((a) => a.workspace === workspace && load())
    const offWs = api.workspaces.onChanged(() => load())
    return () => {
      offAlert()
      offWs()
    }
  }, [load, workspace])

  const dismiss = async (a: SecurityAlert) => {
    setError(null)
    try {
      setAlerts(await api.security.dismiss(workspace, a.id))
      changed.current?.()
    } catch (e) {
      setError(toApiError(e))
    }
  }

  // A member of the recovery quorum vouches only after hearing from the
  // person directly (docs/protocol/roster.md "Recovery quorum").
  const vouch = async (a: SecurityAlert) => {
    if (
      !window.confirm(
        `Vouch for device ${a.device.slice(0, 8)}… of ${a.deviceName} only if ${a.deviceName} told you directly (in person or on a call you trust) that they recovered it. Enough vouches let it admit and remove people. Vouch now?`,
      )
    )
      return
    setError(null)
    try {
      await api.security.vouch(workspace, a.device)
      load()
    } catch (e) {
      setError(toApiError(e))
    }
  }

  const fresh = alerts?.filter((a) => !a.acknowledged) ?? []
  const earlier = alerts?.filter((a) => a.acknowledged) ?? []
  return (
    <section className="security-view" aria-labelledby={phraseUp ? undefined : 'security-h'} aria-label={phraseUp ? 'Security' : undefined}>
      {phraseUp ? null : (
        <>
          <h2 id="security-h">Security of {workspaceName}</h2>
          <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
          <h3>Alerts</h3>
          {alerts === null && !error ? <p className="muted">Loading alerts…</p> : null}
          {alerts && fresh.length === 0 ? (
            <p className="muted">
              Nothing new. Joins, removals and role changes that someone else makes, and anything this device refuses, appear here.
            </p>
          ) : null}
        </>
      )}
      {fresh.length > 0 && !phraseUp ? (
        <ul className="alert-list" aria-label="New alerts">
          {fresh.map((a) => (
            <AlertRow key={a.id} alert={a}>
              <div className="alert-actions">
                {a.approve ? (
                  <button type="button" className="primary" onClick={() => setOpen({ kind: 'approve', alert: a })}>
                    Approve device {a.device.slice(0, 8)}…
                  </button>
                ) : null}
                {a.vouch ? (
                  <button type="button" className="primary" onClick={() => vouch(a)}>
                    Vouch for device {a.device.slice(0, 8)}…
                  </button>
                ) : null}
                {a.revoke ? (
                  <button type="button" className="danger" onClick={() => setOpen({ kind: 'revoke', alert: a })}>
                    Revoke device {a.device.slice(0, 8)}…
                  </button>
                ) : null}
                {a.rotate ? (
                  <button type="button" onClick={() => setRotateAsked((n) => n + 1)}>
                    Rotate my recovery phrase…
                  </button>
                ) : null}
                <button type="button" onClick={() => dismiss(a)}>
                  Dismiss
                </button>
              </div>
            </AlertRow>
          ))}
        </ul>
      ) : null}
      {earlier.length > 0 && !phraseUp ? (
        <>
          <h3>Acknowledged</h3>
          <ul className="alert-list" aria-label="Acknowledged alerts">
            {earlier.map((a) => (
              <AlertRow key={a.id} alert={a}>
                <p className="muted">{outcomeSentence(a)}</p>
              </AlertRow>
            ))}
          </ul>
        </>
      ) : null}
      <RecoveryPhrase
        workspace={workspace}
        workspaceName={workspaceName}
        workspaceLink={workspaceLink}
        asked={rotateAsked}
        onRotated={load}
        onPhrase={setPhraseUp}
      />
      {open ? <AlertDeviceAction workspace={workspace} open={open} onClose={(done) => (setOpen(null), done && load())} /> : null}
    </section>
  )
}

/** AlertDeviceAction opens the approve or revoke dialog of an alert's device. */
function AlertDeviceAction({ workspace, open, onClose }: { workspace: string; open: NonNullable<Open>; onClose: (done: boolean) => void }) {
  const Action = open.kind === 'approve' ? ApproveDeviceDialog : RevokeDeviceDialog
  return <Action workspace={workspace} owner={{ name: open.alert.deviceName, you: open.alert.rotate }} device={open.alert.device} onClose={onClose} />
}

function AlertRow({ alert: a, children }: { alert: SecurityAlert; children: React.ReactNode }) {
  const by = actorSentence(a)
  return (
    <li className="alert-row" data-tone={a.tone} aria-label={a.summary}>
      <p className="alert-summary">
        <span className="tone-badge" data-tone={a.tone}>
          {a.tone === 'alert' ? 'Security alert' : 'Notice'}
        </span>{' '}
        {a.summary}
      </p>
      <p className="help">
        {by ? `${by} · ` : ''}
        <time dateTime={new Date(a.time).toISOString()}>{when(a.time)}</time>
      </p>
      {a.detail && a.detail !== a.summary ? (
        <details className="alert-detail">
          <summary>Details</summary>
          <p>
            {a.detail} <code>{a.code}</code>
          </p>
        </details>
      ) : null}
      {children}
    </li>
  )
}

type Stage =
  | { kind: 'idle' }
  | { kind: 'ask' }
  | { kind: 'busy' }
  | { kind: 'phrase'; rotation: RecoveryRotation }
  | { kind: 'done'; rotation: RecoveryRotation }

/**
 * RecoveryPhrase: rotate your recovery phrase (spec/lifecycle.md "Key
 * compromise": "Rotate from settings"). The new phrase is shown once and
 * confirmed like at first run; a rotation that did not finish is finished
 * with the phrase it drew, and one whose phrase was shown but not
 * confirmed is said so.
 */
export function RecoveryPhrase({
  workspace,
  workspaceName,
  workspaceLink,
  asked = 0,
  pick = randomPositions,
  onRotated,
  onPhrase,
}: {
  workspace: string
  workspaceName: string
  workspaceLink?: string
  /** Bumped to open the rotation's confirmation (an alert's Rotate button). */
  asked?: number
  pick?: (n: number) => number[]
  onRotated?: () => void
  /** Told whether the new phrase (or its confirm step) is on screen. */
  onPhrase?: (on: boolean) => void
}) {
  const [state, setState] = useState<RecoveryState | null>(null)
  const [stage, setStage] = useState<Stage>({ kind: 'idle' })
  const [error, setError] = useState<ApiError | null>(null)
  const [copied, setCopied] = useState(false)
  const ref = useRef<HTMLElement>(null)
  const doneRef = useRef<HTMLParagraphElement>(null)
  useEffect(() => {
    if (stage.kind === 'done') doneRef.current?.scrollIntoView?.({ block: 'nearest' })
  }, [stage.kind])
  const phraseOn = stage.kind === 'phrase'
  useEffect(() => {
    onPhrase?.(phraseOn)
  }, [onPhrase, phraseOn])
  useEffect(() => {
    api.security.recoveryState(workspace).then(setState, (e) => setError(toApiError(e)))
  }, [workspace, stage.kind])
  useEffect(() => {
    if (asked > 0) {
      setStage((s) => (s.kind === 'idle' || s.kind === 'done' ? { kind: 'ask' } : s))
      ref.current?.scrollIntoView?.({ block: 'nearest' })
    }
  }, [asked])

  const rotate = async () => {
    setStage({ kind: 'busy' })
    setError(null)
    try {
      const rotation = await api.security.rotateRecovery(workspace)
      setStage({ kind: 'phrase', rotation })
      onRotated?.()
    } catch (e) {
      setError(toApiError(e))
      setStage({ kind: 'idle' })
    }
  }

  if (stage.kind === 'phrase') {
    return (
      <NewRotatedPhrase
        workspaceName={workspaceName}
        words={stage.rotation.phrase}
        pick={pick}
        onConfirmed={async () => {
          try {
            await api.security.confirmRotation(workspace)
          } catch (e) {
            setError(toApiError(e))
          }
          setStage({ kind: 'done', rotation: stage.rotation })
        }}
      />
    )
  }
  return (
    <section className="recovery-settings" aria-labelledby="recovery-h" ref={ref}>
      <h3 id="recovery-h">Recovery phrase</h3>
      <p>
        Your recovery phrase is 24 words that add a new device for you in {workspaceName} if you lose every other one: on the new computer, choose
        Recover with your recovery phrase when Weald opens, and give it the words and this workspace’s link. An admin approves the new device, or
        enough members of the workspace’s recovery quorum vouch for it (if you are the only admin and there is no quorum, it waits 72 hours instead),
        then your old devices stop working. If the phrase may have leaked, rotate it: the phrase you have now is revoked at once, Weald draws 24 new
        words, shows them once and asks three of them back, and every channel you are in gets a recovery copy for the new phrase.
      </p>
      {workspaceLink ? (
        <div className="workspace-link-row">
          <p className="help">
            The workspace link says where to recover; it holds no secret. Keep it with your phrase, and send it to anyone here who lost their devices.
          </p>
          <code className="workspace-link">{workspaceLink}</code>{' '}
          <button type="button" onClick={async () => setCopied(await api.copy(workspaceLink))}>
            Copy workspace link
          </button>{' '}
          <span role="status">{copied ? 'Copied' : ''}</span>
        </div>
      ) : null}
      {state?.unfinished && stage.kind !== 'busy' ? (
        <p className="error-note" role="alert">
          A rotation of your recovery phrase started and did not finish. Finish it: it goes on with the new words it drew.
        </p>
      ) : null}
      {state && state.unconfirmed > 0 && !state.unfinished && stage.kind === 'idle' ? (
        <p className="help">
          A new phrase was shown on {day(state.unconfirmed)} and not confirmed. It cannot be shown again: if you did not write it down, rotate again.
        </p>
      ) : null}
      {stage.kind === 'done' ? (
        <p role="status" ref={doneRef}>
          Your new recovery phrase is confirmed and the old one is revoked. {plural(stage.rotation.rewrapped, 'channel')}{' '}
          {stage.rotation.rewrapped === 1 ? 'has' : 'have'} a recovery copy for the new phrase.
          {stage.rotation.accessVersion === 0
            ? ' The relay stops accepting the old phrase once an admin’s device next publishes who may connect.'
            : ''}
        </p>
      ) : null}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      {stage.kind === 'busy' ? (
        <p role="status">Rotating: revoking the old phrase and sealing a recovery copy of each channel for the new one…</p>
      ) : stage.kind === 'ask' ? (
        <div className="rotate-confirm" role="group" aria-label="Rotate your recovery phrase">
          <p>
            <strong>Rotate your recovery phrase?</strong> The words you have now stop being your recovery phrase, and you will need paper to write the
            new ones down.
          </p>
          <div className="dialog-actions">
            <button type="button" onClick={() => setStage({ kind: 'idle' })}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={rotate} autoFocus>
              Rotate now
            </button>
          </div>
        </div>
      ) : (
        <div className="alert-actions">
          {state?.unfinished ? (
            <button type="button" className="primary" onClick={rotate}>
              Finish the rotation
            </button>
          ) : (
            <button type="button" onClick={() => setStage({ kind: 'ask' })}>
              Rotate recovery phrase…
            </button>
          )}
        </div>
      )}
    </section>
  )
}

/** NewRotatedPhrase shows the new words once, then asks three back, as at first run. */
function NewRotatedPhrase({
  workspaceName,
  words,
  pick,
  onConfirmed,
}: {
  workspaceName: string
  words: string[]
  pick: (n: number) => number[]
  onConfirmed: () => void
}) {
  return (
    <PhraseOnce title="Your new recovery phrase" words={words} pick={pick} onConfirmed={onConfirmed}>
      These 24 words are your new recovery phrase for <strong>{workspaceName}</strong>; the old phrase is revoked. Write them down on paper and keep
      them safe; Weald shows them <strong>once</strong>.
    </PhraseOnce>
  )
}
