import { describe, expect, it, beforeEach, vi } from 'vitest'
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type AdminMember, type SecurityAlert } from '../lib/api'
import { defaults, hex, holder, makeApi, memberDevice, msg, ws } from '../test/apiMock'

import { ApproveDeviceDialog, RevokeAgentsDialog } from './DeviceDialogs'
import { PeopleView } from './PeopleView'
import { RecoveryPhrase, SecurityView, actorSentence, needsAttention, outcomeSentence } from './SecurityView'
import { Shell } from './Shell'

const W = hex(1)
const T = Date.UTC(2026, 11, 2, 16, 40)
const alert = (p: Partial<SecurityAlert> & { id: string; summary: string }): SecurityAlert => ({
  code: 'roster/unexpected_change',
  tone: 'alert',
  detail: '',
  time: T,
  actorName: '',
  actorDevice: '',
  device: '',
  deviceName: '',
  approve: false,
  revoke: false,
  rotate: false,
  vouch: false,
  acknowledged: 0,
  outcome: '',
  ...p,
})
const joined = alert({ id: 'n1', tone: 'notice', summary: 'Lee joined, admitted by Sam’s invite.', actorName: 'Lee', actorDevice: hex(0x1ee) })
const recovered = alert({
  id: 'r1',
  code: 'device/recovered',
  summary: 'Sam’s recovery phrase was used to add device 0000000d for Sam; it is on probation until an admin approves it.',
  detail: 'Sam’s recovery phrase (rec_1) was spent to admit device dev_0000000d. weald device approve 0000000d',
  actorName: 'Sam’s recovery phrase',
  device: hex(0xd),
  deviceName: 'Sam',
  approve: true,
  revoke: true,
})
const spent = alert({
  id: 's1',
  summary: 'Your recovery phrase was used to add device 0000000e to your account.',
  device: hex(0xe),
  deviceName: 'Ada',
  revoke: true,
  rotate: true,
})
const words = Array.from({ length: 24 }, (_, i) => `word${i + 1}`)

beforeEach(() => {
  holder.current = makeApi()
})

