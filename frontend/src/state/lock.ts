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

/** What the policy hash is, in the words the header's policy panel uses. */
export const policyHashHelp =
  "The policy hash is a fingerprint of this channel's rules as the workspace's signed roster records them: who can join and what joiners see. The rules never change after the channel is created. When another member's Weald shows the same hash, you both see the same rules."

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
    label: 'Open to the workspace',
    // spec/channels.md "Interaction with removal": the sentence, verbatim (capitalized as a sentence).
    sentence: 'Anyone in this workspace can join this channel.',
    detail: 'Nobody can be removed from it alone: only removing them from the workspace takes them out. Joiners see the history.',
  },
  explicit: {
    label: 'Private',
    sentence: 'Members add people.',
    detail:
      'Only the people its members add can read it, and an admin can remove a person from it alone (its member list). Joiners see messages from joining on.',
  },
} as const
