import { beforeEach, describe, expect, it } from 'vitest'
import { act, renderHook, waitFor } from '@testing-library/react'
import { holder, makeApi, msg } from '../test/apiMock'
import type { Message } from '../lib/api'

vi.mock('../lib/api', async (orig) => (await import('../test/apiMock')).mockedModule(await orig<object>()))

import { useMessages } from './useMessages'

let log: Message[]
beforeEach(() => {
  log = [msg({ id: 'm1', text: 'hello', sentAt: 1000 })]
  holder.current = makeApi()
  holder.current.api.messages.list.mockImplementation(async () => log)
})

describe('useMessages', () => {
  // Go answers Send with the outbox entry (id out-…, pending) and logs the
  // message under its own id once it went out. When the change event's page
  // (already carrying the logged message) arrived before Send's answer, the
  // answer was appended as well: the message showed twice, once as
  // "Sending…", until the next change (seen in the chat-UI story under load).
  it('shows a message once when its page arrives before the answer to Send', async () => {
    const { result } = renderHook(() => useMessages('ws', 'general'))
    await waitFor(() => expect(result.current.messages).toHaveLength(1))
    let answer!: (m: Message) => void
    holder.current.api.messages.send.mockImplementation(() => new Promise<Message>((r) => (answer = r)))
    let sent!: Promise<void>
    act(() => {
      sent = result.current.send('typed') as Promise<void>
    })
    // The outbox sent it at once; the event's page carries the logged message.
    log = [...log, msg({ id: 'm2', text: 'typed', sentAt: 2000 })]
    await act(async () => holder.current.emit('messages', { workspace: 'ws', channel: 'general' }))
    await waitFor(() => expect(result.current.messages.map((m) => m.id)).toEqual(['m1', 'm2']))
    await act(async () => {
      answer(msg({ id: 'out-1', text: 'typed', sentAt: 2000, state: 'pending' }))
      await sent
    })
    expect(result.current.messages.map((m) => m.text)).toEqual(['hello', 'typed'])
    expect(result.current.outgoing).toEqual([])
  })

  it('shows the answer to Send at once when no newer page has arrived', async () => {
    const { result } = renderHook(() => useMessages('ws', 'general'))
    await waitFor(() => expect(result.current.messages).toHaveLength(1))
    holder.current.api.messages.send.mockResolvedValue(msg({ id: 'out-1', text: 'typed', sentAt: 2000, state: 'pending' }))
    await act(async () => {
      await result.current.send('typed')
    })
    expect(result.current.messages.map((m) => [m.text, m.state])).toEqual([
      ['hello', 'sent'],
      ['typed', 'pending'],
    ])
  })
})
