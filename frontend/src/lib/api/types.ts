// The TypeScript contract of the desktop UI with Go: one chain from the Go
// structs of package app (app/*.go) through the generated models
// (wailsjs/go/models.ts, `make bindings`) to the types below. Every type Go
// returns is derived from its generated model, so a field added or changed in
// Go reaches the UI by regenerating, never by copying; Go's enums (app/enums.go)
// arrive as string-literal unions. Only the event payloads, which no bound
// method returns, are declared here by hand.
import type { app } from '../../../wailsjs/go/models'

/**
 * Wire is the JSON a generated model stands for: its fields without the
 * class's helper methods. A field Go declares as a pointer is optional in the
 * model and may arrive as null (Go does not omit nil pointers).
 */
export type Wire<T> = T extends (infer U)[]
  ? Wire<U>[]
  : T extends object
    ? {
        [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: undefined extends T[K] ? Wire<NonNullable<T[K]>> | null : Wire<T[K]>
      }
    : T

/** Group policy: its admission and history (spec/channels.md "Group policy"), whether it is a default channel, its hash. */
export type Policy = Wire<app.Policy>
/** GroupPolicy.admission. */
export type Admission = Policy['admission']
/** GroupPolicy.history. */
export type History = Policy['history']

/** A channel of the sidebar; a DM ('dm') is named for its other person (peer). */
export type Channel = Wire<app.Channel>
export type ChannelKind = Channel['kind']

/** Someone in the workspace (the people picker, a new message). */
export type Person = Wire<app.Person>
/** A device in a channel, or a pending add: waiting for that device to check in since `since` (Unix ms). */
export type ChannelMember = Wire<app.ChannelMember>
/** What an add did: devices added now, and pending adds. */
export type AddResult = Wire<app.AddResult>
/** A direct message sent (or waiting: its state says) and its DM. */
export type DMSent = Wire<app.DMSent>

/** A workspace on this device: its connection, unread count, setup work left and last sync problem. */
export type Workspace = Wire<app.Workspace>
/** A recovery onto this device with the recovery phrase (app/recover.go): its stage, this device's id, whether the relay lists it, the only admin's wait (Unix ms). */
export type Recovery = Wire<app.Recovery>
export type RecoveryStage = Recovery['stage']
/** A recovery phrase as it is typed: each word known or not (with a suggestion), and the phrase whole. */
export type PhraseCheck = Wire<app.PhraseCheck>
/** Which new messages of a workspace notify: every one, mentions of you and DMs, or none. */
export type NotifyLevel = Workspace['notifications']
/** A new workspace and its recovery phrase (24 words, returned once; never stored in the UI). */
export type CreatedWorkspace = Wire<app.Created>

/**
 * A chat message. sent: in the channel's log. pending: in this device's
 * outbox, sent by itself once connected. failed: refused (error says why);
 * send it again or discard it.
 */
export type Message = Wire<app.Message>
export type MessageState = Message['state']
export type MessageKind = NonNullable<Message['kind']>
/** A mention in a message: text[start, end) (UTF-16 indices) refers to user; name and you are set by Go. */
export type MentionRef = Wire<app.MentionRef>
/** A window of a channel's history (Workspaces.MessagesBefore), oldest first; more: older messages exist. */
export type MessagePage = Wire<app.MessagePage>
/** A message found by Workspaces.Search, newest first, with the query's words as matched. */
export type SearchHit = Wire<app.SearchHit>

/** A group that an invite can name: the root (always included) and `open` groups only. */
export type InviteScope = Wire<app.InviteScope>
/** A created invite link. */
export type Invite = Wire<app.Invite>
/** A one-use link for a new device of this person (docs/protocol/devices.md). */
export type Pairing = Wire<app.Pairing>
export type Role = Invite['role']
/** One invite of the workspace; the link itself is shown only once, at creation. */
export type InviteRecord = Wire<app.InviteRecord>
export type InviteState = InviteRecord['state']
/** A person of the workspace's roster, named, with when they joined (Unix ms). */
export type WorkspaceMember = Wire<app.WorkspaceMember>

/** One row of the admin member list: a person with devices, role and an unfinished removal (spec/lifecycle.md "Removing a person"). */
export type AdminMember = Wire<app.AdminMember>
/** A device of a person in the admin member list: revoked, on probation, waiting to be added to channels. */
export type MemberDevice = Wire<app.MemberDevice>
/** A pending add of a device: waiting for it to check in to a channel since `since` (Unix ms). */
export type Waiting = Wire<app.Waiting>
/** Where a removal stands: running (it resumes by itself), paused for reapproval, or done; and its next step. */
export type Removal = Wire<app.Removal>
export type RemovalState = Removal['state']
export type RemovalStep = Removal['step']
/** What removing a person would do, shown before the admin confirms. */
export type RemovalPlan = Wire<app.RemovalPlan>
/** A removal receipt from the membership log. */
export type Receipt = Wire<app.Receipt>
export type RotatedGroup = Wire<app.RotatedGroup>
/** Where a receipt was exported: its JSON and its printable page. */
export type ReceiptExport = Wire<app.ReceiptExport>
/** A lost device revoked: its agents and the channels rotated. */
export type DeviceRevocation = Wire<app.DeviceRevocation>

/** An alert of the Security view (app/security.go): plain sentence, who acted, the device it concerns, what this device can do now, its acknowledgement. */
export type SecurityAlert = Wire<app.SecurityAlert>
export type AlertTone = SecurityAlert['tone']
export type AlertOutcome = SecurityAlert['outcome']
/** A new recovery phrase (24 words, shown once), the channels re-wrapped to it and the access set published without the old one. */
export type RecoveryRotation = Wire<app.RecoveryRotation>
/** Whether a phrase rotation is unfinished (it resumes with the same phrase) or its phrase was shown and not confirmed (Unix ms). */
export type RecoveryState = Wire<app.RecoveryState>

/** A new alert (the `alert` event): id in the Security view's list ('' when it could not be read back), its tone and plain sentence. */
export interface AlertEvent {
  workspace: string
  id: string
  code: string
  tone: AlertTone
  message: string
}

/** An agent of the workspace (docs/protocol/agents.md). */
export type Agent = Wire<app.Agent>
export type AgentState = Agent['state']
/** A pasted agent request as the approval sheet shows it. */
export type AgentRequest = Wire<app.AgentRequest>
/** A channel of an agent's scope with its lock state. */
export type AgentScope = Wire<app.AgentScope>
/** What submitting a pasted request did: renewed at once (same channels), or the sheet to approve. */
export type AgentSubmission = Wire<app.AgentSubmission>

/** A project folder as Go reports it. */
export type Project = Wire<app.Project>
export type ProjectState = Project['state']

export type Status = Wire<app.Status>
export type WorkspaceSummary = Wire<app.WorkspaceSummary>

/** Long work (joining many channels, a first sync): the `progress` event. */
export interface Progress {
  id: string
  label: string
  done: number
  total: number
  finished: boolean
}

/** The Encryption & health panel (app/health.go; docs/protocol/health.md): the newest report, each group's encryption state, the storage history. */
export type EncryptionHealth = Wire<app.EncryptionHealth>
/** The newest health check run; at is 0 (Unix ms) before the first. */
export type HealthReport = Wire<app.HealthReport>
/** One check's result: state ok | repaired | action | dismissed | not_checked, severity info | warning | critical. */
export type HealthFinding = Wire<app.HealthFinding>
export type HealthState = HealthFinding['state']
export type HealthSeverity = HealthFinding['severity']
/** A finding's resolve action: an id, its label, the CLI command if one exists. */
export type HealthAction = Wire<app.HealthAction>
/** One group's encryption state (retention windows in days, 0 = unlimited; times Unix ms, 0 for none). */
export type GroupEncryption = Wire<app.GroupEncryption>
/** The workspace's relay usage as read at `at` (Unix ms); limitBytes 0: no budget. */
export type StoragePoint = Wire<app.StoragePoint>
/** A retention change waiting for admins' approval (windows in days, 0 = unlimited; proposedAt Unix ms). */
export type RetentionProposal = Wire<app.RetentionProposal>
/** A channel's retention windows (days, 0 = unlimited), whether they are the defaults, whether this device (an admin's) may change them. */
export type ChannelRetention = Wire<app.ChannelRetention>
/** What new retention windows would delete (impact: messages and estimated relay bytes) and, once saved, whether they are in force (active) or wait for another admin's approval. */
export type RetentionChange = Wire<app.RetentionChange>
