import type { Policy } from '../lib/api'

/** The lock state of a channel at one glance (spec/channels.md "Group policy"). */
export interface LockState {
  /** 'open' for derived admission (anyone in the workspace), 'locked' for explicit. */
  icon: 'open' | 'locked'
  /** Who can join. */
  who: string
  /** What a joiner sees. */
  sees: string
  /** Shown on hover: the policy hash. */
  title: string
}

export function lockState(p: Policy): LockState {
  const derived = p.admission === 'everyone' || p.admission === 'parent'
  return {
    icon: derived ? 'open' : 'locked',
    who: derived ? 'Anyone in the workspace can join' : 'Members add people',
    sees: p.history === 'open' ? 'Joiners see the history' : 'Joiners see messages from joining on',
    title: `Policy ${p.hash}`,
  }
}

/** The scope picker's two choices and the sentences the spec requires. */
export const scopes = {
  parent: {
    label: 'Anyone in this workspace',
    // spec/channels.md "Interaction with removal": the sentence, verbatim.
    sentence: 'anyone in this workspace can join this channel',
    detail: 'Nobody can be removed from it alone: only removing them from the workspace takes them out. Joiners see the history.',
  },
  explicit: {
    label: 'Private',
    sentence: 'Private: members add people.',
    detail: 'Only the people its members add can read it, and a person can be removed from it alone. Joiners see messages from joining on.',
  },
} as const
