import { describe, expect, it, beforeEach, vi } from 'vitest'
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type ChannelRetention, type RetentionChange } from '../lib/api'
import { hex, holder, makeApi } from '../test/apiMock'

vi.mock('../lib/api', async (orig) => (await import('../test/apiMock')).mockedModule(await orig<object>()))

import { RetentionDialog } from './RetentionDialog'

const ws = hex(1)
const group = hex(0x10)

const defaults = (p: Partial<ChannelRetention> = {}): ChannelRetention => ({
  channel: 'general',
  textDays: 0,
  mediaDays: 180,
  defaultPolicy: true,
  admin: true,
  ...p,
})

/** change: what Go answers for these windows: 12,034 messages older than 30 days, 100 older than 365. */
const change = (textDays: number, mediaDays: number, p: Partial<RetentionChange> = {}): RetentionChange => ({
  channel: 'general',
  textDays,
  mediaDays,
  impact: textDays === 30 ? { messages: 12034, bytes: 3_100_000 } : textDays === 365 ? { messages: 1, bytes: 0 } : { messages: 0, bytes: 0 },
  applied: false,
  active: false,
  published: false,
  note: '',
  ...p,
})

beforeEach(() => {
  holder.current = makeApi()
  const h = holder.current.api.health
  h.previewRetention.mockImplementation((_ws: string, _ch: string, t: number, m: number) => Promise.resolve(change(t, m)))
})

function open(info: ChannelRetention = defaults()) {
  holder.current.api.health.retention.mockResolvedValue(info)
  const onClose = vi.fn()
  render(<RetentionDialog workspace={ws} channel={group} label="#general" onClose={onClose} />)
  return onClose
}

const impact = async (text: RegExp | string) => {
  await waitFor(() => expect(screen.getByRole('status', { name: 'Impact' }).textContent).toMatch(text))
}

describe('RetentionDialog', () => {
  it('shows the current windows and the impact as a number while the admin edits, then saves a change in force', async () => {
    const h = holder.current.api.health
    h.setRetention.mockImplementation((_ws: string, _ch: string, t: number, m: number) =>
      Promise.resolve(change(t, m, { applied: true, active: true, published: true })),
    )
    open()
    expect((await screen.findByLabelText('Current retention')).textContent).toBe('Text is kept without limit, media 180 days (the defaults).')
    await impact('Text is kept without limit: no message in #general would be deleted.')
    expect(h.retention).toHaveBeenCalledWith(ws, group)
    expect(h.previewRetention).toHaveBeenLastCalledWith(ws, group, 0, 180)

    await userEvent.click(screen.getAllByLabelText('Delete after')[0])
    await userEvent.type(screen.getByLabelText('Text messages: days'), '365')
    await impact(
      "1 message is older than 365 days. The relay deletes it, text included, at the first compaction 365 days after the channel's next checkpoint, so people who join later do not read it; members keep their own copies.",
    )
    await userEvent.clear(screen.getByLabelText('Text messages: days'))
    await userEvent.type(screen.getByLabelText('Text messages: days'), '30')
    await impact(
      "12,034 messages (about 3.1 MB of envelopes on the relay) are older than 30 days. The relay deletes them, text included, at the first compaction 30 days after the channel's next checkpoint, so people who join later do not read them; members keep their own copies.",
    )
    expect(h.previewRetention).toHaveBeenLastCalledWith(ws, group, 30, 180)
    await userEvent.clear(screen.getByLabelText('Media: days'))
    await userEvent.type(screen.getByLabelText('Media: days'), '90')
    await waitFor(() => expect(h.previewRetention).toHaveBeenLastCalledWith(ws, group, 30, 90))
    const statement = screen.getByText(/Saving sets #general to keep text 30 days and media 90 days, for everyone in it\./).textContent
    expect(statement).toContain('cannot be brought back')
    // Issue 14: the text window removes the text from the relay, not from members' devices.
    expect(statement).toContain("The channel's checkpoints then leave out the days older than the text window")
    expect(statement).toContain('text included')
    expect(statement).toContain('Members keep their own copies on their devices.')
    expect(statement).not.toContain('does not yet remove')
    expect(h.setRetention).not.toHaveBeenCalled()

    await userEvent.click(screen.getByRole('button', { name: 'Save' }))
    expect(h.setRetention).toHaveBeenCalledWith(ws, group, 30, 90)
    expect((await screen.findByRole('status', { name: 'Saved' })).textContent).toBe('In force: #general keeps text 30 days and media 90 days.')
    expect(screen.queryByRole('form', { name: 'New retention' })).toBeNull()
  })

  it('says a change waits for a second admin when another admin must approve it', async () => {
    const h = holder.current.api.health
    h.setRetention.mockResolvedValue(change(30, 0, { applied: true }))
    open(defaults({ textDays: 30, mediaDays: 90, defaultPolicy: false }))
    await impact(/^12,034 messages/)
    await userEvent.click(screen.getAllByLabelText('Keep without limit')[1])
    await userEvent.click(screen.getByRole('button', { name: 'Save' }))
    expect(h.setRetention).toHaveBeenCalledWith(ws, group, 30, 0)
    expect((await screen.findByRole('status', { name: 'Saved' })).textContent).toBe(
      'Proposed: text 30 days, media without limit. It waits for a second admin\'s approval and is listed under "Waiting for approval" in Encryption & health.',
    )
  })

  it('refuses a window out of range before asking Go, and shows a refusal from Go in one sentence', async () => {
    const h = holder.current.api.health
    h.setRetention.mockRejectedValue(new ApiError('retention/not_admin', 'Only an admin can change retention or compact now.'))
    open(defaults({ textDays: 30, mediaDays: 90, defaultPolicy: false }))
    await impact(/^12,034 messages/)
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement
    expect(save.disabled).toBe(true) // nothing changed yet
    const text = screen.getByLabelText('Text messages: days')
    await userEvent.clear(text)
    await userEvent.type(text, '40000')
    expect(screen.getByRole('alert').textContent).toBe('A window is kept without limit or deletes after 1 to 36,500 days.')
    expect(save.disabled).toBe(true)
    expect(h.previewRetention.mock.calls.some((c: unknown[]) => c[2] === 40000)).toBe(false)

    await userEvent.clear(text)
    await userEvent.type(text, '365')
    await impact(
      "1 message is older than 365 days. The relay deletes it, text included, at the first compaction 365 days after the channel's next checkpoint, so people who join later do not read it; members keep their own copies.",
    )
    await userEvent.click(save)
    expect(h.setRetention).toHaveBeenCalledWith(ws, group, 365, 90)
    expect((await screen.findByRole('alert')).textContent).toBe('Only an admin can change retention or compact now. retention/not_admin')
    expect(screen.queryByRole('status', { name: 'Saved' })).toBeNull()
    expect(screen.getByRole('form', { name: 'New retention' })).toBeTruthy()
  })

  it('shows a member the windows read-only, asking Go for no impact', async () => {
    const h = holder.current.api.health
    const onClose = open(defaults({ admin: false }))
    expect((await screen.findByLabelText('Current retention')).textContent).toBe('Text is kept without limit, media 180 days (the defaults).')
    expect(screen.getByText("Only an admin can change a channel's retention.")).toBeTruthy()
    expect(screen.queryByRole('form', { name: 'New retention' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull()
    expect(screen.queryByRole('radio')).toBeNull()
    await userEvent.click(screen.getAllByRole('button', { name: 'Close' })[1])
    expect(onClose).toHaveBeenCalled()
    expect(h.previewRetention).not.toHaveBeenCalled()
  })
})
