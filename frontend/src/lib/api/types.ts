// The TypeScript contract of the desktop UI with Go. Types that Go already
// binds come from the generated models (index.ts); the workspace types below
// are the contract the engine's app service will return (docs/protocol/desktop-ui.md).

/** GroupPolicy.admission (spec/channels.md "Group policy"). */
export type Admission = 'everyone' | 'parent' | 'explicit'
/** GroupPolicy.history. */
export type History = 'open' | 'closed'

/** The parts of a group's policy the UI shows: its lock state. */
export interface Policy {
  admission: Admission
  history: History
  /** A default channel: created with the workspace, never deleted or archived. */
  default: boolean
  /** GroupPolicy hash (roster.md), 64 hex digits, shown on hover. */
  hash: string
}

export interface Channel {
  /** Group id, 64 hex digits. */
  id: string
  /** Display name without '#'. Defaults can be renamed locally. */
  name: string
  policy: Policy
  muted: boolean
  unread: number
  /** Unread messages that mention you (a badge of its own). */
  mentions?: number
  /** Whether this device has joined the group yet (a self-join may be pending). */
  joined: boolean
  /** The spec's name of a default channel ('general', 'activity') whatever its local name; '' for others. */
  defaultName: string
  /** 'dm' for a direct message (its name is the other person's), else 'chan'. */
  kind?: 'chan' | 'dm'
  /** A DM's other person (user id, 64 hex digits). */
  peer?: string
}

/** Someone in the workspace (the people picker, a new message). */
export interface Person {
  user: string
  name: string
  you: boolean
  devices: number
}

/** A device in a channel, or a pending add: waiting for that device to check in since `since` (Unix ms). */
export interface ChannelMember {
  user: string
  name: string
  device: string
  you: boolean
  pending: boolean
  since: number
  /** An agent's leaf: user and device are its agent id, name its name, ownerName who approved it. */
  agent?: boolean
  ownerName?: string
}

/** What an add did: devices added now, and pending adds. */
export interface AddResult {
  added: number
  pending: number
}

/** A direct message sent (or waiting: its state says) and its DM. */
export interface DMSent {
  channel: Channel
  message: Message
}

export interface Workspace {
  /** Workspace id, 64 hex digits. */
  id: string
  name: string
  relay: string
  /** Your display name in this workspace. */
  you: string
  /** Ready: #general exists, is joined and can be sent to. */
  ready: boolean
  /** Unread messages in its channels that are not muted. */
  unread: number
  connected: boolean
  /** Whether this device may create invites (admins only; members get no Invite button). */
  canInvite: boolean
  /** Work left: bootstrap steps, redemption, channels to join. */
  pending: string[]
  /** Set while the relay does not hold the workspace yet (an operator step). */
  provision: { workspace: string; genesisKey: string; command: string } | null
  /** The last error of the background sync. */
  problem: { code: string; message: string } | null
  /** An admin removed you (or revoked this device): no new messages can be read or sent here. */
  removed?: boolean
}

/**
 * sent: in the channel's log. pending: in this device's outbox, sent by itself
 * once connected. failed: refused (error says why); send it again or discard it.
 */
export type MessageState = 'sent' | 'pending' | 'failed'

export interface Message {
  id: string
  channel: string
  author: string
  /** Whether you wrote it (from this or another of your devices). */
  mine: boolean
  text: string
  /** Unix milliseconds. */
  sentAt: number
  state: MessageState
  /** Why a failed message was refused. */
  error?: { code: string; message: string } | null
  /** 'joined': a line of #general saying that author joined the workspace (drawn from the roster; no text). */
  kind?: 'joined'
  /** Its author changed the text after sending it. */
  edited?: boolean
  /** People mentioned: spans of text that read "@name", shown with the person's name now. */
  mentions?: MentionRef[] | null
  /** One of the mentions is you (and someone else wrote it). */
  mentionsMe?: boolean
}

/** A mention in a message: text[start, end) (UTF-16 indices) refers to user (id, 64 hex digits). */
export interface MentionRef {
  user: string
  /** The person's display name now (ignored when sending). */
  name: string
  start: number
  end: number
  /** The mention is of you (set by Go; ignored when sending). */
  you?: boolean
}

/** A window of a channel's history (Workspaces.MessagesBefore), oldest first. */
export interface MessagePage {
  messages: Message[]
  /** Older messages exist before the first one. */
  more: boolean
}

/** A message found by Workspaces.Search, newest first. */
export interface SearchHit {
  /** The channel's id. */
  channel: string
  channelName: string
  message: Message
  /** The query's words as matched (lower case, the last also as the start of a word). */
  words: string[]
}

export interface CreatedWorkspace {
  workspace: Workspace
  /** The 24 words of the recovery phrase; returned once, never stored in the UI. Empty while the engine makes none. */
  recoveryPhrase: string[]
}

/** A group that an invite can name: the root and `open` groups only. */
export interface InviteScope {
  group: string
  name: string
  /** The workspace root: always included, not removable. */
  root: boolean
  history: History
}

export type Role = 'member' | 'admin'

export interface Invite {
  link: string
  /** Unix milliseconds. */
  expiresAt: number
  /** How many people may join with the link. */
  maxUses: number
  role: Role
}

/** One invite of the workspace; the link itself is shown only once, at creation. */
export interface InviteRecord {
  id: string
  role: Role
  uses: number
  maxUses: number
  createdAt: number
  expiresAt: number
  createdBy: string
  mine: boolean
  scopes: string[]
  joinedBy: string[]
  state: 'live' | 'used' | 'expired' | 'revoked'
}

/** A person of the workspace's roster, named, with when they joined. */
export interface WorkspaceMember {
  user: string
  name: string
  role: Role
  you: boolean
  creator: boolean
  revoked: boolean
  /** Unix milliseconds: when the person joined ("Dana joined" in #general). */
  joinedAt: number
}

/** Long work (joining many channels, a first sync). */
export interface Progress {
  id: string
  label: string
  done: number
  total: number
  finished: boolean
}
