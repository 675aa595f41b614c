import { describe, expect, it } from 'vitest'
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type Message } from '../lib/api'
import { defaults } from '../test/apiMock'
import { MessagePane } from './MessagePane'

const t0 = new Date(2026, 0, 10, 9, 0).getTime()
const mine = (p: Partial<Message> = {}): Message => ({
  id: 'm1',
  channel: 'c',
  author: 'Ada',
  mine: true,
  text: 'teh draft',
  sentAt: t0,
  state: 'sent',
  ...p,
})

function pane(messages: Message[], own = { onEdit: vi.fn().mockResolvedValue(undefined), onDelete: vi.fn().mockResolvedValue(undefined) }) {
  render(
    <MessagePane
      channel={defaults()[0]}
      messages={messages}
      outgoing={[]}
      loading={false}
      error={null}
      onSend={vi.fn()}
      onRetry={vi.fn()}
      onDiscard={vi.fn()}
      own={own}
    />,
  )
  return own
}

describe('own message actions', () => {
  it('edits inline: Enter saves the new text, Escape cancels', async () => {
    const own = pane([mine(), mine({ id: 'm2', mine: false, author: 'Ben', text: 'not yours', sentAt: t0 + 1 })])
    const log = screen.getByRole('log', { name: 'Messages' })
    // Only your message offers them.
    expect(within(log).getAllByRole('button', { name: 'Edit message' })).toHaveLength(1)
    await userEvent.click(screen.getByRole('button', { name: 'Edit message' }))
    const field = screen.getByRole('textbox', { name: 'Edit message' })
    expect(document.activeElement).toBe(field)
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('textbox', { name: 'Edit message' })).toBeNull()
    expect(own.onEdit).not.toHaveBeenCalled()
    await userEvent.click(screen.getByRole('button', { name: 'Edit message' }))
    await userEvent.clear(screen.getByRole('textbox', { name: 'Edit message' }))
    await userEvent.type(screen.getByRole('textbox', { name: 'Edit message' }), 'the draft{Enter}')
    expect(own.onEdit).toHaveBeenCalledWith('m1', 'the draft')
    expect(screen.queryByRole('textbox', { name: 'Edit message' })).toBeNull()
  })

  it('keeps the field and says why when an edit is refused', async () => {
    pane([mine()], {
      onEdit: vi
        .fn()
        .mockRejectedValue(
          new ApiError('docs/earlier_epoch', 'this message was sent before the channel’s keys last changed, so it can only be deleted, not edited'),
        ),
      onDelete: vi.fn(),
    })
    await userEvent.click(screen.getByRole('button', { name: 'Edit message' }))
    await userEvent.type(screen.getByRole('textbox', { name: 'Edit message' }), '!{Enter}')
    expect((await screen.findByRole('alert')).textContent).toMatch(/only be deleted, not edited docs\/earlier_epoch$/)
    expect(screen.getByRole('textbox', { name: 'Edit message' })).toBeTruthy()
  })

  it('deletes after asking, and marks an edited message', async () => {
    const own = pane([mine({ edited: true })])
    expect(screen.getByText('(edited)')).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Delete message' }))
    const ask = screen.getByRole('group', { name: 'Delete this message?' })
    await userEvent.click(within(ask).getByRole('button', { name: 'Cancel' }))
    expect(own.onDelete).not.toHaveBeenCalled()
    await userEvent.click(screen.getByRole('button', { name: 'Delete message' }))
    await userEvent.click(within(screen.getByRole('group', { name: 'Delete this message?' })).getByRole('button', { name: 'Delete' }))
    expect(own.onDelete).toHaveBeenCalledWith('m1')
  })

  it('shows an edit or delete waiting in the outbox on its message, and a refused one with retry', async () => {
    const onRetry = vi.fn()
    const onDiscard = vi.fn()
    render(
      <MessagePane
        channel={defaults()[0]}
        messages={[
          mine({ text: 'fixed offline', edited: true, state: 'pending', change: 'edit' }),
          mine({ id: 'm2', text: 'going away', sentAt: t0 + 60_000, state: 'pending', change: 'delete' }),
          mine({
            id: 'm3',
            text: 'refused edit',
            sentAt: t0 + 120_000,
            state: 'failed',
            change: 'edit',
            error: new ApiError('docs/earlier_epoch', 'only be deleted, not edited'),
          }),
        ]}
        outgoing={[]}
        loading={false}
        error={null}
        onSend={vi.fn()}
        onRetry={onRetry}
        onDiscard={onDiscard}
        own={{ onEdit: vi.fn(), onDelete: vi.fn() }}
      />,
    )
    expect(screen.getByText('Edit waiting to send…')).toBeTruthy()
    expect(screen.getByText('Deleting…')).toBeTruthy()
    expect(screen.getByText('Edit not sent')).toBeTruthy()
    expect(screen.getByText('going away').closest('.message-text')?.getAttribute('data-change')).toBe('delete')
    // A message whose delete waits offers no more edits; the others still do.
    expect(screen.getAllByRole('button', { name: 'Edit message' })).toHaveLength(2)
    await userEvent.click(screen.getByRole('button', { name: 'Send again' }))
    expect(onRetry).toHaveBeenCalledWith('m3')
  })
})
