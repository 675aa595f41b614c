// The only module that talks to Go. Everything else imports from here, so that
// the unit tests can replace the backend (src/test/setup.ts mocks it) and the e2e build
// can serve the same calls over HTTP (app/shim).
import * as App from '../../../wailsjs/go/app/App'
import * as Projects from '../../../wailsjs/go/app/Projects'
import * as Workspaces from '../../../wailsjs/go/app/Workspaces'
import { app } from '../../../wailsjs/go/models'
import { ClipboardSetText, EventsOn, WindowSetTitle } from '../../../wailsjs/runtime/runtime'
import type {
  AddResult,
  AdminMember,
  Agent,
  AgentRequest,
  AgentSubmission,
  AlertEvent,
  Channel,
  ChannelMember,
  CreatedWorkspace,
  DeviceRevocation,
  DMSent,
  EncryptionHealth,
  ChannelRetention,
  RetentionChange,
  Invite,
  InviteRecord,
  InviteScope,
  MentionRef,
  Message,
  MessagePage,
  NotifyLevel,
  Pairing,
  Person,
  PhraseCheck,
  Progress,
  Project,
  Receipt,
  ReceiptExport,
  RecoveryRotation,
  RecoveryState,
  Removal,
  RemovalPlan,
  Role,
  SearchHit,
  SecurityAlert,
  Status,
  Workspace,
  WorkspaceMember,
} from './types'

export type * from './types'

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

/**
 * toApiError turns what a rejected Go call gives into an ApiError: Go sends
 * {code, message} (app.FormatError, Wails' ErrorFormatter; the e2e shim
 * alike); anything else is app/unexpected with its text.
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  if (typeof e === 'object' && e !== null && 'code' in e && 'message' in e && typeof e.code === 'string' && typeof e.message === 'string') {
    return new ApiError(e.code, e.message)
  }
  const text = typeof e === 'string' ? e : e instanceof Error ? e.message : String(e)
  return new ApiError('app/unexpected', text)
}

async function wrap<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p()
  } catch (e) {
    throw toApiError(e)
  }
}

/** What a clicked desktop notification opens (app/emitter.go OpenChannel). */
export type OpenTarget = { workspace: string; channel: string; view?: 'security' }

/** Event names pushed from Go (app/emitter.go). */
export const events = {
  projectChanged: 'project:changed',
  workspacesChanged: 'workspaces:changed',
  channelsChanged: 'channels:changed',
  messagesChanged: 'messages:changed',
  progress: 'progress',
  alert: 'alert',
  openChannel: 'channel:open',
  launchLink: 'launch:link',
  healthChanged: 'health:changed',
} as const

function on<T>(name: string, cb: (v: T) => void): () => void {
  return EventsOn(name, (v: T) => cb(v))
}