describe('SecurityView', () => {
  it('lists each alert in plain words with who acted and when, the actions it calls for, and acknowledged ones apart', async () => {
    const a = holder.current.api
    const old = alert({ id: 'o1', summary: 'Sam made Lee admin.', acknowledged: Date.UTC(2026, 11, 1), outcome: 'dismissed' })
    a.security.alerts.mockResolvedValue([recovered, joined, old])
    render(<SecurityView workspace={W} workspaceName="Acme" />)
    const fresh = await screen.findByRole('list', { name: 'New alerts' })
    const req = within(fresh).getByRole('listitem', { name: recovered.summary })
    expect(req.textContent).toContain('Security alert')
    expect(req.textContent).toContain('By Sam’s recovery phrase')
    expect(within(req).getByRole('button', { name: 'Approve device 00000000…' })).toBeTruthy()
    expect(within(req).getByRole('button', { name: 'Revoke device 00000000…' })).toBeTruthy()
    expect(within(req).queryByRole('button', { name: /Rotate/ })).toBeNull()
    // The engine's own sentence (with its CLI command) and the code are a detail, not the headline.
    expect(within(req).getByText('Details')).toBeTruthy()
    const note = within(fresh).getByRole('listitem', { name: joined.summary })
    expect(note.textContent).toContain('Notice')
    expect(note.textContent).toContain(`By Lee, from device ${hex(0x1ee).slice(0, 8)}`)
    expect(
      within(note)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Dismiss'])
    const earlier = screen.getByRole('list', { name: 'Acknowledged alerts' })
    expect(within(earlier).getByRole('listitem', { name: old.summary }).textContent).toContain(outcomeSentence(old))
    expect(within(earlier).queryAllByRole('button')).toHaveLength(0)
  })

  it('dismisses an alert: it moves to the acknowledged ones and the shell is told', async () => {
    const a = holder.current.api
    a.security.alerts.mockResolvedValue([joined])
    a.security.dismiss.mockResolvedValue([{ ...joined, acknowledged: T, outcome: 'dismissed' }])
    const changed = vi.fn()
    render(<SecurityView workspace={W} workspaceName="Acme" onChanged={changed} />)
    const fresh = await screen.findByRole('list', { name: 'New alerts' })
    await userEvent.click(within(fresh).getByRole('button', { name: 'Dismiss' }))
    expect(a.security.dismiss).toHaveBeenCalledWith(W, 'n1')
    expect(await screen.findByRole('list', { name: 'Acknowledged alerts' })).toBeTruthy()
    expect(screen.queryByRole('list', { name: 'New alerts' })).toBeNull()
    expect(changed).toHaveBeenCalled()
  })

  it('approves the device of an approval request from the alert, then reloads the list', async () => {
    const a = holder.current.api
    a.security.alerts.mockResolvedValueOnce([recovered]).mockResolvedValue([{ ...recovered, approve: false, acknowledged: T, outcome: 'approved' }])
    a.members.approveDevice.mockResolvedValue(undefined)
    render(<SecurityView workspace={W} workspaceName="Acme" />)
    await userEvent.click(await screen.findByRole('button', { name: 'Approve device 00000000…' }))
    const dialog = screen.getByRole('dialog', { name: "Approve Sam's device 00000000" })
    expect(dialog.textContent).toContain('Approve it only if Sam told you they recovered a device')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Approve device' }))
    expect(a.members.approveDevice).toHaveBeenCalledWith(W, hex(0xd))
    expect((await within(dialog).findByRole('status')).textContent).toBe('Device 00000000 is approved: its probation is over.')
    await userEvent.click(within(dialog).getByText('Close'))
    const earlier = await screen.findByRole('list', { name: 'Acknowledged alerts' })
    expect(earlier.textContent).toContain('Device approved on')
  })

  it('a member of the recovery quorum vouches only after confirming, then the alert is marked vouched', async () => {
    const a = holder.current.api
    const asked = {
      ...recovered,
      approve: false,
      revoke: false,
      vouch: true,
      summary:
        'Sam’s recovery phrase was used to add device 0000000d for Sam; it is on probation until an admin approves it or 2 members of the recovery quorum vouch for it.',
    }
    a.security.alerts.mockResolvedValueOnce([asked]).mockResolvedValue([{ ...asked, vouch: false, acknowledged: T, outcome: 'vouched' }])
    a.security.vouch.mockResolvedValue(undefined)
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true)
    render(<SecurityView workspace={W} workspaceName="Acme" />)
    const button = await screen.findByRole('button', { name: 'Vouch for device 00000000…' })
    await userEvent.click(button) // declined: nothing sent
    expect(confirm.mock.calls[0][0]).toContain('only if Sam told you directly')
    expect(a.security.vouch).not.toHaveBeenCalled()
    await userEvent.click(button)
    expect(a.security.vouch).toHaveBeenCalledWith(W, hex(0xd))
    const earlier = await screen.findByRole('list', { name: 'Acknowledged alerts' })
    expect(earlier.textContent).toContain('Vouched for the device on')
    confirm.mockRestore()
  })

  it('an alert that asks for a rotation opens the rotation, said before it runs', async () => {
    holder.current.api.security.alerts.mockResolvedValue([spent])
    render(<SecurityView workspace={W} workspaceName="Acme" />)
    await userEvent.click(await screen.findByRole('button', { name: 'Rotate my recovery phrase…' }))
    const ask = screen.getByRole('group', { name: 'Rotate your recovery phrase' })
    expect(ask.textContent).toContain('The words you have now stop being your recovery phrase')
    expect(holder.current.api.security.rotateRecovery).not.toHaveBeenCalled()
  })

  it('says who acted and how an alert was acknowledged', () => {
    expect(actorSentence({ actorName: 'Sam', actorDevice: 'abcdef0123' })).toBe('By Sam, from device abcdef01')
    expect(actorSentence({ actorName: '', actorDevice: '' })).toBe('')
    expect(outcomeSentence({ outcome: 'revoked', acknowledged: T })).toMatch(/^Device revoked on /)
    expect(outcomeSentence({ outcome: 'rotated', acknowledged: T })).toMatch(/^Recovery phrase rotated on /)
    expect(needsAttention([joined, recovered, { ...spent, acknowledged: T }])).toBe(1)
  })
})

