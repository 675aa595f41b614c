import { beforeEach, describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { chan, hex, holder, makeApi, policy } from '../test/apiMock'
import { policyHashHelp } from '../state/lock'
import { ChannelHeader } from './ChannelHeader'

beforeEach(() => {
  holder.current = makeApi()
})

const lockText = () => screen.getByTestId('lock-state').textContent

describe('ChannelHeader', () => {
  it('names an open channel and says, at one glance, that it is encrypted, who can join and what joiners see', () => {
    render(<ChannelHeader channel={chan({ name: 'general' })} />)
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('#general')
    expect(lockText()).toBe('End-to-end encrypted · Anyone in the workspace can join · Joiners see the history')
    // A closed padlock: every channel is end-to-end encrypted.
    expect(screen.getByTestId('lock-state').querySelector('svg path')?.getAttribute('d')).toMatch(/v2$/)
  })

  it('says what is true of a private channel with closed history', () => {
    render(<ChannelHeader channel={chan({ name: 'board', policy: policy({ admission: 'explicit', history: 'closed' }) })} />)
    expect(lockText()).toBe('End-to-end encrypted · Members add people · Joiners see messages from joining on')
  })

  it('explains the policy hash and copies it, or says when it could not', async () => {
    const hash = hex(0xbeef)
    render(<ChannelHeader channel={chan({ name: 'general', policy: policy({ hash }) })} />)
    await userEvent.click(screen.getByRole('button', { name: 'Policy' }))
    const panel = screen.getByRole('region', { name: 'Policy of #general' })
    expect(panel.textContent).toContain('Anyone in the workspace can join. Joiners see the history.')
    expect(panel.textContent).toContain(policyHashHelp)
    expect(screen.getByTestId('policy-hash').textContent).toBe(hash)
    // Focus goes to the copy button, not to Close.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Copy policy hash' }))

    holder.current.api.copy.mockResolvedValueOnce(true)
    await userEvent.click(screen.getByRole('button', { name: 'Copy policy hash' }))
    expect(holder.current.api.copy).toHaveBeenCalledWith(hash)
    expect((await screen.findByRole('status')).textContent).toBe('Copied')

    holder.current.api.copy.mockResolvedValueOnce(false)
    await userEvent.click(screen.getByRole('button', { name: 'Copy policy hash' }))
    expect((await screen.findByText('Could not copy; select the hash instead.')).getAttribute('role')).toBe('status')

    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('region', { name: 'Policy of #general' })).toBeNull()
  })

  it('offers only the actions it was given, and Add people only on a private channel', async () => {
    const onInvite = vi.fn()
    const onMenu = vi.fn()
    const { rerender } = render(<ChannelHeader channel={chan({ name: 'general' })} onAddPeople={vi.fn()} />)
    expect(screen.queryByRole('button', { name: 'Invite people' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Agents' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Add people' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Show channels' })).toBeNull()

    rerender(
      <ChannelHeader
        channel={chan({ name: 'board', policy: policy({ admission: 'explicit' }) })}
        onInvite={onInvite}
        onAgents={vi.fn()}
        onMembers={vi.fn()}
        onAddPeople={vi.fn()}
        onMenu={onMenu}
      />,
    )
    for (const name of ['Members', 'Add people', 'Invite people', 'Agents', 'Show channels'])
      expect(screen.getByRole('button', { name })).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Invite people' }))
    await userEvent.click(screen.getByRole('button', { name: 'Show channels' }))
    expect(onInvite).toHaveBeenCalledTimes(1)
    expect(onMenu).toHaveBeenCalledTimes(1)
  })

  it('names a direct message by the person, with no policy to show and no one to invite', () => {
    render(<ChannelHeader channel={chan({ name: 'Sam', kind: 'dm' })} onInvite={vi.fn()} onAddPeople={vi.fn()} onMembers={vi.fn()} />)
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Sam')
    expect(lockText()).toBe('End-to-end encrypted · Direct message: only the two of you')
    expect(screen.queryByRole('button', { name: 'Policy' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Invite people' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Add people' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Members' })).toBeTruthy()
  })

  it('shows a title, or a welcome, when no channel is open', () => {
    const { rerender } = render(<ChannelHeader />)
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Welcome to Weald')
    expect(screen.queryByTestId('lock-state')).toBeNull()
    rerender(<ChannelHeader title="People" />)
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('People')
  })
})
