import { useEffect, useId, useState } from 'react'
import { api, toApiError, type ApiError, type Workspace } from '../lib/api'
import { plainJoinMessage, plainMessage, plainPairMessage } from '../state/errors'
import { usePhraseOnScreen } from '../state/phrase'
import { ErrorNote } from './Dialog'
import { RecoverWithPhrase } from './Recover'

export type Step = 'choose' | 'create' | 'join' | 'device' | 'recover'

/**
 * FirstRun: the ways in (gaps.md "Onboarding and projects"): create a
 * workspace (its name, your name; the recovery phrase shown once and
 * confirmed), join with an invite link, join as an existing user with a
 * pairing link, or recover with the recovery phrase onto this device.
 */
export function FirstRun({
  onReady,
  initial = 'choose',
  pick = randomPositions,
  canCancel,
  onCancel,
  onStep,
  link,
  linkKey,
}: {
  onReady: (ws: Workspace) => void
  initial?: Step
  /** A link the app was opened with: an invite shown on the join step, a pairing link on the device step. */
  link?: string
  /** Changes with each link handed over, so the same link opened again shows its step again. */
  linkKey?: number
  /** Told of every step taken, so the shell keeps this flow on screen until it ends. */
  onStep?: (step: Step) => void
  /** Chooses which words of the phrase the confirm step asks for (injected in tests). */
  pick?: (n: number) => number[]
  canCancel?: boolean
  onCancel?: () => void
}) {
  const [step, setStepState] = useState<Step>(link ? linkStep(link) : initial)
  const setStep = (s: Step) => {
    setStepState(s)
    onStep?.(s)
  }
  useEffect(() => {
    if (link) setStepState(linkStep(link))
  }, [link, linkKey])
  return (
    <div className="first-run">
      {step === 'choose' ? (
        <div className="empty">
          <h2>Start with a workspace</h2>
          <p>A workspace is one project: its people, devices, agents, channels and documents, end-to-end encrypted.</p>
          <div className="empty-actions">
            <button type="button" className="primary" onClick={() => setStep('create')}>
              Create a workspace
            </button>
            <button type="button" onClick={() => setStep('join')}>
              Join with an invite
            </button>
            <button type="button" onClick={() => setStep('device')}>
              Join as an existing user
            </button>
            <button type="button" onClick={() => setStep('recover')}>
              Recover with your recovery phrase
            </button>
          </div>
          {canCancel ? (
            <button type="button" className="link" onClick={onCancel}>
              Back to your workspace
            </button>
          ) : null}
        </div>
      ) : step === 'create' ? (
        <CreateWorkspace onReady={onReady} onBack={() => setStep('choose')} pick={pick} />
      ) : step === 'recover' ? (
        <RecoverWithPhrase onRecovered={onReady} onBack={() => setStep('choose')} />
      ) : step === 'device' ? (
        <JoinAsDevice onReady={onReady} onBack={() => setStep('choose')} given={link && linkStep(link) === 'device' ? link : undefined} />
      ) : (
        <JoinWithInvite onReady={onReady} onBack={() => setStep('choose')} pick={pick} given={link && linkStep(link) === 'join' ? link : undefined} />
      )}
    </div>
  )
}

/** linkStep is the step a weald:// link opens: pairing links the device step, any other the join step (which says what is wrong with it). */
export function linkStep(link: string): Step {
  return link.slice(0, 'weald://pair'.length).toLowerCase() === 'weald://pair' ? 'device' : 'join'
}

/** randomPositions picks 3 distinct word positions (0-based) of n, in order. */
export function randomPositions(n: number): number[] {
  const a = new Set<number>()
  const buf = new Uint32Array(1)
  while (a.size < Math.min(3, n)) {
    crypto.getRandomValues(buf)
    a.add(buf[0] % n)
  }
  return [...a].sort((x, y) => x - y)
}

