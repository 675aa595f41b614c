import { describe, expect, it, beforeEach, vi } from 'vitest'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type EncryptionHealth, type HealthFinding, type RetentionProposal } from '../lib/api'
import { hex, holder, makeApi } from '../test/apiMock'

vi.mock('../lib/api', async (orig) => (await import('../test/apiMock')).mockedModule(await orig<object>()))

import { HealthPanel } from './HealthPanel'
import { formatBytes } from './StorageChart'

const finding = (p: Partial<HealthFinding> & { check: string }): HealthFinding => ({
  title: p.check,
  state: 'ok',
  severity: 'info',
  finding: `${p.check} is fine.`,
  action: null,
  groups: [],
  ...p,
})

const adminsFailing = finding({
  check: 'admin_devices',
  title: 'Admin devices',
  state: 'action',
  severity: 'warning',
  finding: 'This workspace has 1 admin device and no recovery quorum.',
  action: {
    id: 'add_admin_device',
    label: 'Pair a second device, promote a second admin or register a recovery quorum',
    command: 'weald recovery quorum set --users A,B,C --threshold 2',
  },
})

const state = (findings: HealthFinding[], pending: EncryptionHealth['pending'] = []): EncryptionHealth => ({
  pending,
  report: { at: Date.UTC(2026, 11, 2, 9), needsAction: findings.some((f) => f.state === 'action'), findings },
  groups: [
    {
      channel: 'general',
      group: hex(0x10),
      kind: 'chan',
      history: 'open',
      epoch: 4,
      devices: 3,
      people: 2,
      textDays: 0,
      mediaDays: 180,
      defaultPolicy: true,
      chainFrozen: false,
      lastCheckpoint: Date.UTC(2026, 11, 1),
      verifiedFrom: Date.UTC(2026, 10, 20),
    },
  ],
  storage: [
    { at: Date.UTC(2026, 10, 25), logBytes: 40_000_000, limitBytes: 100_000_000 },
    { at: Date.UTC(2026, 11, 2), logBytes: 83_000_000, limitBytes: 100_000_000 },
  ],
})

const retentionProposal = (p: Partial<RetentionProposal>): RetentionProposal => ({
  id: 'ab'.repeat(32),
  channel: 'general',
  textDays: 0,
  mediaDays: 0,
  proposer: 'Dana',
  proposedAt: Date.UTC(2026, 11, 2),
  approvedBy: ['Dana'],
  threshold: 2,
  approvable: true,
  destroy: false,
  checkpointAt: 0,
  expiresAt: 0,
  resolve: false,
  resolveEpoch: 0,
  ...p,
})

beforeEach(() => {
  holder.current = makeApi()
})

