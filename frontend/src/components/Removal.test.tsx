import { describe, expect, it, beforeEach } from 'vitest'
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type AdminMember, type ChannelMember, type Receipt, type RemovalPlan } from '../lib/api'
import { chan, defaults, hex, holder, makeApi, memberDevice, msg, policy, ws } from '../test/apiMock'

import { ConnectionStatus } from './ConnectionStatus'
import { MembersDialog } from './MembersDialog'
import { PeopleView, lastAdminReason } from './PeopleView'
import { RemoveDialog, limitSentence, planSentences } from './RemoveDialog'
import { Shell } from './Shell'

const W = hex(1)
const person = (p: Partial<AdminMember> & { user: string; name: string }): AdminMember => ({
  role: 'member',
  revoked: false,
  you: false,
  joined: Date.UTC(2026, 11, 1),
  devices: [],
  removal: null,
  ...p,
})
const device = memberDevice
const plan = (p: Partial<RemovalPlan> = {}): RemovalPlan => ({
  user: hex(0xb),
  name: 'Sam',
  channel: '',
  devices: 2,
  agents: 0,
  groups: 3,
  notMember: 0,
  invites: 1,
  recoveryKeys: 1,
  resumes: '',
  ...p,
})
const receipt: Receipt = {
  operation: hex(0x0e),
  user: hex(0xb),
  name: 'Sam',
  channel: '',
  groups: [{ name: 'general', epoch: 4 }],
  devicesRevoked: 2,
  agentsRevoked: 0,
  accessVersion: 5,
  at: Date.UTC(2026, 11, 2, 10),
}

beforeEach(() => {
  holder.current = makeApi()
})