function CreateWorkspace({ onReady, onBack, pick }: { onReady: (ws: Workspace) => void; onBack: () => void; pick: (n: number) => number[] }) {
  const [name, setName] = useState('')
  const [you, setYou] = useState('')
  const [relay, setRelay] = useState('')
  const [hosted, setHosted] = useState(false)
  const [lan, setLan] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const [created, setCreated] = useState<{ ws: Workspace; phrase: string[] } | null>(null)

  if (created) {
    const done = (ws: Workspace) => {
      setCreated(null) // the phrase leaves memory once confirmed
      onReady(ws)
    }
    return <NewPhrase ws={created.ws} phrase={created.phrase} pick={pick} onDone={done} />
  }
  return (
    <form
      className="onboard"
      aria-labelledby="create-h"
      onSubmit={async (e) => {
        e.preventDefault()
        setBusy(true)
        setError(null)
        try {
          const r = hosted
            ? await api.workspaces.createHosted(name.trim(), you.trim(), lan)
            : await api.workspaces.create(name.trim(), you.trim(), relay.trim())
          // No phrase comes back when the words were already handed out (a retried create): nothing to show.
          if (r.recoveryPhrase.length === 0) onReady(r.workspace)
          else setCreated({ ws: r.workspace, phrase: r.recoveryPhrase })
        } catch (err) {
          setError(toApiError(err))
        } finally {
          setBusy(false)
        }
      }}
    >
      <h2 id="create-h">Create a workspace</h2>
      <label htmlFor="ws-name">Workspace name</label>
      <input id="ws-name" autoFocus value={name} onChange={(e) => setName(e.target.value)} placeholder="Acme site" />
      <label htmlFor="your-name">Your name</label>
      <input id="your-name" value={you} onChange={(e) => setYou(e.target.value)} placeholder="Ada" />
      <fieldset className="relay-choice">
        <legend>Relay</legend>
        <label>
          <input type="radio" name="relay-kind" checked={!hosted} onChange={() => setHosted(false)} /> A relay at an address
        </label>
        <label>
          <input type="radio" name="relay-kind" checked={hosted} onChange={() => setHosted(true)} /> Host on this computer
        </label>
      </fieldset>
      {hosted ? (
        <>
          <label className="check">
            <input type="checkbox" checked={lan} onChange={(e) => setLan(e.target.checked)} /> Let computers on my network join
          </label>
          <p id="ws-host-help" className="help">
            Weald runs the relay inside this app and starts it again each time the app opens. Others reach the workspace only while Weald is open
            here;{' '}
            {lan
              ? 'invite links carry this computer’s network address, so teammates on the same network can join.'
              : 'only this computer can reach it.'}
          </p>
        </>
      ) : (
        <>
          <label htmlFor="ws-relay">Relay address</label>
          <input
            id="ws-relay"
            value={relay}
            onChange={(e) => setRelay(e.target.value)}
            placeholder="wss://relay.example.org or weald://relay?…"
            aria-describedby="ws-relay-help"
          />
          <p id="ws-relay-help" className="help">
            Its address, or the relay link its operator gave you. The relay stores and forwards only encrypted data it cannot read.
          </p>
        </>
      )}
      <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={busy || !name.trim() || !you.trim() || (!hosted && !relay.trim())}>
          {busy ? 'Creating…' : 'Create workspace'}
        </button>
      </div>
    </form>
  )
}

/**
 * NewPhrase shows a new recovery phrase once, then asks three of its words
 * back; used after creating a workspace and after joining one.
 */
function NewPhrase({
  ws,
  phrase,
  pick,
  onDone,
}: {
  ws: Workspace
  phrase: string[]
  pick: (n: number) => number[]
  onDone: (ws: Workspace) => void
}) {
  return (
    <PhraseOnce title="Your recovery phrase" words={phrase} pick={pick} onConfirmed={() => onDone(ws)}>
      These 24 words are your recovery phrase for <strong>{ws.name}</strong>. If you lose every device, they bring you back on a new one: there,
      choose Recover with your recovery phrase. Write them down on paper and keep them safe; Weald shows them <strong>once</strong>.
      {ws.link ? (
        <>
          {' '}
          Keep this workspace’s link with them, it says where to recover (anyone in the workspace can also send it to you):{' '}
          <code className="workspace-link">{ws.link}</code>
        </>
      ) : null}
    </PhraseOnce>
  )
}

/**
 * PhraseOnce shows words of a new recovery phrase once under title and
 * children (what they are), then asks three of them back (ConfirmPhrase);
 * the rest of Weald waits meanwhile (usePhraseOnScreen). Also the Security
 * view's rotation.
 */
