import type { ReactNode } from 'react'
import type { Status, Workspace } from '../lib/api'
import { short } from './Projects'

/** WorkspaceSwitcher: the workspaces on this device (several at once) and a way to add one. */
export function WorkspaceSwitcher({
  workspaces,
  current,
  unread,
  onSelect,
  onAdd,
}: {
  workspaces: Workspace[]
  current: string | null
  unread: Record<string, number>
  onSelect: (id: string) => void
  onAdd: () => void
}) {
  const cur = workspaces.find((w) => w.id === current)
  return (
    <header className="ws-header">
      <div className="ws-mark" aria-hidden="true">
        {(cur?.name ?? 'W').slice(0, 1).toUpperCase()}
      </div>
      <div className="ws-switch">
        {workspaces.length > 0 ? (
          <>
            <label htmlFor="ws-select" className="visually-hidden">
              Switch workspace
            </label>
            <select id="ws-select" value={current ?? ''} onChange={(e) => onSelect(e.target.value)}>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                  {w.id !== current && unread[w.id] ? ` (${unread[w.id]} unread)` : ''}
                </option>
              ))}
            </select>
            <div className="ws-sub" title={cur?.id}>
              {cur ? `${cur.you} · ${short(cur.id)}` : ''}
            </div>
          </>
        ) : (
          <>
            <div className="ws-name">No workspace yet</div>
            <div className="ws-sub">Create or join one to start</div>
          </>
        )}
      </div>
      {workspaces.length > 0 ? (
        <button type="button" className="icon side-add" aria-label="Create or join another workspace" onClick={onAdd}>
          +
        </button>
      ) : null}
    </header>
  )
}

/** Sidebar: the workspace switcher, the channel list, the projects and what this install is. */
export function Sidebar({ status, header, children }: { status?: Status; header: ReactNode; children: ReactNode }) {
  return (
    <nav className="sidebar" aria-label="Workspace">
      {header}
      <div className="side-scroll">{children}</div>
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
