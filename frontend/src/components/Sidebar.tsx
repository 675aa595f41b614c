import { useState, type ReactNode } from 'react'
import type { Status, Workspace } from '../lib/api'
import { Dialog } from './Dialog'

/** WorkspaceSwitcher: the workspaces on this device (several at once) and a way to add one. */
export function WorkspaceSwitcher({
  workspaces,
  current,
  unread,
  onSelect,
  onAdd,
  onRename,
}: {
  workspaces: Workspace[]
  current: string | null
  unread: Record<string, number>
  onSelect: (id: string) => void
  onAdd: () => void
  /** Change your display name in the current workspace. */
  onRename?: () => void
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
            {onRename && cur ? (
              <button
                type="button"
                className="ws-sub ws-you"
                onClick={onRename}
                aria-label={`Your name: ${cur.you}. Change it`}
                title="Change your name"
              >
                {cur.you}
              </button>
            ) : (
              <div className="ws-sub">{cur?.you ?? ''}</div>
            )}
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

/**
 * Sidebar: the workspace switcher, the channel list, the projects and what
 * this install is (its About view). In a narrow window (800 px and less) it
 * collapses: hidden and out of the Tab order until shown over the page.
 */
export function Sidebar({
  status,
  header,
  children,
  collapsed = false,
  shown = false,
  onHide,
  locked,
}: {
  status?: Status
  header: ReactNode
  children: ReactNode
  /** The window is narrow: the sidebar is hidden unless shown. */
  collapsed?: boolean
  shown?: boolean
  onHide?: () => void
  /** Why nothing in the sidebar can be used just now (the recovery phrase is on screen). */
  locked?: string
}) {
  const [about, setAbout] = useState(false)
  const hidden = collapsed && !shown
  return (
    <>
      {collapsed && shown ? <div className="side-backdrop" onMouseDown={onHide} aria-hidden="true" /> : null}
      <nav
        className="sidebar"
        aria-label="Workspace"
        data-collapsed={collapsed || undefined}
        data-shown={(collapsed && shown) || undefined}
        inert={hidden || undefined}
        aria-hidden={hidden || undefined}
        onKeyDown={(e) => collapsed && e.key === 'Escape' && onHide?.()}
      >
        {locked ? (
          <p className="side-locked" role="note">
            {locked}
          </p>
        ) : null}
        <div className="side-body" inert={!!locked || undefined}>
          {header}
          <div className="side-scroll">{children}</div>
        </div>
        <footer className="install" aria-label="This installation">
          <span>
            Weald <span data-testid="version">{status ? releaseOf(status.version) : '…'}</span>
          </span>
          <button type="button" className="link-button" onClick={() => setAbout(true)}>
            About
          </button>
        </footer>
      </nav>
      {about ? <About status={status} onClose={() => setAbout(false)} /> : null}
    </>
  )
}

/**
 * releaseOf: the footer's short version, "v0.4.1" or "v0.0.0-387": git
 * describe's "-g<hash>" suffix is left to the About view, which shows the
 * whole version and the commit.
 */
export function releaseOf(version: string): string {
  return version.replace(/-g[0-9a-f]{7,40}/, '')
}

/** About: this installation's version and where it keeps its data. */
export function About({ status, onClose }: { status?: Status; onClose: () => void }) {
  return (
    <Dialog title="About Weald" onClose={onClose}>
      <dl className="facts">
        <dt>Version</dt>
        <dd data-testid="about-version">{status?.version ?? '…'}</dd>
        <dt>Commit</dt>
        <dd>
          <code data-testid="about-commit">{status?.commit ?? ''}</code>
        </dd>
        <dt>Data directory</dt>
        <dd>
          <code className="datadir" data-testid="data-dir">
            {status?.dataDir ?? ''}
          </code>
        </dd>
      </dl>
      <p className="help">This device keeps its workspaces and settings in the data directory.</p>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  )
}
