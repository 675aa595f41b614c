import { useState } from 'react'
import { toApiError, type ApiError, type Project, type Workspace } from '../lib/api'
import { Dialog, ErrorNote } from './Dialog'

/** describeProject says in one line what a project's .weald file means. */
export function describeProject(p: Project, workspaces: Workspace[]): string {
  switch (p.state) {
    case 'none':
      return 'No .weald file yet'
    case 'local':
      return 'Local only: not bound to a workspace'
    case 'invalid':
      return 'The .weald file cannot be used'
    case 'bound': {
      const ws = workspaces.find((w) => w.id === p.workspace)
      if (ws) return `Bound to ${ws.name}`
      return p.member ? `Bound to workspace ${short(p.workspace)}` : `Bound to workspace ${short(p.workspace)}, which you are not in`
    }
  }
}

export const short = (hex: string) => (hex.length > 12 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex)

/** ProjectList is the sidebar's list of project folders. */
export function ProjectList({
  projects,
  selected,
  onSelect,
  onAdd,
}: {
  projects: Project[]
  selected?: string
  onSelect: (folder: string) => void
  onAdd: () => void
}) {
  return (
    <section className="side-section" aria-labelledby="projects-h">
      <div className="side-section-head">
        <h2 id="projects-h">Projects</h2>
        <button type="button" className="icon side-add" aria-label="Add a project folder" onClick={onAdd}>
          +
        </button>
      </div>
      {projects.length === 0 ? <p className="muted">Add a folder to bind it to a workspace.</p> : null}
      <ul className="side-list">
        {projects.map((p) => (
          <li key={p.folder}>
            <button
              type="button"
              className="side-item"
              aria-current={selected === p.folder ? 'page' : undefined}
              onClick={() => onSelect(p.folder)}
              title={p.folder}
              data-state={p.state}
            >
              <span className="side-item-name">{p.name}</span>
              {p.state === 'invalid' || (p.state === 'bound' && !p.member) ? (
                <span className="badge warn" aria-label={p.state === 'invalid' ? 'needs attention' : 'not your workspace'}>
                  !
                </span>
              ) : null}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** AddProjectDialog asks for a folder path and adds it. */
export function AddProjectDialog({ onAdd, onClose }: { onAdd: (folder: string) => Promise<unknown>; onClose: () => void }) {
  const [folder, setFolder] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  return (
    <Dialog title="Add a project folder" onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault()
          setBusy(true)
          setError(null)
          try {
            await onAdd(folder)
            onClose()
          } catch (err) {
            setError(toApiError(err))
            setBusy(false)
          }
        }}
      >
        <label htmlFor="project-folder">Folder</label>
        <input
          id="project-folder"
          data-autofocus
          value={folder}
          onChange={(e) => setFolder(e.target.value)}
          placeholder="/home/you/code/site"
          aria-describedby="project-folder-help"
        />
        <p id="project-folder-help" className="help">
          Weald watches the folder's <code>.weald</code> file and updates when it changes.
        </p>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || folder.trim() === ''}>
            {busy ? 'Adding…' : 'Add folder'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** ProjectView is the main pane for one project: what its .weald says and what you can do. */
export function ProjectView({
  project,
  workspaces,
  onBind,
  onForget,
  onJoin,
}: {
  project: Project
  workspaces: Workspace[]
  onBind: (folder: string, workspace: string, relay: string) => Promise<unknown>
  onForget: (folder: string) => Promise<unknown>
  onJoin: () => void
}) {
  const [target, setTarget] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await f()
    } catch (err) {
      setError(toApiError(err))
    } finally {
      setBusy(false)
    }
  }
  const chosen = workspaces.find((w) => w.id === (target || workspaces[0]?.id))
  const canBind = project.state === 'none' || project.state === 'local'
  return (
    <section className="project-view" aria-label={`Project ${project.name}`}>
      <h2>{project.name}</h2>
      <dl className="facts">
        <dt>Folder</dt>
        <dd>
          <code>{project.folder}</code>
        </dd>
        <dt>State</dt>
        <dd data-testid="project-state">{describeProject(project, workspaces)}</dd>
        {project.relay ? (
          <>
            <dt>Relay</dt>
            <dd>
              <code>{project.relay}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {project.problem ? <ErrorNote error={project.problem} /> : null}

      {project.state === 'bound' && !project.member ? (
        <div className="offer" role="region" aria-label="Join this project's workspace">
          <p>This folder belongs to a workspace you are not in. Ask one of its members for an invite link, then join with it.</p>
          <button type="button" className="primary" onClick={onJoin}>
            Join with an invite
          </button>
        </div>
      ) : null}

      {canBind ? (
        workspaces.length === 0 ? (
          <p className="muted">Create or join a workspace to bind this folder to it.</p>
        ) : (
          <form
            className="bind"
            onSubmit={(e) => {
              e.preventDefault()
              if (chosen) run(() => onBind(project.folder, chosen.id, chosen.relay))
            }}
          >
            <label htmlFor="bind-ws">Bind to workspace</label>
            <select id="bind-ws" value={chosen?.id ?? ''} onChange={(e) => setTarget(e.target.value)}>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
            <p className="help">
              Binding writes the workspace into <code>.weald</code> and switches it from local to the relay. It creates no channels: the workspace's
              channels are the project's.
            </p>
            <button type="submit" className="primary" disabled={busy || !chosen}>
              {busy ? 'Binding…' : 'Bind folder'}
            </button>
          </form>
        )
      ) : null}

      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" onClick={() => run(() => onForget(project.folder))} disabled={busy}>
          Forget this folder
        </button>
      </div>
    </section>
  )
}