export function PhraseOnce({
  title,
  words,
  pick,
  onConfirmed,
  children,
}: {
  title: string
  words: string[]
  pick: (n: number) => number[]
  onConfirmed: () => void
  children: React.ReactNode
}) {
  const [confirming, setConfirming] = useState(false)
  usePhraseOnScreen()
  const [positions] = useState(() => pick(words.length))
  const id = useId()
  if (!confirming) {
    return (
      <section className="onboard" aria-labelledby={id}>
        <h2 id={id}>{title}</h2>
        <p>{children}</p>
        <ol className="phrase" aria-label="Recovery phrase">
          {words.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ol>
        <div className="dialog-actions">
          <button type="button" className="primary" onClick={() => setConfirming(true)} autoFocus>
            I have written them down
          </button>
        </div>
      </section>
    )
  }
  return <ConfirmPhrase phrase={words} positions={positions} onBack={() => setConfirming(false)} onConfirmed={onConfirmed} />
}

/** ConfirmPhrase asks back the words at positions of a phrase just shown (also the Security view's rotation). */
export function ConfirmPhrase({
  phrase,
  positions,
  onBack,
  onConfirmed,
}: {
  phrase: string[]
  positions: number[]
  onBack: () => void
  onConfirmed: () => void
}) {
  const [asked] = useState(positions)
  const [typed, setTyped] = useState<string[]>(asked.map(() => ''))
  const [wrong, setWrong] = useState(false)
  return (
    <form
      className="onboard"
      aria-labelledby="confirm-h"
      onSubmit={(e) => {
        e.preventDefault()
        const ok = asked.every((p, i) => typed[i].trim().toLowerCase() === phrase[p].toLowerCase())
        setWrong(!ok)
        if (ok) onConfirmed()
      }}
    >
      <h2 id="confirm-h">Confirm your recovery phrase</h2>
      <p>Type these words from the phrase you wrote down.</p>
      {asked.map((p, i) => (
        <div key={p}>
          <label htmlFor={`word-${p}`}>Word {p + 1}</label>
          <input
            id={`word-${p}`}
            autoFocus={i === 0}
            autoComplete="off"
            spellCheck={false}
            value={typed[i]}
            onChange={(e) => setTyped((t) => t.map((x, j) => (j === i ? e.target.value : x)))}
          />
        </div>
      ))}
      {wrong ? (
        <p className="error-note" role="alert">
          Those words do not match the phrase. Check what you wrote down, or go back to see the phrase again.
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Show the phrase again
        </button>
        <button type="submit" className="primary" disabled={typed.some((t) => t.trim() === '')}>
          Confirm
        </button>
      </div>
    </form>
  )
}

function JoinWithInvite({
  onReady,
  onBack,
  pick,
  given,
}: {
  onReady: (ws: Workspace) => void
  onBack: () => void
  pick: (n: number) => number[]
  given?: string
}) {
  const [link, setLink] = useState(given ?? '')
  const [you, setYou] = useState('')
  useEffect(() => {
    if (given) setLink(given)
  }, [given])
  const [joined, setJoined] = useState<{ ws: Workspace; phrase: string[] } | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  if (joined) {
    const done = (ws: Workspace) => {
      setJoined(null) // the phrase leaves memory once confirmed
      onReady(ws)
    }
    return <NewPhrase ws={joined.ws} phrase={joined.phrase} pick={pick} onDone={done} />
  }
  return (
    <form
      className="onboard"
      aria-labelledby="join-h"
      onSubmit={async (e) => {
        e.preventDefault()
        setBusy(true)
        setError(null)
        try {
          const r = await api.workspaces.join(link.trim(), you.trim())
          // A joiner gets a recovery principal of its own: its phrase is shown once too.
          if (r.recoveryPhrase.length === 0) onReady(r.workspace)
          else setJoined({ ws: r.workspace, phrase: r.recoveryPhrase })
          setBusy(false)
        } catch (err) {
          setError(toApiError(err))
          setBusy(false)
        }
      }}
    >
      <h2 id="join-h">Join with an invite</h2>
      <label htmlFor="invite-input">Invite link</label>
      <textarea
        id="invite-input"
        autoFocus
        rows={3}
        value={link}
        onChange={(e) => setLink(e.target.value)}
        placeholder="Paste the link you were sent"
      />
      <label htmlFor="join-name">Your name</label>
      <input id="join-name" value={you} onChange={(e) => setYou(e.target.value)} placeholder="Sam" />
      <ErrorNote error={error ? { code: error.code, message: plainJoinMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={busy || !link.trim() || !you.trim()}>
          {busy ? 'Joining…' : 'Join'}
        </button>
      </div>
    </form>
  )
}

/**
 * JoinAsDevice joins a workspace as an existing user with a pairing link
 * made by "Add a device" on one of that person's devices.
 */
function JoinAsDevice({ onReady, onBack, given }: { onReady: (ws: Workspace) => void; onBack: () => void; given?: string }) {
  const [link, setLink] = useState(given ?? '')
  useEffect(() => {
    if (given) setLink(given)
  }, [given])
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  return (
    <form
      className="onboard"
      aria-labelledby="device-h"
      onSubmit={async (e) => {
        e.preventDefault()
        setBusy(true)
        setError(null)
        try {
          const r = await api.workspaces.joinDevice(link.trim())
          setBusy(false)
          onReady(r.workspace)
        } catch (err) {
          setError(toApiError(err))
          setBusy(false)
        }
      }}
    >
      <h2 id="device-h">Join as an existing user</h2>
      <p>On a device where you already use the workspace, choose Add a device and make a pairing link; paste it here.</p>
      <label htmlFor="pair-input">Pairing link</label>
      <textarea id="pair-input" autoFocus rows={3} value={link} onChange={(e) => setLink(e.target.value)} placeholder="weald://pair?…" />
      <ErrorNote error={error ? { code: error.code, message: plainPairMessage(error) } : null} />
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={busy || !link.trim()}>
          {busy ? 'Joining…' : 'Join'}
        </button>
      </div>
    </form>
  )
}