describe('RecoveryPhrase', () => {
  it('rotates: asks first, shows the new words once, asks three back, and records the confirmation', async () => {
    const a = holder.current.api
    a.security.rotateRecovery.mockResolvedValue({ phrase: words, rewrapped: 3, accessVersion: 7 })
    render(<RecoveryPhrase workspace={W} workspaceName="Acme" pick={() => [0, 5, 23]} />)
    await userEvent.click(await screen.findByRole('button', { name: 'Rotate recovery phrase…' }))
    await userEvent.click(screen.getByRole('button', { name: 'Rotate now' }))
    const list = await screen.findByRole('list', { name: 'Recovery phrase' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(words)
    expect(screen.getByRole('heading', { name: 'Your new recovery phrase' })).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'I have written them down' }))
    await userEvent.type(screen.getByLabelText('Word 1'), 'word1')
    await userEvent.type(screen.getByLabelText('Word 6'), 'wrong')
    await userEvent.type(screen.getByLabelText('Word 24'), 'word24')
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect(screen.getByRole('alert').textContent).toMatch(/do not match/)
    await userEvent.clear(screen.getByLabelText('Word 6'))
    await userEvent.type(screen.getByLabelText('Word 6'), 'word6')
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect((await screen.findByRole('status')).textContent).toBe(
      'Your new recovery phrase is confirmed and the old one is revoked. 3 channels have a recovery copy for the new phrase.',
    )
    expect(a.security.confirmRotation).toHaveBeenCalledWith(W)
    expect(screen.queryByRole('list', { name: 'Recovery phrase' })).toBeNull()
  })

  it('offers to finish a rotation that did not finish, and says when a shown phrase was not confirmed', async () => {
    const a = holder.current.api
    a.security.recoveryState.mockResolvedValue({ unfinished: true, unconfirmed: 0 })
    const { unmount } = render(<RecoveryPhrase workspace={W} workspaceName="Acme" />)
    expect((await screen.findByRole('alert')).textContent).toMatch(/did not finish/)
    expect(screen.getByRole('button', { name: 'Finish the rotation' })).toBeTruthy()
    unmount()
    a.security.recoveryState.mockResolvedValue({ unfinished: false, unconfirmed: T })
    render(<RecoveryPhrase workspace={W} workspaceName="Acme" />)
    expect(await screen.findByText(/was shown on .* and not confirmed\. It cannot be shown again/)).toBeTruthy()
  })

  it('says how to recover in the app, not with a command, and copies the workspace link it needs', async () => {
    const a = holder.current.api
    a.copy.mockResolvedValue(true)
    const link = `weald://workspace?v=1&relay=wss%3A%2F%2Frelay.example.org%2Fv1%2Fws&ws=${W}`
    render(<RecoveryPhrase workspace={W} workspaceName="Acme" workspaceLink={link} />)
    const section = await screen.findByRole('region', { name: 'Recovery phrase' })
    expect(section.textContent).not.toMatch(/weald recover/)
    expect(section.textContent).toMatch(/choose Recover with your recovery phrase when Weald opens, and give it the words and this workspace’s link/)
    expect(screen.getByText(link)).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Copy workspace link' }))
    expect(a.copy).toHaveBeenCalledWith(link)
    expect(screen.getByText('Copied')).toBeTruthy()
  })

  it('keeps the phrase it had when the rotation fails, with the reason', async () => {
    const a = holder.current.api
    a.security.rotateRecovery.mockRejectedValue(new ApiError('relay/unreachable', 'Weald cannot reach the relay.'))
    render(<RecoveryPhrase workspace={W} workspaceName="Acme" />)
    await userEvent.click(await screen.findByRole('button', { name: 'Rotate recovery phrase…' }))
    await userEvent.click(screen.getByRole('button', { name: 'Rotate now' }))
    expect(await screen.findByText('relay/unreachable')).toBeTruthy()
    expect(screen.queryByRole('list', { name: 'Recovery phrase' })).toBeNull()
  })
})

