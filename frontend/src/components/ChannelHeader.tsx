import { useState } from 'react'
import { api, type Channel } from '../lib/api'
import { lockState, policyHashHelp } from '../state/lock'
import { LockIcon } from './LockIcon'

/**
 * ChannelHeader names the open channel and shows at one glance that it is
 * end-to-end encrypted (a closed padlock: every channel is), who can join and
 * what a joiner sees (spec/channels.md "Group policy"); its policy panel
 * explains the policy hash and copies it. Never a settings panel.
 */
export function ChannelHeader({
  channel,
  title,
  onInvite,
  onAgents,
  onMenu,
  onMembers,
  onAddPeople,
  alerts = 0,
}: {
  channel?: Channel
  title?: string
  onInvite?: () => void
  /** Opens the agents list and approval sheet. */
  onAgents?: () => void
  /** Shows the channel's member list (pending adds included). */
  onMembers?: () => void
  /** A private channel: opens the people picker. */
  onAddPeople?: () => void
  /** In a narrow window: shows the collapsed sidebar. */
  onMenu?: () => void
  /** Security alerts not acknowledged: with the sidebar collapsed, its Security badge shows on the menu button. */
  alerts?: number
}) {
  const menu = onMenu ? (
    <button
      type="button"
      className="icon menu-toggle"
      aria-label="Show channels"
      aria-describedby={alerts ? 'menu-alerts' : undefined}
      onClick={onMenu}
    >
      ☰
      {alerts ? (
        <>
          <span className="badge alert-badge menu-badge" aria-hidden="true">
            {alerts}
          </span>
          <span id="menu-alerts" hidden>
            {alerts} security alert{alerts === 1 ? '' : 's'} to review
          </span>
        </>
      ) : null}
    </button>
  ) : null
  if (!channel) {
    return (
      <header className="channel-header">
        {menu}
        <h1>{title ?? 'Welcome to Weald'}</h1>
      </header>
    )
  }
  const lock = lockState(channel.policy)
  const dm = channel.kind === 'dm'
  const actions = (
    <>
      {onMembers ? (
        <button type="button" className="header-action" onClick={onMembers}>
          Members
        </button>
      ) : null}
      {onAddPeople && !dm && channel.policy.admission === 'explicit' ? (
        <button type="button" className="header-action" onClick={onAddPeople}>
          Add people
        </button>
      ) : null}
    </>
  )
  if (dm) {
    return (
      <header className="channel-header">
        {menu}
        <h1>{channel.name}</h1>
        <p className="lock" data-testid="lock-state" data-lock={lock.icon}>
          <span className="e2e">
            <LockIcon locked />
            End-to-end encrypted
          </span>
          <span className="lock-detail">
            <span aria-hidden="true"> · </span>
            <span>Direct message: only the two of you</span>
          </span>
        </p>
        {actions}
      </header>
    )
  }
  return (
    <header className="channel-header">
      {menu}
      <h1>#{channel.name}</h1>
      <p className="lock" data-testid="lock-state" data-lock={lock.icon} title={lock.title}>
        <span className="e2e">
          <LockIcon locked />
          End-to-end encrypted
        </span>
        <span className="lock-detail">
          <span aria-hidden="true"> · </span>
          <span>{lock.who}</span>
          <span aria-hidden="true"> · </span>
          <span>{lock.sees}</span>
        </span>
      </p>
      <PolicyButton hash={channel.policy.hash} name={channel.name} rules={`${lock.who}. ${lock.sees}.`} key={channel.id} />
      {actions}
      {onInvite ? (
        <button type="button" className="header-action" onClick={onInvite}>
          Invite people
        </button>
      ) : null}
      {onAgents ? (
        <button type="button" className="header-action" onClick={onAgents}>
          Agents
        </button>
      ) : null}
    </header>
  )
}

function PolicyButton({ hash, name, rules }: { hash: string; name: string; rules: string }) {
  const [open, setOpen] = useState(false)
  const [copied, setCopied] = useState<boolean | null>(null)
  return (
    <div className="policy">
      <button type="button" className="link-button" aria-expanded={open} aria-controls="policy-panel" onClick={() => setOpen((o) => !o)}>
        Policy
      </button>
      {open ? (
        <div
          id="policy-panel"
          className="popover"
          role="region"
          aria-label={`Policy of #${name}`}
          onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
        >
          <p>
            <strong>{rules}</strong>
          </p>
          <p>{policyHashHelp}</p>
          <code className="hash" data-testid="policy-hash">
            {hash}
          </code>
          <div className="dialog-actions">
            {copied !== null ? (
              <span className={copied ? 'copied' : 'error-text'} role="status">
                {copied ? 'Copied' : 'Could not copy; select the hash instead.'}
              </span>
            ) : null}
            <button type="button" autoFocus onClick={async () => setCopied(await api.copy(hash))}>
              Copy policy hash
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        </div>
      ) : null}
    </div>
  )
}
