import { beforeEach, describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'
import { defaults, holder, makeApi, ws } from '../test/apiMock'

import { FirstRun } from './FirstRun'
import { Shell } from './Shell'

beforeEach(() => {
  holder.current = makeApi()
  const a = holder.current.api
  a.status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] })
  a.projects.list.mockResolvedValue([])
  a.workspaces.list.mockResolvedValue([ws()])
  a.channels.list.mockResolvedValue(defaults())
  a.messages.markRead.mockResolvedValue(undefined)
})

// Issue 13 "A second device": "Add a device" on a device the person has,
// "Join as an existing user" on the new one.
describe('Add a device', () => {
  it('makes a one-use pairing link and says when a member’s link waits for an admin', async () => {
    const a = holder.current.api
    a.workspaces.pairDevice.mockResolvedValue({ link: 'weald://pair?v=1&x', expiresAt: Date.now() + 15 * 60_000, published: false })
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Add a device' }))
    await userEvent.selectOptions(screen.getByLabelText('The link works for'), '1 hour')
    await userEvent.click(screen.getByRole('button', { name: 'Make a pairing link' }))
    expect(a.workspaces.pairDevice).toHaveBeenCalledWith(ws().id, 60)
    expect(((await screen.findByLabelText('Pairing link')) as HTMLInputElement).value).toBe('weald://pair?v=1&x')
    expect(screen.getByRole('note').textContent).toMatch(/not an admin/)
  })

  it('joins as an existing user with the link, and says so plainly when it is an invite link', async () => {
    const a = holder.current.api
    const ready = vi.fn()
    a.workspaces.joinDevice
      .mockRejectedValueOnce(new ApiError('pair/wrong_link', 'go error'))
      .mockResolvedValueOnce({ workspace: ws(), recoveryPhrase: [] })
    render(<FirstRun onReady={ready} />)
    await userEvent.click(screen.getByRole('button', { name: 'Join as an existing user' }))
    await userEvent.type(screen.getByLabelText('Pairing link'), 'weald://invite?v=1')
    await userEvent.click(screen.getByRole('button', { name: 'Join' }))
    expect((await screen.findByRole('alert')).textContent).toMatch(/^This is an invite link, not a pairing link.*pair\/wrong_link$/)
    await userEvent.click(screen.getByRole('button', { name: 'Join' }))
    expect(a.workspaces.joinDevice).toHaveBeenLastCalledWith('weald://invite?v=1')
    await vi.waitFor(() => expect(ready).toHaveBeenCalledWith(ws()))
  })

  it('says a pairing link was used or voided in words about the pairing link, not about this device', async () => {
    const a = holder.current.api
    a.workspaces.joinDevice
      .mockRejectedValueOnce(new ApiError('auth/grant_used', 'This invite link has already been used as many times as it allows.'))
      .mockRejectedValueOnce(new ApiError('auth/revoked', 'go error'))
    render(<FirstRun onReady={vi.fn()} />)
    await userEvent.click(screen.getByRole('button', { name: 'Join as an existing user' }))
    await userEvent.type(screen.getByLabelText('Pairing link'), 'weald://pair?v=1&x')
    await userEvent.click(screen.getByRole('button', { name: 'Join' }))
    expect((await screen.findByRole('alert')).textContent).toMatch(
      /^This pairing link has already been used\. On your other device, choose Add a device/,
    )
    await userEvent.click(screen.getByRole('button', { name: 'Join' }))
    await vi.waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/^This pairing link is no longer valid\./))
    expect(screen.getByRole('alert').textContent).not.toMatch(/removed from the workspace|invite link/)
  })
})