describe('device actions', () => {
  const member = (p: Partial<AdminMember>): AdminMember => ({
    user: hex(0xb),
    name: 'Sam',
    role: 'member',
    revoked: false,
    you: false,
    joined: T,
    devices: [],
    removal: null,
    ...p,
  })

  it('the People list offers Approve on a device this admin may approve, and revoking the agents of a device that issued some', async () => {
    const a = holder.current.api
    a.members.list.mockResolvedValue([
      member({ user: hex(0xa), name: 'Ada', role: 'admin', you: true, devices: [memberDevice(0xaa, { you: true })] }),
      member({
        devices: [memberDevice(0xd, { probation: true, canApprove: true }), memberDevice(0xc, { agents: 2 }), memberDevice(0xf, { probation: true })],
      }),
    ])
    render(<PeopleView workspace={W} workspaceName="Acme" />)
    const sam = await screen.findByRole('listitem', { name: 'Sam' })
    expect(within(sam).getAllByRole('button', { name: 'Approve device' })).toHaveLength(1) // not the device Ada may not approve
    expect(
      within(sam)
        .getAllByRole('button', { name: /^Revoke all certificates issued by this device/ })
        .map((b) => b.textContent),
    ).toEqual(['Revoke all certificates issued by this device (2)'])
    await userEvent.click(within(sam).getByRole('button', { name: 'Revoke all certificates issued by this device (2)' }))
    expect(screen.getByRole('dialog', { name: `Revoke the agents of device ${hex(0xc).slice(0, 8)}` }).textContent).toContain('2 agents')
  })

  it('revokes all certificates a device issued, naming how many, then names the agents revoked', async () => {
    const a = holder.current.api
    a.members.revokeAgentsIssuedBy.mockResolvedValue([{ name: 'builder' }, { name: 'triage' }])
    const close = vi.fn()
    render(<RevokeAgentsDialog workspace={W} owner={{ name: 'Sam', you: false }} device={hex(0xc)} agents={2} onClose={close} />)
    const dialog = screen.getByRole('dialog')
    expect(dialog.textContent).toContain(
      `Revoke all certificates issued by Sam's device ${hex(0xc).slice(0, 8)}: 2 agents, in one change of the membership log.`,
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke 2 agents' }))
    expect(a.members.revokeAgentsIssuedBy).toHaveBeenCalledWith(W, hex(0xc))
    expect((await within(dialog).findByRole('status')).textContent).toBe('Revoked 2 agents: builder, triage.')
    await userEvent.click(within(dialog).getByText('Close'))
    expect(close).toHaveBeenCalledWith(true)
  })

  it('an approval refused says why and changes nothing', async () => {
    const a = holder.current.api
    a.members.approveDevice.mockRejectedValue(
      new ApiError('device/approve_not_admin', 'Only an admin device admitted before the recovered device can approve it.'),
    )
    const close = vi.fn()
    render(<ApproveDeviceDialog workspace={W} owner={{ name: 'Sam', you: false }} device={hex(0xd)} onClose={close} />)
    await userEvent.click(screen.getByRole('button', { name: 'Approve device' }))
    expect(await screen.findByText('device/approve_not_admin')).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(close).toHaveBeenCalledWith(false)
  })
})

describe('Shell and alerts', () => {
  beforeEach(() => {
    const a = holder.current.api
    a.status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] })
    a.projects.list.mockResolvedValue([])
    a.workspaces.list.mockResolvedValue([ws()])
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([msg({ text: 'hello' })])
    a.messages.markRead.mockResolvedValue(undefined)
  })

  it('a join by an admin’s invite is a notice, told without alarm; a security alert stays red; Security carries the badge', async () => {
    const a = holder.current.api
    a.security.alerts.mockResolvedValue([recovered])
    render(<Shell />)
    await screen.findByText('hello')
    const security = await screen.findByRole('button', { name: /^Security/ })
    await waitFor(() => expect(within(security).getByLabelText('1 security alert to review')).toBeTruthy())
    act(() => holder.current.emit('alert', { workspace: W, id: 'n1', code: 'roster/unexpected_change', tone: 'notice', message: joined.summary }))
    const notice = (await screen.findByText(/Lee joined/)).closest('[role="status"]')
    expect(notice?.textContent).toBe(`Acme: ${joined.summary} Review OK`)
    expect(screen.queryByRole('alert')).toBeNull()
    act(() => holder.current.emit('alert', { workspace: W, id: 'r1', code: 'device/recovered', tone: 'alert', message: recovered.summary }))
    expect((await screen.findByRole('alert')).textContent).toContain(`Security alert in Acme: ${recovered.summary}`)
    // The notice's event again, same id, once the newcomer's name is known: the banner takes the new words, no second one.
    act(() =>
      holder.current.emit('alert', {
        workspace: W,
        id: 'n1',
        code: 'roster/unexpected_change',
        tone: 'notice',
        message: 'Lee Ann joined, admitted by Sam’s invite.',
      }),
    )
    await waitFor(() =>
      expect(screen.getAllByRole('status').map((s) => s.textContent)).toContain('Acme: Lee Ann joined, admitted by Sam’s invite. Review OK'),
    )
    expect(screen.getAllByRole('status').filter((s) => /joined, admitted/.test(s.textContent ?? ''))).toHaveLength(1)
    // Review opens the Security view.
    await userEvent.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Review' }))
    expect(await screen.findByRole('heading', { name: 'Security of Acme' })).toBeTruthy()
    expect(screen.getByRole('button', { name: /^Security/ }).getAttribute('aria-current')).toBe('page')
  })
})