describe('HealthPanel', () => {
  it('shows each finding, the action of a failing one, the channels and the storage figures', async () => {
    holder.current.api.health.get.mockResolvedValue(state([finding({ check: 'recovery_wrap', title: 'Recovery wraps' }), adminsFailing]))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    expect(await screen.findByText('1 check needs action.', { exact: false })).toBeTruthy()
    const list = screen.getByRole('list', { name: 'Findings' })
    const rows = within(list).getAllByRole('listitem')
    expect(rows).toHaveLength(2)
    expect(rows[1].textContent).toContain('Needs action')
    expect(rows[1].textContent).toContain('To resolve: Pair a second device, promote a second admin or register a recovery quorum')
    expect(within(rows[1]).getByText('weald recovery quorum set --users A,B,C --threshold 2')).toBeTruthy()
    expect(rows[0].textContent).not.toContain('To resolve')
    const table = screen.getByRole('table')
    expect(within(table).getByRole('rowheader', { name: '#general' })).toBeTruthy()
    expect(table.textContent).toContain('2 people, 3 devices')
    expect(table.textContent).toContain('text unlimited, media 180 days (defaults)')
    expect(table.textContent).toContain('history verified from')
    expect(await screen.findByText(/83\.0 MB of the relay's 100\.0 MB budget \(83 %\), 2 readings/)).toBeTruthy()
  })

  it('runs now and dismisses the admin-devices row once', async () => {
    const a = holder.current.api
    a.health.get.mockResolvedValue(state([adminsFailing]))
    a.health.dismiss.mockResolvedValue(state([{ ...adminsFailing, state: 'dismissed' }]))
    a.health.run.mockResolvedValue(state([{ ...adminsFailing, state: 'ok', action: null, finding: 'This workspace has 2 admin devices.' }]))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    await userEvent.click(await screen.findByRole('button', { name: 'Dismiss' }))
    expect(a.health.dismiss).toHaveBeenCalledWith(hex(1), 'admin_devices')
    expect(await screen.findByText('Nothing needs action.', { exact: false })).toBeTruthy()
    expect(screen.getByText('Dismissed')).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Run now' }))
    expect(a.health.run).toHaveBeenCalledWith(hex(1))
    expect(await screen.findByText('This workspace has 2 admin devices.')).toBeTruthy()
  })

  it('registers a recovery quorum from the admin-devices row: people still in the workspace, a threshold up to their number', async () => {
    const a = holder.current.api
    const person = (n: number, name: string, extra: object = {}) => ({
      user: hex(n),
      name,
      role: 'member' as const,
      you: false,
      creator: false,
      revoked: false,
      joinedAt: 0,
      ...extra,
    })
    a.workspaces.members.mockResolvedValue([
      person(0x21, 'Dana', { you: true, role: 'admin', creator: true }),
      person(0x22, 'Sam'),
      person(0x23, 'Lee'),
      person(0x24, 'Gone', { revoked: true }),
    ])
    a.health.get.mockResolvedValue(state([adminsFailing]))
    a.health.registerQuorum
      .mockRejectedValueOnce(new ApiError('roster/bad_quorum', 'A recovery quorum names 1 to 16 distinct members.'))
      .mockResolvedValueOnce(
        state([{ ...adminsFailing, state: 'ok', action: null, finding: 'This workspace has 1 admin device and a registered recovery quorum.' }]),
      )
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    await userEvent.click(await screen.findByRole('button', { name: 'Register a recovery quorum' }))
    const form = await screen.findByRole('form', { name: 'Register a recovery quorum' })
    await within(form).findByLabelText('Sam', { exact: false })
    expect(within(form).queryByLabelText('Gone', { exact: false })).toBeNull()
    const submit = within(form).getByRole('button', { name: 'Register quorum' }) as HTMLButtonElement
    expect(submit.disabled).toBe(true) // nobody chosen yet
    await userEvent.click(within(form).getByLabelText('Sam', { exact: false }))
    await userEvent.click(within(form).getByLabelText('Lee', { exact: false }))
    const needed = within(form).getByLabelText('Vouches needed', { exact: false })
    await userEvent.clear(needed)
    await userEvent.type(needed, '3')
    expect(within(form).getByRole('alert').textContent).toContain('from 1 to the number of people chosen')
    expect(submit.disabled).toBe(true)
    await userEvent.clear(needed)
    await userEvent.type(needed, '2')
    expect(submit.disabled).toBe(false)
    await userEvent.click(submit)
    expect(a.health.registerQuorum).toHaveBeenCalledWith(hex(1), [hex(0x22), hex(0x23)], 2)
    // A refusal is shown and the form stays; the second try registers it and the row passes.
    expect(await screen.findByText('A recovery quorum names 1 to 16 distinct members.', { exact: false })).toBeTruthy()
    await userEvent.click(submit)
    expect(await screen.findByText('This workspace has 1 admin device and a registered recovery quorum.')).toBeTruthy()
    expect(screen.queryByRole('form', { name: 'Register a recovery quorum' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Register a recovery quorum' })).toBeNull()
  })

  it('says so when the check has never run, and shows a failed call', async () => {
    const a = holder.current.api
    a.health.get.mockResolvedValue({ report: { at: 0, needsAction: false, findings: [] }, groups: [], storage: [], pending: [] })
    a.health.run.mockRejectedValue(new ApiError('relay/unreachable', 'The relay did not answer in time.'))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    expect(await screen.findByText('The health check has not run yet.')).toBeTruthy()
    // The chart is a chunk of its own, loaded the first time the panel opens.
    expect(await screen.findByText(/No storage figures yet/)).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Run now' }))
    expect((await screen.findByRole('alert')).textContent).toContain('relay/unreachable')
  })
})

const storageFull = finding({
  check: 'storage',
  title: 'Storage',
  state: 'action',
  severity: 'critical',
  finding: 'The workspace uses 100 % of its budget.',
  action: { id: 'compact_now', label: 'Compact now', command: 'weald compact --all --now' },
})

describe('HealthPanel resolve buttons and approvals', () => {
  it('compacts now after saying what it deletes; a sync action has Repair now', async () => {
    const a = holder.current.api
    const wrapMissing = finding({
      check: 'recovery_wrap',
      state: 'action',
      severity: 'warning',
      action: { id: 'sync', label: 'Sync', command: '' },
    })
    a.health.get.mockResolvedValue(state([wrapMissing, storageFull, adminsFailing]))
    a.health.resolve.mockResolvedValue(state([{ ...storageFull, state: 'ok', action: null }]))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    await screen.findByText('3 checks need action.', { exact: false })
    // The admin-devices row names its command only: no resolve button.
    const rows = within(screen.getByRole('list', { name: 'Findings' })).getAllByRole('listitem')
    expect(within(rows[2]).queryByRole('button', { name: 'Compact now' })).toBeNull()
    expect(within(rows[2]).queryByRole('button', { name: 'Repair now' })).toBeNull()
    expect(within(rows[0]).getByRole('button', { name: 'Repair now' })).toBeTruthy()
    let asked = ''
    vi.spyOn(window, 'confirm').mockImplementation((m) => ((asked = String(m)), false))
    await userEvent.click(screen.getByRole('button', { name: 'Compact now' }))
    expect(asked).toContain('deletes from the relay every message envelope below it')
    expect(a.health.resolve).not.toHaveBeenCalled()
    vi.spyOn(window, 'confirm').mockReturnValue(true)
    await userEvent.click(screen.getByRole('button', { name: 'Compact now' }))
    expect(a.health.resolve).toHaveBeenCalledWith(hex(1), 'compact_now')
    expect(await screen.findByText('Nothing needs action.', { exact: false })).toBeTruthy()
  })

  it('resolves a frozen retention chain after saying what it keeps', async () => {
    const a = holder.current.api
    const frozen = finding({
      check: 'frozen_retention_chain',
      title: 'Retention chains',
      state: 'action',
      severity: 'warning',
      finding: 'Two competing retention keys block compaction of #general until a member resolves them.',
      action: { id: 'resolve_chain', label: 'An admin keeps the key their own epochs derive', command: 'weald retention resolve CHANNEL' },
    })
    a.health.get.mockResolvedValue(state([frozen]))
    a.health.resolve.mockResolvedValue(state([{ ...frozen, state: 'ok', action: null }]))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    const row = within(await screen.findByRole('list', { name: 'Findings' })).getAllByRole('listitem')[0]
    expect(row.textContent).toContain('weald retention resolve CHANNEL')
    let asked = ''
    vi.spyOn(window, 'confirm').mockImplementation((m) => ((asked = String(m)), false))
    await userEvent.click(within(row).getByRole('button', { name: 'Resolve' }))
    expect(asked).toContain('discards the competing one')
    expect(a.health.resolve).not.toHaveBeenCalled()
    vi.spyOn(window, 'confirm').mockReturnValue(true)
    a.health.resolve.mockRejectedValueOnce(
      new ApiError('retention/resolve_already_approved', 'You already approved this resolution; another admin must approve it too.'),
    )
    await userEvent.click(within(row).getByRole('button', { name: 'Resolve' }))
    expect((await screen.findByRole('alert')).textContent).toContain('retention/resolve_already_approved')
    await userEvent.click(within(row).getByRole('button', { name: 'Resolve' }))
    expect(a.health.resolve).toHaveBeenCalledWith(hex(1), 'resolve_chain')
    expect(await screen.findByText('Nothing needs action.', { exact: false })).toBeTruthy()
  })

  it('lists retention changes waiting for approval and approves one', async () => {
    const a = holder.current.api
    const proposal = retentionProposal({ id: 'ab'.repeat(32), textDays: 60, mediaDays: 90 })
    a.health.get.mockResolvedValue(state([], [proposal]))
    a.health.approve.mockResolvedValue(state([], []))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    const sec = await screen.findByRole('region', { name: 'Retention changes waiting for approval' })
    expect(sec.textContent).toContain('#general: text 60d, media 90d; proposed by Dana; approved by Dana (1 of 2)')
    await userEvent.click(within(sec).getByRole('button', { name: 'Approve' }))
    expect(a.health.approve).toHaveBeenCalledWith(hex(1), proposal.id)
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Retention changes waiting for approval' })).toBeNull())
  })
})

describe('HealthPanel compact-now approval', () => {
  it('says what an approved compact-now deletes, and approves it', async () => {
    const a = holder.current.api
    const proposal = retentionProposal({
      id: 'cd'.repeat(32),
      destroy: true,
      checkpointAt: Date.UTC(2026, 11, 2, 9),
      expiresAt: Date.UTC(2026, 11, 3, 9),
    })
    a.health.get.mockResolvedValue(state([], [proposal]))
    a.health.approve.mockResolvedValue(state([], []))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    const sec = await screen.findByRole('region', { name: 'Retention changes waiting for approval' })
    expect(sec.textContent).toContain("#general: compact now: delete the channel's history on the relay below the checkpoint of ")
    expect(sec.textContent).toContain('(messages stay readable from the checkpoint)')
    expect(sec.textContent).not.toContain('text unlimited')
    await userEvent.click(within(sec).getByRole('button', { name: 'Approve' }))
    expect(a.health.approve).toHaveBeenCalledWith(hex(1), proposal.id)
  })
})

describe('HealthPanel frozen-chain resolution approval', () => {
  it("lists another admin's resolution with the epoch of the key it keeps, and approves it", async () => {
    const a = holder.current.api
    const proposal = retentionProposal({ id: 'ef'.repeat(32), resolve: true, resolveEpoch: 7, expiresAt: Date.UTC(2026, 11, 5, 9) })
    const other = retentionProposal({ id: '12'.repeat(32), resolve: true, resolveEpoch: 0, approvable: false, proposer: 'Sam', approvedBy: ['Sam'] })
    a.health.get.mockResolvedValue(state([], [proposal, other]))
    a.health.approve.mockResolvedValue(state([], []))
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    const sec = await screen.findByRole('region', { name: 'Retention changes waiting for approval' })
    const rows = within(sec).getAllByRole('listitem')
    expect(rows[0].textContent).toContain(
      '#general: resolve the frozen retention chain: keep the key of epoch 7 and discard the competing one(s), so compaction resumes, if approved before ' +
        new Date(Date.UTC(2026, 11, 5, 9)).toLocaleString() +
        '; proposed by Dana; approved by Dana (1 of 2)',
    )
    expect(rows[0].textContent).not.toContain('text unlimited')
    expect(rows[1].textContent).toContain("keep a key this device's chain does not hold")
    expect(within(rows[1]).queryByRole('button', { name: 'Approve' })).toBeNull()
    await userEvent.click(within(rows[0]).getByRole('button', { name: 'Approve' }))
    expect(a.health.approve).toHaveBeenCalledWith(hex(1), proposal.id)
  })
})

describe('formatBytes', () => {
  it("opens a channel's Retention dialog from its row in place of the panel, and reads the panel again after it", async () => {
    const a = holder.current.api
    a.health.get.mockResolvedValue(state([]))
    a.health.retention.mockResolvedValue({ channel: 'general', textDays: 0, mediaDays: 180, defaultPolicy: true, admin: false })
    render(<HealthPanel workspace={hex(1)} onClose={() => {}} />)
    const row = await screen.findByRole('row', { name: /#general/ })
    await userEvent.click(within(row).getByRole('button', { name: 'Retention…' }))
    const dialog = await screen.findByRole('dialog', { name: 'Retention of #general' })
    expect(a.health.retention).toHaveBeenCalledWith(hex(1), hex(0x10))
    expect(screen.queryByRole('dialog', { name: 'Encryption & health' })).toBeNull()
    await within(dialog).findByText("Only an admin can change a channel's retention.")
    await userEvent.click(within(dialog).getAllByRole('button', { name: 'Close' })[1])
    await screen.findByRole('dialog', { name: 'Encryption & health' })
    expect(a.health.get).toHaveBeenCalledTimes(2)
  })

  it('says bytes as the health check does', () => {
    expect([0, 999, 1500, 83_900_000, 3e12].map(formatBytes)).toEqual(['0 bytes', '999 bytes', '1.5 KB', '83.9 MB', '3.0 TB'])
  })
})
