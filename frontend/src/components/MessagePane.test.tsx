import { describe, expect, it, vi } from 'vitest'
import { act, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Message } from '../lib/api'
import { chan, defaults } from '../test/apiMock'
import { MessagePane } from './MessagePane'

const t0 = new Date(2026, 0, 10, 9, 0).getTime()
const m = (i: number, author = 'Ada', at = t0 + i * 60_000): Message => ({
  id: `m${i}`,
  channel: 'c',
  author,
  mine: false,
  text: `message ${i}`,
  sentAt: at,
  state: 'sent',
})

function pane(props: Partial<Parameters<typeof MessagePane>[0]> = {}) {
  return (
    <MessagePane
      channel={defaults()[0]}
      messages={[]}
      outgoing={[]}
      loading={false}
      error={null}
      onSend={vi.fn()}
      onRetry={vi.fn()}
      onDiscard={vi.fn()}
      {...props}
    />
  )
}

describe('MessagePane', () => {
  it('shows one name per run of an author and a separator per day', () => {
    render(pane({ messages: [m(1), m(2), m(3, 'Ben'), m(4, 'Ben', t0 + 86_400_000)] }))
    const log = screen.getByRole('log', { name: 'Messages' })
    expect(within(log).getAllByText('Ada', { selector: '.author' })).toHaveLength(1)
    expect(within(log).getAllByText('Ben', { selector: '.author' })).toHaveLength(2)
    expect(
      within(log)
        .getAllByRole('separator')
        .map((s) => s.getAttribute('aria-label')),
    ).toHaveLength(2)
    // A grouped message still carries its author for screen readers.
    expect(within(log).getByText('message 2').textContent).toBe('Ada: message 2')
  })

  it('shows a join notice as a line of its own, not as a message', () => {
    render(pane({ messages: [m(1), { ...m(2, 'Sam'), kind: 'joined', text: '' }, m(3, 'Sam')] }))
    const log = screen.getByRole('log', { name: 'Messages' })
    const notice = log.querySelector('li.notice')
    expect(notice?.textContent).toMatch(/^Sam joined/)
    // Sam's first message after it carries his name again.
    expect(within(log).getAllByText('Sam', { selector: '.message .author' })).toHaveLength(1)
  })

  it('offers a "New messages" marker when the reader has scrolled up, and goes there', async () => {
    const { rerender } = render(pane({ messages: [m(1), m(2)] }))
    const log = screen.getByRole('log', { name: 'Messages' })
    // The reader scrolls up: jsdom reports a tall list seen from its top.
    Object.defineProperty(log, 'scrollHeight', { configurable: true, value: 5000 })
    log.scrollTop = 0
    act(() => log.dispatchEvent(new Event('scroll')))
    rerender(pane({ messages: [m(1), m(2), m(3, 'Ben')] }))
    const marker = await screen.findByRole('button', { name: 'New messages ↓' })
    await userEvent.click(marker)
    expect(screen.queryByRole('button', { name: 'New messages ↓' })).toBeNull()
    expect(log.scrollTop).toBe(5000)
  })

  it('keeps a reader who scrolled up where they are when their own message arrives from the relay', async () => {
    const sending = { key: 'o1', text: 'mine', state: 'sending' as const }
    const { rerender } = render(pane({ messages: [m(1), m(2)], outgoing: [sending] }))
    const log = screen.getByRole('log', { name: 'Messages' })
    Object.defineProperty(log, 'scrollHeight', { configurable: true, value: 5000 })
    log.scrollTop = 0
    act(() => log.dispatchEvent(new Event('scroll')))
    // The relay has it: it moves from the sending rows into the list.
    rerender(pane({ messages: [m(1), m(2), { ...m(3), mine: true, text: 'mine' }], outgoing: [] }))
    expect(log.scrollTop).toBe(0)
    expect(screen.queryByRole('button', { name: 'New messages ↓' })).toBeNull()
    // Someone else's message after it is news: the reader is still up there.
    rerender(pane({ messages: [m(1), m(2), { ...m(3), mine: true, text: 'mine' }, m(4, 'Ben')], outgoing: [] }))
    expect(await screen.findByRole('button', { name: 'New messages ↓' })).toBeTruthy()
    expect(log.scrollTop).toBe(0)
    // Sending takes the reader down to what they wrote.
    rerender(pane({ messages: [m(1), m(2), { ...m(3), mine: true, text: 'mine' }, m(4, 'Ben')], outgoing: [{ ...sending, key: 'o2' }] }))
    expect(log.scrollTop).toBe(5000)
    expect(screen.queryByRole('button', { name: 'New messages ↓' })).toBeNull()
  })

  it('follows the newest message while the reader is at the bottom', () => {
    const { rerender } = render(pane({ messages: [m(1)] }))
    rerender(pane({ messages: [m(1), m(2, 'Ben')] }))
    expect(screen.queryByRole('button', { name: 'New messages ↓' })).toBeNull()
  })

  it('asks for older messages near the top when there are more', () => {
    const onOlder = vi.fn()
    render(pane({ messages: [m(1), m(2)], hasOlder: true, onOlder }))
    const log = screen.getByRole('log', { name: 'Messages' })
    log.scrollTop = 0
    act(() => log.dispatchEvent(new Event('scroll')))
    expect(onOlder).toHaveBeenCalled()
  })

  it('does not ask #activity to say hello', () => {
    render(pane({ channel: defaults()[1] }))
    expect(screen.getByText(/Nothing in #activity yet/).textContent).not.toMatch(/hello/i)
    render(pane({ channel: chan({ name: 'design' }) }))
    expect(screen.getByText('No messages in #design yet. Say hello.')).toBeTruthy()
  })

  it('focuses the composer of a channel just created', () => {
    const c = chan({ name: 'design' })
    render(pane({ channel: c, focusKey: c.id }))
    expect(document.activeElement).toBe(screen.getByLabelText('Message'))
  })
})
