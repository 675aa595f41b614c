import { useEffect, useRef, useState } from 'react'
import { api, toApiError, type ApiError, type PhraseCheck, type Workspace } from '../lib/api'
import { plainRecoverMessage } from '../state/errors'
import { ErrorNote } from './Dialog'

const count = 24
const blank = () => Array.from({ length: count }, () => '')
const when = (ms: number) =>
  new Date(ms).toLocaleString(undefined, { weekday: 'long', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })

/** isLink: what was typed is a weald:// link (it names the workspace), not a relay address (which needs the id too). */
export const isLink = (s: string) => s.trim().toLowerCase().startsWith('weald://') && !s.trim().toLowerCase().startsWith('weald://relay')

/**
 * RecoverWithPhrase: the first-run way back for someone who lost every
 * device (spec/lifecycle.md "Key compromise"): the 24 words, one box each
 * and checked word by word as they are typed, and where the workspace is
 * (its link, an invite link of it, or the relay's address and the
 * workspace id). The device is then on probation: RecoveryPanel follows.
 */
export function RecoverWithPhrase({ onRecovered, onBack }: { onRecovered: (ws: Workspace) => void; onBack: () => void }) {
  const [words, setWords] = useState<string[]>(blank)
  const [touched, setTouched] = useState<boolean[]>(() => Array(count).fill(false))
  // The check of the words as they were when it was asked (key), so that an answer is never taken for later words.
  const [checked, setChecked] = useState<{ key: string; check: PhraseCheck } | null>(null)
  const [where, setWhere] = useState('')
  const [id, setId] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const boxes = useRef<(HTMLInputElement | null)[]>([])

  const typed = words.map((w) => w.trim().toLowerCase())
  const key = typed.join(' ')
  useEffect(() => {
    let live = true
    api.workspaces.checkPhrase(key.split(' ')).then(
      (c) => live && setChecked({ key, check: c }),
      () => {},
    )
    return () => {
      live = false
    }
  }, [key])

  const check = checked?.key === key ? checked.check : null
  const filled = typed.every((w) => w !== '')
  const address = where.trim() !== '' && !isLink(where)
  const unknown = typed
    .map((w, i) => ({ i, w, c: check?.words[i] })) // only the answer for these words, never an older one
    .filter(({ i, w, c }) => (touched[i] || filled) && w !== '' && c && !c.known)
  const touch = (from: number, n = 1) => setTouched((t) => t.map((x, j) => x || (j >= from && j < from + n)))

  // Typing a space moves on to the next box; pasting several words fills the boxes from this one on.
  const change = (i: number, value: string) => {
    if (!/\s/.test(value)) {
      setWords((ws) => ws.map((x, j) => (j === i ? value : x)))
      return
    }
    const parts = value
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, count - i)
    setWords((ws) => ws.map((x, j) => (j >= i && j < i + Math.max(parts.length, 1) ? (parts[j - i] ?? '') : x)))
    touch(i, Math.max(parts.length, 1))
    boxes.current[Math.min(i + Math.max(parts.length, 1), count - 1)]?.focus()
  }

  return (
    <form
      className="onboard recover"
      aria-labelledby="recover-h"
      onSubmit={async (e) => {
        e.preventDefault()
        setTouched(Array(count).fill(true))
        if (!check?.complete) return
        setBusy(true)
        setError(null)
        try {
          const ws = await api.workspaces.recover(where.trim(), address ? id.trim() : '', typed)
          setWords(blank()) // the phrase leaves memory once used
          onRecovered(ws)
        } catch (err) {
          setError(toApiError(err))
        } finally {
          setBusy(false)
        }
      }}
    >
      <h2 id="recover-h">Recover with your recovery phrase</h2>
      <p>
        Lost every device you used Weald on? The 24 words you wrote down add this computer as a new device of yours. An admin then approves it, or
        enough members of the workspace’s recovery quorum vouch for it (if you were the only admin and there is no quorum, it waits 72 hours instead),
        and your old devices stop working.
      </p>
      <fieldset className="phrase-entry" aria-describedby="phrase-help">
        <legend>Your 24 words, in order</legend>
        <p id="phrase-help" className="help">
          Type each word in its box (a space moves to the next one), or paste all 24 into the first box. Letter case does not matter.
        </p>
        <ol className="phrase-boxes">
          {words.map((w, i) => {
            const bad = unknown.some((u) => u.i === i)
            return (
              <li key={i}>
                <label htmlFor={`rw-${i}`} aria-hidden="true">
                  {i + 1}
                </label>
                <input
                  id={`rw-${i}`}
                  aria-label={`Word ${i + 1}`}
                  ref={(el) => {
                    boxes.current[i] = el
                  }}
                  autoFocus={i === 0}
                  autoComplete="off"
                  autoCapitalize="off"
                  spellCheck={false}
                  value={w}
                  aria-invalid={bad || undefined}
                  aria-describedby={bad ? `rw-bad-${i}` : undefined}
                  onChange={(e) => change(i, e.target.value)}
                  onBlur={() => {
                    if (w.trim()) touch(i)
                  }}
                />
              </li>
            )
          })}
        </ol>
        {unknown.length > 0 ? (
          <ul className="error-note word-problems" aria-label="Words to check">
            {unknown.map(({ i, w, c }) => (
              <li key={i} id={`rw-bad-${i}`}>
                Word {i + 1}, “{w}”, is not in the word list. {c?.suggest ? `Did you mean “${c.suggest}”?` : 'Check it against what you wrote down.'}
              </li>
            ))}
          </ul>
        ) : null}
        {filled && unknown.length === 0 && check ? (
          check.complete ? (
            <p className="help phrase-ok" role="status">
              All 24 words are valid.
            </p>
          ) : check.problem ? (
            <p className="error-note" role="alert">
              {plainRecoverMessage(check.problem)}
            </p>
          ) : null
        ) : null}
      </fieldset>
      <label htmlFor="recover-where">Workspace link or relay address</label>
      <textarea
        id="recover-where"
        rows={2}
        value={where}
        onChange={(e) => setWhere(e.target.value)}
        placeholder="weald://workspace?… or an invite link"
        aria-describedby="recover-where-help"
      />
      <p id="recover-where-help" className="help">
        Ask anyone in the workspace for its link: in Weald, Security, then Copy workspace link. An invite link you were sent for this workspace works
        too. If you only know the relay’s address, type it here and the workspace id below.
      </p>
      {address ? (
        <>
          <label htmlFor="recover-id">Workspace id</label>
          <input id="recover-id" value={id} onChange={(e) => setId(e.target.value)} placeholder="64 letters and digits" spellCheck={false} />
        </>
      ) : null}
      <ErrorNote error={error ? { code: error.code, message: plainRecoverMessage(error) } : null} />
      {busy ? <p role="status">Checking your phrase with the relay and adding this device…</p> : null}
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={busy || !check?.complete || !where.trim() || (address && !id.trim())}>
          {busy ? 'Recovering…' : 'Recover'}
        </button>
      </div>
    </form>
  )
}

