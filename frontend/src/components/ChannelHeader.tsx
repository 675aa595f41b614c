import type { Channel } from '../lib/api'
import { lockState } from '../state/lock'
import { LockIcon } from './LockIcon'

/**
 * ChannelHeader names the open channel and shows its lock state at one
 * glance: who can join and what a joiner sees, with an icon and the policy
 * hash on hover (spec/channels.md "Group policy"). Never a settings panel.
 */
export function ChannelHeader({ channel, title, onInvite }: { channel?: Channel; title?: string; onInvite?: () => void }) {
  if (!channel) {
    return (
      <header className="channel-header">
        <h1>{title ?? 'Welcome to Weald'}</h1>
      </header>
    )
  }
  const lock = lockState(channel.policy)
  return (
    <header className="channel-header">
      <h1>#{channel.name}</h1>
      <p
        className="lock"
        data-testid="lock-state"
        data-lock={lock.icon}
        title={lock.title}
        tabIndex={0}
        aria-label={`${lock.who}. ${lock.sees}. ${lock.title}`}
      >
        <LockIcon locked={lock.icon === 'locked'} />
        <span>{lock.who}</span>
        <span aria-hidden="true"> · </span>
        <span>{lock.sees}</span>
      </p>
      {onInvite ? (
        <button type="button" className="header-action" onClick={onInvite}>
          Invite people
        </button>
      ) : null}
    </header>
  )
}
