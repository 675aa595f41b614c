import type { Workspace } from '../lib/api'
import { plainMessage } from '../state/errors'

/**
 * ConnectionStatus: a small line under the header while a ready workspace is
 * not connected to its relay, or its background sync keeps failing. It goes
 * away by itself once the connection (or the sync) works again. A person an
 * admin removed is told so, for good.
 */
export function ConnectionStatus({ ws }: { ws: Workspace }) {
  if (ws.removed) {
    return (
      <p className="connection-status" role="alert" data-state="removed">
        <span className="dot" aria-hidden="true" /> You were removed from {ws.name} by an admin. This device can no longer read or send new messages
        here; what it already shows stays on it.
      </p>
    )
  }
  if (!ws.connected) {
    return (
      <p className="connection-status" role="status" data-state="offline">
        <span className="dot" aria-hidden="true" /> Not connected to the relay; reconnecting… Messages you send, edit or delete wait on this device
        and go out by themselves once connected.
      </p>
    )
  }
  if (ws.problem) {
    return (
      <p className="connection-status" role="status" data-state="problem">
        <span className="dot" aria-hidden="true" /> Not in sync: {plainMessage(ws.problem)} <code>{ws.problem.code}</code> Weald keeps trying.
      </p>
    )
  }
  return null
}