/**
 * RecoveryPanel: where a recovery onto this device stands, until its
 * probation is over (app/recover.go RecoveryStage). Weald resumes the
 * recovery by itself; Check now does it at once. Once the device reads the
 * channels, the workspace can be opened while waiting.
 */
export function RecoveryPanel({ ws, onOpen }: { ws: Workspace; onOpen?: () => void }) {
  const r = ws.recovery!
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const dev = r.device.slice(0, 8)
  const approved = r.stage === 'finishing' || r.stage === 'done'
  const steps: { text: string; done: boolean }[] = [
    { text: 'Your recovery phrase added this device', done: true },
    { text: 'The relay lets this device connect', done: r.listed || approved },
    { text: r.stage === 'wait' ? 'The 72-hour wait is over' : 'An admin approved this device', done: approved },
    { text: 'Your old devices are revoked and this one is in your channels', done: r.stage === 'done' },
  ]
  let head: string
  let body: React.ReactNode
  switch (r.stage) {
    case 'listing':
      head = 'Waiting for an admin'
      body = (
        <>
          This device is on probation. The relay lets it connect once an admin’s Weald is open: that happens by itself. Tell an admin of {ws.name}{' '}
          that you recovered: their Security view asks them to approve device <code>{dev}</code>.
        </>
      )
      break
    case 'approval':
      head = 'Waiting for an admin to approve this device'
      body = (
        <>
          This device is connected and on probation: it reads and writes, but cannot add or remove anyone. An admin of {ws.name} approves it in their
          Security view, or, if the workspace has a recovery quorum, enough of its members vouch for it (the request names device <code>{dev}</code>);
          then your old devices are revoked.
        </>
      )
      break
    case 'wait':
      head = `Waiting until ${when(r.probationEnds)}`
      body = (
        <>
          You were the only admin of {ws.name}, so nobody else can approve this device: it waits 72 hours from the recovery. Any device you still have
          was alerted and can revoke this one meanwhile, which is what stops someone else who has your phrase. Weald finishes by itself after that
          time (keep it open, or open it again then).
        </>
      )
      break
    default:
      head = 'Approved: finishing'
      body = <>Revoking your old devices and joining your channels. This takes a moment.</>
  }
  return (
    <section className="setup recovery-status" aria-labelledby="recovery-status-h">
      <h2 id="recovery-status-h">{head}</h2>
      <p>{body}</p>
      <ol className="steps recovery-steps" aria-label="Recovery">
        {steps.map((s) => (
          <li key={s.text} data-done={s.done || undefined}>
            <span className="step-mark" role="img" aria-label={s.done ? 'Done:' : 'Not yet:'}>
              {s.done ? '✓' : '○'}
            </span>{' '}
            {s.text}
          </li>
        ))}
      </ol>
      {ws.problem ? (
        <p className="error-note" role="alert">
          {plainRecoverMessage(ws.problem)} <code>{ws.problem.code}</code> Weald keeps trying.
        </p>
      ) : null}
      <ErrorNote error={error ? { code: error.code, message: plainRecoverMessage(error) } : null} />
      <div className="alert-actions">
        {r.stage !== 'finishing' ? (
          <button
            type="button"
            disabled={busy}
            onClick={async () => {
              setBusy(true)
              setError(null)
              try {
                await api.workspaces.resumeRecovery(ws.id)
              } catch (e) {
                setError(toApiError(e))
              } finally {
                setBusy(false)
              }
            }}
          >
            {busy ? 'Checking…' : 'Check now'}
          </button>
        ) : null}
        {onOpen && ws.ready ? (
          <button type="button" className="primary" onClick={onOpen}>
            Open {ws.name} while you wait
          </button>
        ) : null}
      </div>
    </section>
  )
}