describe('PeopleView', () => {
  it('lists people with roles and devices; the only admin cannot remove or demote themself and is sent to promote someone', async () => {
    const a = holder.current.api
    a.members.list.mockResolvedValue([
      person({ user: hex(0xa), name: 'Dana', role: 'admin', you: true, devices: [device(0xaa, { you: true })] }),
      person({
        user: hex(0xb),
        name: 'Sam',
        devices: [device(0xbb, { lastSeen: Date.UTC(2026, 10, 28) }), device(0xbc, { waiting: [{ channel: 'hr', since: Date.UTC(2026, 11, 1) }] })],
      }),
    ])
    render(<PeopleView workspace={W} workspaceName="Acme" />)
    const dana = await screen.findByRole('listitem', { name: 'Dana' })
    expect(within(dana).getByText('Admin')).toBeTruthy()
    expect(within(dana).getByText(/this device/)).toBeTruthy()
    const remove = within(dana).getByRole('button', { name: /Remove Dana/ }) as HTMLButtonElement
    const demote = within(dana).getByRole('button', { name: 'Remove admin role' }) as HTMLButtonElement
    expect(remove.disabled && demote.disabled).toBe(true)
    expect(document.getElementById(demote.getAttribute('aria-describedby')!)!.textContent).toContain(lastAdminReason)
    const sam = screen.getByRole('listitem', { name: 'Sam' })
    expect(within(sam).getByText(/#hr: waiting for that device to check in \(added/)).toBeTruthy()
    // Last seen per device, from what this device saw; never shown for this device itself.
    expect(within(sam).getByText(/· last seen Nov 28, 2026/)).toBeTruthy()
    expect(within(sam).getByText(/· not seen since joining/)).toBeTruthy()
    expect(within(dana).queryByText(/last seen|not seen/)).toBeNull()
    expect(within(sam).getAllByRole('button', { name: 'Revoke device' })).toHaveLength(2)
    await userEvent.click(within(dana).getByRole('button', { name: 'Promote someone' }))
    expect(document.activeElement).toBe(within(sam).getByRole('button', { name: 'Make admin' }))
    a.members.setAdmin.mockResolvedValue(undefined)
    await userEvent.click(within(sam).getByRole('button', { name: 'Make admin' }))
    expect(a.members.setAdmin).toHaveBeenCalledWith(W, hex(0xb), true)
  })

  it('shows a paused removal on its person, with the changes, and approves it again', async () => {
    const a = holder.current.api
    const paused = {
      operation: hex(0x0e),
      state: 'needs_reapproval' as const,
      step: 'revoke' as const,
      intervening: ['operation 9: invite by Lee (device 1a2b3c4d)'],
    }
    a.members.list.mockResolvedValue([
      person({ user: hex(0xa), name: 'Dana', role: 'admin', you: true }),
      person({ user: hex(0xc), name: 'Lee', role: 'admin' }),
      person({ user: hex(0xb), name: 'Sam', removal: paused }),
    ])
    a.members.remove.mockResolvedValue({ operation: hex(0x0e), state: 'done', step: 'done', intervening: [], receipt })
    render(<PeopleView workspace={W} workspaceName="Acme" />)
    const sam = await screen.findByRole('listitem', { name: 'Sam' })
    expect(within(sam).getByRole('alert').textContent).toMatch(/Removal of Sam paused/)
    await userEvent.click(within(sam).getByRole('button', { name: 'Review and approve' }))
    const dialog = screen.getByRole('dialog')
    expect(within(dialog).getByRole('list', { name: 'Changes since you approved' }).textContent).toContain('invite by Lee')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Approve and continue' }))
    expect(a.members.remove).toHaveBeenCalledWith(W, hex(0xb), '', true)
    expect(await screen.findByTestId('receipt')).toBeTruthy()
  })
})

describe('RemoveDialog', () => {
  it('says what will happen and what removal cannot do, shows the steps as they run, and ends on an exportable receipt', async () => {
    const a = holder.current.api
    a.members.plan.mockResolvedValue(plan({ notMember: 1 }))
    let finish: (v: unknown) => void = () => {}
    a.members.remove.mockReturnValue(new Promise((r) => (finish = r)))
    a.members.exportReceipt.mockResolvedValue({ json: '/home/d/Downloads/removal-x.json', page: '/home/d/Downloads/removal-x.html' })
    render(<RemoveDialog workspace={W} workspaceName="Acme" person={{ user: hex(0xb), name: 'Sam' }} onClose={() => {}} />)
    const what = await screen.findByRole('list', { name: 'What the removal does' })
    expect(what.textContent).toContain("Sam's 2 devices are revoked")
    expect(what.textContent).toContain('The workspace and every channel they are in get new keys (3 groups)')
    expect(what.textContent).toContain('You are not in 1 other channel')
    expect(what.textContent).toContain('Their recovery phrase stops working')
    expect(what.textContent).toContain('1 invite link naming them is revoked')
    expect(screen.getByTestId('removal-limit').textContent).toBe(limitSentence('Sam'))
    await userEvent.click(screen.getByRole('button', { name: 'Remove Sam' }))
    act(() => holder.current.emit('progress', { id: `${W}/removal/revoke`, label: '', done: 1, total: 1, finished: true }))
    act(() => holder.current.emit('progress', { id: `${W}/removal/rotate`, label: '', done: 1, total: 3, finished: false }))
    const steps = screen.getByRole('list', { name: 'Removal progress' })
    expect(
      within(steps)
        .getByText(/Revoke their devices/)
        .closest('li')!.dataset.state,
    ).toBe('done')
    expect(within(steps).getByText(/New keys for each channel/).textContent).toContain('(1 of 3)')
    expect(screen.getByRole('status').textContent).toMatch(/continues by itself/)
    await act(async () => finish({ operation: receipt.operation, state: 'done', step: 'done', intervening: [], receipt }))
    expect(screen.getByRole('dialog', { name: 'Removal receipt' })).toBeTruthy()
    expect(screen.getByTestId('receipt-operation').textContent).toBe(receipt.operation)
    expect(screen.getByTestId('receipt-groups').textContent).toContain('general (epoch 4)')
    await userEvent.click(screen.getByRole('button', { name: 'Export (JSON and printable page)' }))
    expect(a.members.exportReceipt).toHaveBeenCalledWith(W, receipt.operation)
    expect((await screen.findByTestId('receipt-saved')).textContent).toContain('removal-x.html')
  })

  it('shows a refusal with its code and sentence, and removes nothing', async () => {
    const a = holder.current.api
    a.members.plan.mockRejectedValue(new ApiError('removal/last_admin', 'This person is the last admin; promote someone first, then remove them.'))
    render(<RemoveDialog workspace={W} workspaceName="Acme" person={{ user: hex(0xa), name: 'Dana' }} onClose={() => {}} />)
    expect((await screen.findByRole('alert')).textContent).toMatch(/promote someone first.*removal\/last_admin/)
    expect((screen.getByRole('button', { name: 'Remove Dana' }) as HTMLButtonElement).disabled).toBe(true)
    expect(a.members.remove).not.toHaveBeenCalled()
  })

  it('words a removal from one channel as that channel only', () => {
    const s = planSentences(plan({ channel: 'hr', groups: 1 }), 'Acme').join(' ')
    expect(s).toContain('leave #hr')
    expect(s).toContain('Sam stays in Acme and in every other channel')
    expect(s).not.toContain('recovery phrase')
  })
})

describe('MembersDialog', () => {
  const member = (p: Partial<ChannelMember> & { user: string; name: string; device: string }): ChannelMember => ({
    you: false,
    pending: false,
    since: 0,
    ...p,
  })
  const rows = [
    member({ user: hex(0xa), name: 'Dana', device: hex(0xaa), you: true }),
    member({ user: hex(0xb), name: 'Sam', device: hex(0xbb) }),
    member({ user: hex(0xb), name: 'Sam', device: hex(0xbc) }),
  ]

  it('lets an admin remove a person from a private channel alone, once per person', async () => {
    const a = holder.current.api
    a.channels.members.mockResolvedValue(rows)
    a.members.plan.mockResolvedValue(plan({ channel: 'hr', groups: 1 }))
    const hr = chan({ name: 'hr', policy: policy({ admission: 'explicit', history: 'closed' }) })
    render(<MembersDialog workspace={W} workspaceName="Acme" admin channel={hr} onClose={() => {}} />)
    const buttons = await screen.findAllByRole('button', { name: /from this channel/ })
    expect(buttons.map((b) => b.textContent)).toEqual(['Remove Sam from this channel'])
    await userEvent.click(buttons[0])
    expect(await screen.findByRole('dialog', { name: 'Remove Sam from #hr' })).toBeTruthy()
    await waitFor(() => expect(a.members.plan).toHaveBeenCalledWith(W, hex(0xb), hr.id))
  })

  it('offers no channel removal to a member, nor in a channel open to the workspace', async () => {
    const a = holder.current.api
    a.channels.members.mockResolvedValue(rows)
    const hr = chan({ name: 'hr', policy: policy({ admission: 'explicit', history: 'closed' }) })
    const { unmount } = render(<MembersDialog workspace={W} channel={hr} onClose={() => {}} />)
    await screen.findAllByText('Sam')
    expect(screen.queryByRole('button', { name: /from this channel/ })).toBeNull()
    unmount()
    render(<MembersDialog workspace={W} admin channel={chan({ name: 'design' })} onClose={() => {}} />)
    await screen.findAllByText('Sam')
    expect(screen.queryByRole('button', { name: /from this channel/ })).toBeNull()
  })
})

describe('ConnectionStatus', () => {
  it('tells a removed person they were removed, whatever the connection', () => {
    render(<ConnectionStatus ws={ws({ removed: true, connected: false, problem: { code: 'auth/revoked', message: 'x' } })} />)
    expect(screen.getByRole('alert').textContent).toMatch(
      /You were removed from Acme by an admin\. This device can no longer read or send new messages/,
    )
  })
})

describe('Shell for a removed person', () => {
  it('says they were removed, and offers no setup, once their channels are gone', async () => {
    const a = holder.current.api
    a.status.mockResolvedValue({ version: '1', commit: '', dataDir: '/d', hasWorkspace: true, workspaces: [] })
    a.projects.list.mockResolvedValue([])
    a.workspaces.list.mockResolvedValue([ws({ ready: false, connected: false, removed: true })])
    a.channels.list.mockResolvedValue(defaults().map((c) => ({ ...c, joined: false })))
    a.messages.list.mockResolvedValue([msg({ text: 'what was said before' })])
    render(<Shell />)
    expect((await screen.findByRole('alert')).textContent).toMatch(/You were removed from Acme by an admin/)
    expect(screen.queryByRole('region', { name: 'Setting up Acme' })).toBeNull()
  })
})
