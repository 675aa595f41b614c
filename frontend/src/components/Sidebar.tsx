import type { Status } from '../lib/api'

/** Sidebar: the workspace header, the channel list and what this install is. */
export function Sidebar({ status }: { status?: Status }) {
  const ws = status?.workspaces ?? []
  return (
    <nav className="sidebar" aria-label="Workspace">
      <header className="ws-header">
        <div className="ws-mark" aria-hidden="true">
          W
        </div>
        <div>
          <div className="ws-name">{ws.length > 0 ? ws[0].id : 'No workspace yet'}</div>
          <div className="ws-sub">{ws.length > 0 ? `${ws.length} on this device` : 'Create or join one to start'}</div>
        </div>
      </header>
      <section className="channel-list" aria-label="Channels">
        <h2>Channels</h2>
        {ws.length === 0 ? <p className="muted">Channels appear here once you are in a workspace.</p> : null}
      </section>
      <footer className="install" aria-label="This installation">
        <div>
          Weald <span data-testid="version">{status?.version ?? '…'}</span>
        </div>
        <div className="datadir" title={status?.dataDir} data-testid="data-dir">
          {status?.dataDir ?? ''}
        </div>
      </footer>
    </nav>
  )
}
