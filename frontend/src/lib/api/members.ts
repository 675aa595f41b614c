// The admin member list's contract with Go (app/members.go; spec/lifecycle.md
// "Removing a person", "Key compromise"; docs/protocol/lifecycle.md).

/** A pending add of a device: waiting for it to check in to a channel since `since` (Unix ms). */
export interface Waiting {
  channel: string
  since: number
}

export interface MemberDevice {
  /** Device id, 64 hex digits. */
  device: string
  revoked: boolean
  /** This device. */
  you: boolean
  /** Admitted by recovery, waiting for an admin's approval. */
  probation: boolean
  waiting: Waiting[]
}

/** Where a removal stands: running (it resumes by itself), paused for reapproval, or done. */
export interface Removal {
  operation: string
  state: 'running' | 'needs_reapproval' | 'done'
  /** The next step: revoke, rotate, wraps, invites, access, receipt, done. */
  step: string
  /** While paused: the changes another admin made since the removal was approved. */
  intervening: string[]
  receipt?: Receipt | null
}

export interface AdminMember {
  user: string
  name: string
  role: 'admin' | 'member'
  revoked: boolean
  you: boolean
  /** Unix ms. */
  joined: number
  devices: MemberDevice[]
  /** An unfinished removal of this person started on this device. */
  removal: Removal | null
}

export interface RotatedGroup {
  name: string
  epoch: number
}

/** A removal receipt from the membership log. */
export interface Receipt {
  operation: string
  user: string
  name: string
  /** The channel of a removal from one channel; '' for the workspace. */
  channel: string
  groups: RotatedGroup[]
  devicesRevoked: number
  agentsRevoked: number
  accessVersion: number
  /** Unix ms. */
  at: number
}

/** What removing a person would do, shown before the admin confirms. */
export interface RemovalPlan {
  user: string
  name: string
  /** The channel's name for a removal from one channel; '' for the workspace. */
  channel: string
  devices: number
  agents: number
  /** Groups (channels and the workspace root) that get new keys. */
  groups: number
  /** Groups this device is not in, which it cannot rotate. */
  notMember: number
  invites: number
  recoveryKeys: number
  /** An unfinished removal of this person that Remove continues. */
  resumes: string
}

export interface DeviceRevocation {
  device: string
  agents: number
  /** Names of the channels rotated. */
  groups: string[]
  /** 0 when this device is no admin's: an admin's device publishes the access set on its next sync. */
  accessVersion: number
}

/** Where a receipt was exported: its JSON and its printable page. */
export interface ReceiptExport {
  json: string
  page: string
}
