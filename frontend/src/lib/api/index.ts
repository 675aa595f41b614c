// The only module that talks to Go. Everything else imports from here, so that
// tests can replace the backend with vi.mock('../lib/api') and the e2e build
// can serve the same calls over HTTP (app/shim).
import * as App from '../../../wailsjs/go/app/App'
import * as Projects from '../../../wailsjs/go/app/Projects'
import { app } from '../../../wailsjs/go/models'
import { ClipboardSetText, EventsOn } from '../../../wailsjs/runtime/runtime'
import type { Channel, CreatedWorkspace, Invite, InviteScope, Message, Progress, Workspace } from './types'

export type * from './types'
export type Status = app.Status
export type WorkspaceSummary = app.WorkspaceSummary

/** A project folder as Go reports it (app.Project). */
export interface Project {
  folder: string
  state: 'none' | 'local' | 'bound' | 'invalid'
  name: string
  workspace: string
  relay: string
  member: boolean
  problem: { code: string; message: string } | null
}

/** An error from a bound method: a stable code and one plain sentence. */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** toApiError turns what a rejected Go call gives ("code: sentence") into an ApiError. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  const text = typeof e === 'string' ? e : e instanceof Error ? e.message : String(e)
  const m = /^([a-z_]+\/[a-z_.]+): (.*)$/s.exec(text)
  if (m) return new ApiError(m[1], m[2])
  return new ApiError('app/unexpected', text)
}

async function wrap<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p()
  } catch (e) {
    throw toApiError(e)
  }
}

/**
 * notBuilt is what a call of the workspace contract returns until the
 * engine's app service is bound: the truth, as an error the UI shows.
 */
function notBuilt<T>(): Promise<T> {
  return Promise.reject(
    new ApiError('app/not_built', 'This build of Weald does not include the workspace engine yet, so this cannot be done here.'),
  )
}

/** Event names pushed from Go (app/emitter.go). */
export const events = {
  projectChanged: 'project:changed',
  workspacesChanged: 'workspaces:changed',
  channelsChanged: 'channels:changed',
  message: 'message',
  progress: 'progress',
} as const

function on<T>(name: string, cb: (v: T) => void): () => void {
  return EventsOn(name, (v: T) => cb(v))
}

export const api = {
  status: (): Promise<Status> => wrap(() => App.Status()),

  projects: {
    list: (): Promise<Project[]> => wrap(() => Projects.List() as Promise<Project[]>),
    add: (folder: string): Promise<Project> => wrap(() => Projects.Add(folder) as Promise<Project>),
    forget: (folder: string): Promise<void> => wrap(() => Projects.Forget(folder)),
    bind: (folder: string, workspace: string, relay: string): Promise<Project> =>
      wrap(() => Projects.Bind(folder, workspace, relay) as Promise<Project>),
    onChanged: (cb: (p: Project) => void) => on<Project>(events.projectChanged, cb),
  },

  // The workspace contract (docs/protocol/desktop-ui.md): wired to the
  // engine's bound service when it lands.
  workspaces: {
    list: (): Promise<Workspace[]> => notBuilt(),
    create: (_name: string, _you: string, _relay: string): Promise<CreatedWorkspace> => notBuilt(),
    join: (_link: string): Promise<Workspace> => notBuilt(),
    onChanged: (cb: (ws: Workspace[]) => void) => on<Workspace[]>(events.workspacesChanged, cb),
  },
  channels: {
    list: (_ws: string): Promise<Channel[]> => notBuilt(),
    create: (_ws: string, _name: string, _admission: 'parent' | 'explicit'): Promise<Channel> => notBuilt(),
    rename: (_ws: string, _channel: string, _name: string): Promise<Channel> => notBuilt(),
    setMuted: (_ws: string, _channel: string, _muted: boolean): Promise<Channel> => notBuilt(),
    move: (_ws: string, _channel: string, _toIndex: number): Promise<Channel[]> => notBuilt(),
    archive: (_ws: string, _channel: string): Promise<void> => notBuilt(),
    onChanged: (cb: (e: { workspace: string; channels: Channel[] }) => void) => on(events.channelsChanged, cb),
  },
  messages: {
    list: (_ws: string, _channel: string): Promise<Message[]> => notBuilt(),
    send: (_ws: string, _channel: string, _text: string): Promise<Message> => notBuilt(),
    markRead: (_ws: string, _channel: string): Promise<void> => notBuilt(),
    onMessage: (cb: (e: { workspace: string; message: Message }) => void) => on(events.message, cb),
  },
  invites: {
    scopes: (_ws: string): Promise<InviteScope[]> => notBuilt(),
    create: (_ws: string, _scopes: string[], _expiresInHours: number): Promise<Invite> => notBuilt(),
  },
  onProgress: (cb: (p: Progress) => void) => on<Progress>(events.progress, cb),
  /** copy puts text on the clipboard; false when the system refused. */
  copy: (text: string): Promise<boolean> => ClipboardSetText(text).catch(() => false),
}

export type Api = typeof api
