import { useState } from 'react'
import { api, toApiError, type ApiError, type Workspace } from '../lib/api'
import { plainMessage } from '../state/errors'

const stepNames: Record<string, string> = {
  'bootstrap:provision': 'Registering the workspace with the relay',
  'bootstrap:genesis_set': 'Registering the workspace with the relay',
  'bootstrap:roster_genesis': 'Writing the member list',
  'bootstrap:root': 'Creating the workspace group',
  'bootstrap:access_set': 'Giving this device access',
  'bootstrap:general': 'Creating #general',
  'bootstrap:activity': 'Creating #activity',
  redeem: 'Redeeming the invite',
}

/**
 * SetupPanel is shown while a workspace is not ready yet. The app finishes
 * the setup by itself (spec "A partial bootstrap is resumed"); the one step
 * it cannot do is the relay operator's provisioning, which it spells out.
 */
export function SetupPanel({ ws }: { ws: Workspace }) {
  const [copied, setCopied] = useState(false)
  const steps = [...new Set(ws.pending.map((p) => (p.startsWith('join:') ? 'Joining channels' : (stepNames[p] ?? p))))]
  return (
    <section className="setup" aria-label={`Setting up ${ws.name}`}>
      <h2>Setting up {ws.name}…</h2>
      <p>Weald finishes this by itself, also after a restart. #general appears here when it is ready.</p>
      {steps.length > 0 ? (
        <ul className="steps" aria-label="Still to do">
          {steps.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      ) : null}
      {ws.provision ? (
        <div className="offer" role="region" aria-label="The relay needs this workspace">
          <p>
            The relay at <code>{ws.relay}</code> does not know this workspace yet. Ask its operator to run this once; Weald continues as soon as it is
            done:
          </p>
          <pre data-testid="provision-command">{ws.provision.command}</pre>
          <button type="button" onClick={async () => setCopied(await api.copy(ws.provision!.command))}>
            Copy command
          </button>{' '}
          <span role="status">{copied ? 'Copied' : ''}</span>
        </div>
      ) : ws.problem ? (
        <p className="error-note" role="alert">
          {plainMessage(ws.problem)} <code>{ws.problem.code}</code> Weald keeps trying.
        </p>
      ) : null}
      <Abandon ws={ws} />
    </section>
  )
}

/** Abandon removes a workspace that is stuck in setup from this device, after asking once. */
function Abandon({ ws }: { ws: Workspace }) {
  const [asking, setAsking] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  if (!asking) {
    return (
      <p>
        <button type="button" onClick={() => setAsking(true)}>
          Remove from this device
        </button>
      </p>
    )
  }
  return (
    <div className="offer" role="region" aria-label="Remove this workspace">
      <p>
        Remove {ws.name || 'this workspace'} from this device? Its setup stops and what this device stored for it is deleted. If this device was
        creating it and the relay never accepted its first admin, the relay deletes it too; otherwise nothing changes on the relay, and an invite link
        already used stays used.
      </p>
      <button
        type="button"
        className="primary"
        onClick={async () => {
          try {
            await api.workspaces.remove(ws.id)
          } catch (e) {
            setError(toApiError(e))
          }
        }}
      >
        Remove
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
      {error ? (
        <p className="error-note" role="alert">
          {plainMessage(error)} <code>{error.code}</code>
        </p>
      ) : null}
    </div>
  )
}