export const api = {
  status: (): Promise<Status> => wrap(() => App.Status()),
  /** ready tells Go the ready state is on screen (it logs it for the desktop smoke test). */
  ready: (workspace: string, channel: string): Promise<void> => wrap(() => App.Ready(workspace, channel)),
  /** takeLaunchLink: the weald:// invite link the app was opened with, once ('' when none). */
  takeLaunchLink: (): Promise<string> => wrap(() => App.TakeLaunchLink()),

  projects: {
    list: (): Promise<Project[]> => wrap(() => Projects.List() as Promise<Project[]>),
    add: (folder: string): Promise<Project> => wrap(() => Projects.Add(folder) as Promise<Project>),
    forget: (folder: string): Promise<void> => wrap(() => Projects.Forget(folder)),
    bind: (folder: string, workspace: string, relay: string): Promise<Project> =>
      wrap(() => Projects.Bind(folder, workspace, relay) as Promise<Project>),
    onChanged: (cb: (p: Project) => void) => on<Project>(events.projectChanged, cb),
  },

  // The workspaces on this device (app.Workspaces over backend/engine).
  workspaces: {
    list: (): Promise<Workspace[]> => wrap(() => Workspaces.List() as Promise<Workspace[]>),
    create: (name: string, you: string, relay: string): Promise<CreatedWorkspace> =>
      wrap(() => Workspaces.Create(name, you, relay) as Promise<CreatedWorkspace>),
    /** createHosted makes a workspace on a relay this app runs itself; lan lets other computers on the network join. */
    createHosted: (name: string, you: string, lan: boolean): Promise<CreatedWorkspace> =>
      wrap(() => Workspaces.CreateHosted(name, you, lan) as Promise<CreatedWorkspace>),
    /** join redeems an invite link; you is the joiner's display name, written into the roster. */
    join: (link: string, you: string): Promise<CreatedWorkspace> => wrap(() => Workspaces.Join(link, you) as Promise<CreatedWorkspace>),
    /** joinDevice joins as an existing user with a pairing link made on one of your other devices. */
    joinDevice: (link: string): Promise<CreatedWorkspace> => wrap(() => Workspaces.JoinDevice(link) as Promise<CreatedWorkspace>),
    /** pairDevice makes a one-use pairing link for a new device of yours, valid for minutes (1 to 60). */
    pairDevice: (ws: string, minutes: number): Promise<Pairing> => wrap(() => Workspaces.PairDevice(ws, minutes) as Promise<Pairing>),
    /** members: the roster's people in order of joining, with when they joined. */
    members: (ws: string): Promise<WorkspaceMember[]> => wrap(() => Workspaces.WorkspaceMembers(ws) as Promise<WorkspaceMember[]>),
    /** setName changes your display name in a workspace. */
    setName: (ws: string, name: string): Promise<void> => wrap(() => Workspaces.SetName(ws, name)),
    /** setNotifications sets which new messages of a workspace show a desktop notification. */
    setNotifications: (ws: string, level: NotifyLevel): Promise<void> => wrap(() => Workspaces.SetNotifications(ws, level)),
    /** checkPhrase checks a recovery phrase as typed, one box a word ('' for an empty box); nothing is kept. */
    checkPhrase: (words: string[]): Promise<PhraseCheck> => wrap(() => Workspaces.CheckRecoveryPhrase(words) as Promise<PhraseCheck>),
    /**
     * recover makes this device a new device of the person whose phrase it is; where is a workspace link, an invite or
     * pairing link, or the relay's address (then workspace is the workspace id). It is on probation (workspace.recovery).
     */
    recover: (where: string, workspace: string, phrase: string[]): Promise<Workspace> =>
      wrap(() => Workspaces.Recover(where, workspace, phrase) as Promise<Workspace>),
    /** resumeRecovery resumes an unfinished recovery now (the app also does by itself); still waiting is no error. */
    resumeRecovery: (ws: string): Promise<Workspace> => wrap(() => Workspaces.ResumeRecovery(ws) as Promise<Workspace>),
    /** remove abandons a workspace whose setup has not finished (it leaves this device). */
    remove: (id: string): Promise<void> => wrap(() => Workspaces.Remove(id)),
    onChanged: (cb: (ws: Workspace[]) => void) => on<Workspace[]>(events.workspacesChanged, cb),
  },
  channels: {
    list: (ws: string): Promise<Channel[]> => wrap(() => Workspaces.Channels(ws) as Promise<Channel[]>),
    create: (ws: string, name: string, admission: 'parent' | 'explicit'): Promise<Channel> =>
      wrap(() => Workspaces.CreateChannel(ws, name, admission) as Promise<Channel>),
    /** renameLocal names a channel on this device only (not the roster's group-rename). */
    renameLocal: (ws: string, channel: string, name: string): Promise<Channel> =>
      wrap(() => Workspaces.RenameChannelLocally(ws, channel, name) as Promise<Channel>),
    setMuted: (ws: string, channel: string, muted: boolean): Promise<Channel> =>
      wrap(() => Workspaces.SetMuted(ws, channel, muted) as Promise<Channel>),
    /** moveLocal moves a channel within this device's sidebar order (not the roster's group-reorder). */
    moveLocal: (ws: string, channel: string, toIndex: number): Promise<Channel[]> =>
      wrap(() => Workspaces.MoveChannelLocally(ws, channel, toIndex) as Promise<Channel[]>),
    onChanged: (cb: (e: { workspace: string; channels: Channel[] }) => void) => on(events.channelsChanged, cb),
    /** members: the devices in a channel, then its pending adds. */
    members: (ws: string, channel: string): Promise<ChannelMember[]> =>
      wrap(() => Workspaces.ChannelMembers(ws, channel) as Promise<ChannelMember[]>),
    /**
     * historyVerifiedFrom: when this device's verified history of a channel begins (Unix ms), because
     * what came before was compacted before it joined and read from a checkpoint; 0 for the whole history.
     */
    historyVerifiedFrom: (ws: string, channel: string): Promise<number> => wrap(() => Workspaces.HistoryVerifiedFrom(ws, channel)),
    /** addPeople adds every device of each person (user ids) to a private channel in one commit. */
    addPeople: (ws: string, channel: string, users: string[]): Promise<AddResult> =>
      wrap(() => Workspaces.AddPeople(ws, channel, users) as Promise<AddResult>),
  },
  people: {
    list: (ws: string): Promise<Person[]> => wrap(() => Workspaces.People(ws) as Promise<Person[]>),
  },
  // The admin member list: people with devices and roles, removal, receipts (app/members.go).
  members: {
    list: (ws: string): Promise<AdminMember[]> => wrap(() => Workspaces.AdminMembers(ws) as Promise<AdminMember[]>),
    /** plan: what removing user (from the workspace, or from one explicit channel) would do; refuses what remove would. */
    plan: (ws: string, user: string, channel = ''): Promise<RemovalPlan> =>
      wrap(() => Workspaces.PlanRemoval(ws, user, channel) as Promise<RemovalPlan>),
    /** remove runs (or resumes) the removal; progress arrives as 'progress' events with ids `${ws}/removal/<step>`. */
    remove: (ws: string, user: string, channel = '', reapprove = false): Promise<Removal> =>
      wrap(() => Workspaces.RemovePerson(ws, user, channel, reapprove) as Promise<Removal>),
    receipts: (ws: string): Promise<Receipt[]> => wrap(() => Workspaces.Receipts(ws) as Promise<Receipt[]>),
    /** exportReceipt writes removal-<operation>.json and .html (a printable page) and says where. */
    exportReceipt: (ws: string, operation: string): Promise<ReceiptExport> =>
      wrap(() => Workspaces.ExportReceipt(ws, operation) as Promise<ReceiptExport>),
    setAdmin: (ws: string, user: string, admin: boolean): Promise<void> => wrap(() => Workspaces.SetAdmin(ws, user, admin)),
    /** revokeDevice revokes one lost or stolen device (yours, or anyone's for an admin). */
    revokeDevice: (ws: string, device: string): Promise<DeviceRevocation> =>
      wrap(() => Workspaces.RevokeDevice(ws, device) as Promise<DeviceRevocation>),
    /** approveDevice ends the probation of a device recovered with a phrase (an admin device admitted before it). */
    approveDevice: (ws: string, device: string): Promise<void> => wrap(() => Workspaces.ApproveDevice(ws, device)),
    /** revokeAgentsIssuedBy revokes every agent whose certificate the device issued, in one roster operation. */
    revokeAgentsIssuedBy: (ws: string, device: string): Promise<Agent[]> => wrap(() => Workspaces.RevokeAgentsIssuedBy(ws, device)),
  },
  // The Security view: alerts and the recovery phrase (app/security.go).
  security: {
    /** alerts: every kept alert, newest first, with what this device can do about it and its acknowledgement. */
    alerts: (ws: string): Promise<SecurityAlert[]> => wrap(() => Workspaces.SecurityAlerts(ws) as Promise<SecurityAlert[]>),
    /** dismiss acknowledges one alert on this device; the list comes back. */
    dismiss: (ws: string, id: string): Promise<SecurityAlert[]> => wrap(() => Workspaces.DismissAlert(ws, id) as Promise<SecurityAlert[]>),
    /** vouch vouches, as a member of the recovery quorum, for a device recovered with a phrase; its alerts are marked vouched. */
    vouch: (ws: string, device: string): Promise<void> => wrap(() => Workspaces.VouchDevice(ws, device)),
    recoveryState: (ws: string): Promise<RecoveryState> => wrap(() => Workspaces.RecoveryState(ws) as Promise<RecoveryState>),
    /** rotateRecovery replaces your recovery phrase (or finishes an unfinished rotation); the new words come back once. */
    rotateRecovery: (ws: string): Promise<RecoveryRotation> => wrap(() => Workspaces.RotateRecovery(ws) as Promise<RecoveryRotation>),
    /** confirmRotation records that the new phrase was confirmed. */
    confirmRotation: (ws: string): Promise<void> => wrap(() => Workspaces.ConfirmRecoveryRotation(ws)),
  },
  // Agents by delegation: the approval sheet and the agents list.
  agents: {
    list: (ws: string): Promise<Agent[]> => wrap(() => Workspaces.Agents(ws)),
    /** preview decodes a pasted request (weald agent init prints it); nothing is written. */
    preview: (ws: string, request: string): Promise<AgentRequest> => wrap(() => Workspaces.PreviewAgentRequest(ws, request)),
    /**
     * submit is what Review request does: a renewal for the same channels is approved at once, without a
     * prompt (renewed); anything else comes back as the approval sheet (request) for one approval.
     */
    submit: (ws: string, request: string): Promise<AgentSubmission> =>
      wrap(() => Workspaces.SubmitAgentRequest(ws, request) as Promise<AgentSubmission>),
    /** approve issues the agent's certificate from this device; its adds follow once it has connected. */
    approve: (ws: string, request: string): Promise<Agent> => wrap(() => Workspaces.ApproveAgent(ws, request)),
    revoke: (ws: string, id: string): Promise<Agent> => wrap(() => Workspaces.RevokeAgent(ws, id)),
  },
  dms: {
    /** send sends a direct message to a person (user id); the first one starts the DM. */
    send: (ws: string, user: string, text: string): Promise<DMSent> => wrap(() => Workspaces.SendDM(ws, user, text) as Promise<DMSent>),
  },
  messages: {
    list: (ws: string, channel: string): Promise<Message[]> => wrap(() => Workspaces.Messages(ws, channel) as Promise<Message[]>),
    /** page: up to limit (≤ 500) messages before the one with id before ('' for the newest), oldest first. */
    page: (ws: string, channel: string, before: string, limit: number): Promise<MessagePage> =>
      wrap(() => Workspaces.MessagesBefore(ws, channel, before, limit) as Promise<MessagePage>),
    /** send queues text; mentions (spans of text reading "@name") refer to people by user id. */
    send: (ws: string, channel: string, text: string, mentions?: MentionRef[]): Promise<Message> =>
      wrap(
        () =>
          (mentions && mentions.length > 0
            ? Workspaces.SendMentioning(
                ws,
                channel,
                text,
                mentions.map((m) => app.MentionRef.createFrom(m)),
              )
            : Workspaces.Send(ws, channel, text)) as Promise<Message>,
      ),
    /** retry makes a failed message of the outbox pending again; discard drops it. */
    retry: (ws: string, id: string): Promise<void> => wrap(() => Workspaces.RetrySend(ws, id)),
    discard: (ws: string, id: string): Promise<void> => wrap(() => Workspaces.DiscardSend(ws, id)),
    /** edit replaces the text of one of your messages; remove deletes it (for everyone in the channel). */
    edit: (ws: string, channel: string, id: string, text: string): Promise<Message> =>
      wrap(() => Workspaces.EditMessage(ws, channel, id, text) as Promise<Message>),
    remove: (ws: string, channel: string, id: string): Promise<void> => wrap(() => Workspaces.DeleteMessage(ws, channel, id)),
    markRead: (ws: string, channel: string): Promise<void> => wrap(() => Workspaces.MarkRead(ws, channel)),
    /** search: messages of the local history holding every word of query, newest first (at most 50); channel '' for all. */
    search: (ws: string, query: string, channel: string): Promise<SearchHit[]> =>
      wrap(() => Workspaces.Search(ws, query, channel) as Promise<SearchHit[]>),
    onChanged: (cb: (e: { workspace: string; channel: string }) => void) => on(events.messagesChanged, cb),
  },
  invites: {
    scopes: (ws: string): Promise<InviteScope[]> => wrap(() => Workspaces.InviteScopes(ws) as Promise<InviteScope[]>),
    create: (ws: string, scopes: string[], expiresInHours: number, uses = 1, role: Role = 'member'): Promise<Invite> =>
      wrap(() => Workspaces.CreateInvite(ws, scopes, expiresInHours, uses, role) as Promise<Invite>),
    list: (ws: string): Promise<InviteRecord[]> => wrap(() => Workspaces.Invites(ws) as Promise<InviteRecord[]>),
    revoke: (ws: string, id: string): Promise<void> => wrap(() => Workspaces.RevokeInvite(ws, id)),
  },
  /** setAttention tells Go what you are looking at: a focused window and its open channel get no notifications. */
  setAttention: (ws: string, channel: string, focused: boolean): Promise<void> => wrap(() => Workspaces.SetAttention(ws, channel, focused)),
  // The Encryption & health panel (app/health.go).
  health: {
    /** get: the newest health report, each group's encryption state and the storage history. */
    get: (ws: string): Promise<EncryptionHealth> => wrap(() => Workspaces.EncryptionHealth(ws) as Promise<EncryptionHealth>),
    /** run runs every check now (Run now). */
    run: (ws: string): Promise<EncryptionHealth> => wrap(() => Workspaces.RunHealth(ws) as Promise<EncryptionHealth>),
    /** dismiss dismisses a check's failure once (admin_devices only). */
    dismiss: (ws: string, check: string): Promise<EncryptionHealth> => wrap(() => Workspaces.DismissHealth(ws, check) as Promise<EncryptionHealth>),
    /** resolve runs a finding's action where the panel has a button for it: 'sync' or 'compact_now'. */
    resolve: (ws: string, action: string): Promise<EncryptionHealth> => wrap(() => Workspaces.ResolveHealth(ws, action) as Promise<EncryptionHealth>),
    /** registerQuorum registers the recovery quorum (admin): threshold of these people (user ids) vouch for a recovered device; then the check runs again. */
    registerQuorum: (ws: string, users: string[], threshold: number): Promise<EncryptionHealth> =>
      wrap(() => Workspaces.RegisterRecoveryQuorum(ws, users, threshold) as Promise<EncryptionHealth>),
    /** approve approves a pending retention change with this admin device. */
    approve: (ws: string, id: string): Promise<EncryptionHealth> => wrap(() => Workspaces.ApproveRetention(ws, id) as Promise<EncryptionHealth>),
    /** retention: a channel's (name or group id) retention windows and whether this device may change them. */
    retention: (ws: string, channel: string): Promise<ChannelRetention> =>
      wrap(() => Workspaces.ChannelRetention(ws, channel) as Promise<ChannelRetention>),
    /** previewRetention: what new windows (days, 0 = unlimited) would delete; changes nothing (admins). */
    previewRetention: (ws: string, channel: string, textDays: number, mediaDays: number): Promise<RetentionChange> =>
      wrap(() => Workspaces.PreviewRetention(ws, channel, textDays, mediaDays) as Promise<RetentionChange>),
    /** setRetention proposes new windows (admins): in force at once with one admin, else once a second approves. */
    setRetention: (ws: string, channel: string, textDays: number, mediaDays: number): Promise<RetentionChange> =>
      wrap(() => Workspaces.SetRetention(ws, channel, textDays, mediaDays) as Promise<RetentionChange>),
    /** onChanged: a health check ran or the retention changes waiting for approval changed (app.HealthChanged). */
    onChanged: (cb: (c: { workspace: string }) => void) => on<{ workspace: string }>(events.healthChanged, cb),
  },
  onProgress: (cb: (p: Progress) => void) => on<Progress>(events.progress, cb),
  /** onAlert: a new alert from the engine, with its tone: a notice (someone joined by an admin's invite) or a security alert. */
  onAlert: (cb: (a: AlertEvent) => void) => on(events.alert, cb),
  /** onOpenChannel: show this channel, or with view 'security' the workspace's Security view (the person clicked its desktop notification). */
  onOpenChannel: (cb: (c: OpenTarget) => void) => on(events.openChannel, cb),
  /** onLaunchLink: a launch handed a weald:// link to this running window; take it with takeLaunchLink. */
  onLaunchLink: (cb: () => void) => on(events.launchLink, cb),
  /** setTitle sets the window's title (and the page's, for a browser). */
  setTitle: (title: string): void => {
    document.title = title
    try {
      WindowSetTitle(title)
    } catch {
      // No Wails runtime (unit tests): the page title is enough.
    }
  },
  /** copy puts text on the clipboard; false when the system refused. */
  copy: (text: string): Promise<boolean> => ClipboardSetText(text).catch(() => false),
}

export type Api = typeof api
