import { useEffect, useState } from 'react'
import { api, toApiError, type Agent, type AgentRequest, type AgentScope, type ApiError } from '../lib/api'
import { plainMessage } from '../state/errors'
import { lockState } from '../state/lock'
import { Dialog, ErrorNote } from './Dialog'

function when(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

/** scopeLock is a scope channel's lock state in the channel header's words. */
export function scopeLock(s: AgentScope): string {
  const l = lockState({ admission: s.admission as 'parent' | 'explicit', history: s.history as 'open' | 'closed', default: false, hash: '' })
  return `${l.who} · ${l.sees}`
}

/** approvalSentence says what approving does to the agent's membership. */
export function approvalSentence(r: AgentRequest): string {
  if (r.blocked) return r.blocked
  if (r.renewal) return 'Already approved for exactly these channels: approving extends it and changes no membership.'
  const parts: string[] = []
  if (r.added.length > 0) parts.push(`adds it to ${r.added.map((n) => '#' + n).join(', ')} once it has connected`)
  if (r.dropped.length > 0) parts.push(`removes it from ${r.dropped.map((n) => '#' + n).join(', ')}`)
  return `Approving ${parts.join(' and ')}.`
}

/** renewedSentence is the status after a renewal that needed no approval. */
export function renewedSentence(a: Agent): string {
  return `Renewed ${a.name} until ${when(a.expiry)}: the same channels, no membership changed.`
}

/** agentLine is an agents-list row after the name: who it belongs to (and the agent it is a sub-agent of), channels, expiry. */
export function agentLine(a: Agent): string {
  const parent = a.parent ? ` · sub-agent of ${a.parentName}, within its channels` : ''
  const until = a.state === 'live' ? `until ${when(a.expiry)}` : a.state
  return ` · agent of ${a.ownerName}${parent} · ${a.scope.map((s) => '#' + s.name).join(', ')} · ${until}`
}

/**
 * AgentsDialog: the workspace's agents (owner, the agent a sub-agent's
 * certificate descends from, channels, expiry, Revoke for the ones this
 * device issued) and the approval sheet. A pasted request (weald agent init
 * prints it) that renews an agent this device approved for exactly the
 * channels it has is renewed at once, with no sheet: it changes no
 * membership. Anything else shows the sheet: the agent's name, key
 * fingerprint, the channels it asks for with their lock states, what
 * approving adds or removes, and the expiry; Approve is the one approval
 * (the adds follow), Decline forgets the request; a request this device
 * cannot approve (a sub-agent, another device's agent) says why and offers
 * no Approve (spec/channels.md "Group policy"; docs/protocol/agents.md).
 */
export function AgentsDialog({ workspace, onClose }: { workspace: string; onClose: () => void }) {
  const [agents, setAgents] = useState<Agent[] | null>(null)
  const [text, setText] = useState('')
  const [sheet, setSheet] = useState<AgentRequest | null>(null)
  const [busy, setBusy] = useState(false)
  const [done, setDone] = useState<string | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const reload = () => api.agents.list(workspace).then(setAgents, (e) => setError(toApiError(e)))
  useEffect(() => {
    reload()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workspace])
  const act = async (f: () => Promise<void>) => {
    setBusy(true)
    setError(null)
    try {
      await f()
    } catch (e) {
      setError(toApiError(e))
    }
    setBusy(false)
  }
  if (sheet) {
    return (
      <Dialog title="Approve an agent" onClose={onClose}>
        <dl className="agent-sheet" aria-label="Agent request">
          <dt>Agent</dt>
          <dd>{sheet.name}</dd>
          {sheet.parent ? (
            <>
              <dt>Sub-agent of</dt>
              <dd>{sheet.parentName} (its certificate descends from that agent's and only narrows it)</dd>
            </>
          ) : null}
          <dt>Key fingerprint</dt>
          <dd>
            <code>{sheet.fingerprint}</code> <span className="muted">(compare it with what the agent printed)</span>
          </dd>
          <dt>Channels</dt>
          <dd>
            <ul aria-label="Channels in scope">
              {sheet.scope.map((s) => (
                <li key={s.channel}>
                  #{s.name} <span className="muted">· {scopeLock(s)}</span>
                </li>
              ))}
            </ul>
          </dd>
          <dt>Expires</dt>
          <dd>{when(sheet.expiry)}</dd>
        </dl>
        <p className="help">
          {approvalSentence(sheet)}
          {sheet.blocked ? '' : ' It reads and posts in these channels only, until it expires or you revoke it.'}
        </p>
        <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
        <div className="dialog-actions">
          <button type="button" onClick={() => (setSheet(null), setText(''))} disabled={busy}>
            Decline
          </button>
          <button
            type="button"
            className="primary"
            disabled={busy || !!sheet.blocked}
            onClick={() =>
              act(async () => {
                const a = await api.agents.approve(workspace, text)
                setDone(`Approved ${a.name}.`)
                setSheet(null)
                setText('')
                await reload()
              })
            }
          >
            {busy ? 'Approving…' : 'Approve'}
          </button>
        </div>
      </Dialog>
    )
  }
  return (
    <Dialog title="Agents" onClose={onClose}>
      {agents === null && !error ? <p className="muted">Loading agents…</p> : null}
      {agents?.length === 0 ? <p className="muted">No agents in this workspace.</p> : null}
      {agents && agents.length > 0 ? (
        <ul className="member-list" aria-label="Agents">
          {agents.map((a) => (
            <li key={a.id} data-state={a.state}>
              <span className="member-name">{a.name}</span>
              <span className="muted">{agentLine(a)}</span>
              {a.yours && a.state === 'live' ? (
                <button
                  type="button"
                  className="link-button"
                  disabled={busy}
                  onClick={() =>
                    act(async () => {
                      const r = await api.agents.revoke(workspace, a.id)
                      setDone(`Revoked ${r.name}.`)
                      await reload()
                    })
                  }
                >
                  Revoke
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {done ? <p role="status">{done}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault()
          act(async () => {
            setDone(null)
            const r = await api.agents.submit(workspace, text)
            if (r.renewed) {
              // Same channels: renewed without asking (nothing to approve).
              setDone(renewedSentence(r.renewed))
              setText('')
              await reload()
            } else if (r.request) {
              setSheet(r.request)
            }
          })
        }}
      >
        <label className="field">
          <span>An agent's request</span>
          <textarea value={text} rows={3} placeholder="weald-agent-request:…" onChange={(e) => setText(e.target.value)} />
        </label>
        <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="primary" disabled={busy || text.trim() === ''}>
            Review request
          </button>
        </div>
      </form>
    </Dialog>
  )
}
