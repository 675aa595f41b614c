import { describe, expect, it, vi } from 'vitest'
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { chan, defaults, hex, msg } from '../test/apiMock'
import { mentionQuery, resolveMentions, segments } from '../state/mentions'
import { ChannelList } from './ChannelList'
import { MessagePane } from './MessagePane'

const people = [
  { user: hex(0xb), name: 'Ben' },
  { user: hex(0xd), name: 'Dana Smith' },
  { user: hex(0xe), name: 'Bea' },
]

function pane(onSend = vi.fn(), messages = [] as ReturnType<typeof msg>[]) {
  return (
    <MessagePane
      channel={{ ...defaults()[0], joined: true }}
      messages={messages}
      outgoing={[]}
      loading={false}
      error={null}
      onSend={onSend}
      onRetry={vi.fn()}
      onDiscard={vi.fn()}
      loadMembers={() => Promise.resolve(people)}
    />
  )
}

describe('mentions', () => {
  it('opens the member list on @, moves with the arrows, picks with Enter and sends the user id', async () => {
    const onSend = vi.fn()
    render(pane(onSend))
    const box = screen.getByLabelText('Message')
    await userEvent.type(box, 'hi @b')
    const list = await screen.findByRole('listbox', { name: 'People to mention' })
    expect(
      within(list)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['@Ben', '@Bea'])
    expect(within(list).getByRole('option', { name: '@Ben' }).getAttribute('aria-selected')).toBe('true')
    await userEvent.keyboard('{ArrowDown}')
    expect(within(list).getByRole('option', { name: '@Bea' }).getAttribute('aria-selected')).toBe('true')
    await userEvent.keyboard('{Enter}')
    expect(screen.queryByRole('listbox')).toBeNull()
    expect((box as HTMLInputElement).value).toBe('hi @Bea ')
    expect(onSend).not.toHaveBeenCalled() // Enter picked; it did not send
    await userEvent.type(box, 'and @da')
    await screen.findByRole('option', { name: '@Dana Smith' })
    await userEvent.keyboard('{Tab}')
    expect((box as HTMLInputElement).value).toBe('hi @Bea and @Dana Smith ')
    await userEvent.keyboard('{Enter}')
    expect(onSend).toHaveBeenCalledWith('hi @Bea and @Dana Smith', [
      { user: hex(0xe), name: 'Bea', start: 3, end: 7 },
      { user: hex(0xd), name: 'Dana Smith', start: 12, end: 23 },
    ])
  })

  it('closes the list with Escape and sends a typed @name without a picked person as text only', async () => {
    const onSend = vi.fn()
    render(pane(onSend))
    const box = screen.getByLabelText('Message')
    await userEvent.type(box, '@Be')
    await screen.findByRole('listbox')
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('listbox')).toBeNull()
    await userEvent.type(box, 'n{Enter}')
    expect(onSend).toHaveBeenCalledWith('@Ben', [])
  })

  it('shows a mention under the current name, highlighted, and marks one of you', () => {
    const m = msg({
      id: 'm1',
      text: 'ask @Sam and @Old',
      mentions: [
        { user: hex(0x5), name: 'Sam', start: 4, end: 8, you: true },
        { user: hex(0x6), name: 'Dana', start: 13, end: 17 },
      ],
      mentionsMe: true,
    })
    render(pane(vi.fn(), [m]))
    const log = screen.getByRole('log', { name: 'Messages' })
    const you = within(log).getByText('@Sam')
    expect(you.classList.contains('mention')).toBe(true)
    expect(you.hasAttribute('data-you')).toBe(true)
    expect(within(log).getByText('@Dana').hasAttribute('data-you')).toBe(false) // renamed since: the name now
    expect(log.querySelector('li[data-mentions-me]')).not.toBeNull()
  })

  it('gives a channel that mentions you a badge of its own, also when it is muted', () => {
    const list = [
      chan({ id: hex(1), name: 'design', unread: 3, mentions: 1 }),
      chan({ id: hex(2), name: 'ops', muted: true, unread: 2, mentions: 2 }),
    ]
    render(
      <ChannelList channels={list} onSelect={vi.fn()} onNew={vi.fn()} actions={{ renameLocal: vi.fn(), setMuted: vi.fn(), moveLocal: vi.fn() }} />,
    )
    expect(screen.getByRole('button', { name: '#design, 1 mention, 3 unread' }).textContent).toContain('@1')
    expect(screen.getByRole('button', { name: '#ops, muted, 2 mentions' }).textContent).toContain('@2')
  })

  it('finds queries, keeps spans a writer left, and never lets a bad span change other text', () => {
    expect(mentionQuery('hi @da', 6)).toEqual({ at: 3, query: 'da' })
    expect(mentionQuery('mail a@b', 8)).toBeNull()
    expect(mentionQuery('@a b c', 6)).toBeNull()
    expect(resolveMentions('hi @Benny @Ben', [people[0]])).toEqual([{ user: hex(0xb), name: 'Ben', start: 10, end: 14 }])
    expect(resolveMentions('hi Ben', [people[0]])).toEqual([])
    const bad = [
      { user: 'x', name: 'X', start: 5, end: 2 },
      { user: 'y', name: 'Y', start: 0, end: 99 },
    ]
    expect(segments('plain text', bad)).toEqual([{ kind: 'text', text: 'plain text' }])
  })
})
