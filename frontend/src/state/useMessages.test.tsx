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
  // message under its own id once it went out; it tells of the change before
  // the answer to Send comes back. A page taken in between listed the message
  // beside its "Sending…" line: twice on screen (the hosted story met it under
  // load, after an earlier fix that kept only the answer from being added).
  it('shows a message once when its page arrives before the answer to Send', async () => {
    const { result } = renderHook(() => useMessages('ws', 'general'))
    await waitFor(() => expect(result.current.messages).toHaveLength(1))
    const shown = () => [...result.current.messages.map((m) => m.text), ...result.current.outgoing.map((o) => o.text)]
    let answer!: (m: Message) => void
    holder.current.api.messages.send.mockImplementation(() => new Promise<Message>((r) => (answer = r)))
    let sent!: Promise<void>
    act(() => {
      sent = result.current.send('typed') as Promise<void>
    })
    expect(shown()).toEqual(['hello', 'typed'])
    // The outbox sent it at once; the event's page carries the logged message.
    log = [...log, msg({ id: 'm2', text: 'typed', sentAt: 2000 })]
    const asked = holder.current.api.messages.list.mock.calls.length
    await act(async () => holder.current.emit('messages', { workspace: 'ws', channel: 'general' }))
    await waitFor(() => expect(holder.current.api.messages.list.mock.calls.length).toBe(asked + 1))
    await act(async () => {})
    expect(shown()).toEqual(['hello', 'typed'])
    await act(async () => {
      answer(msg({ id: 'out-1', text: 'typed', sentAt: 2000, state: 'pending' }))
      await sent
    })
    // The page is asked for again once the answer is in: the logged copy replaces the pending one.
    await waitFor(() => expect(result.current.messages.map((m) => m.id)).toEqual(['m1', 'm2']))
    expect(shown()).toEqual(['hello', 'typed'])
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
  // Pages are calls over the bridge, answered in any order. An older page
  // (the message still pending) that came back after a newer one (the
  // message sent) put the pending copy back, and deleting that copy dropped
  // the row at once instead of showing "Deleting…" (the offline story met
  // it in CI).
  it('keeps the newest page when an older one comes back after it', async () => {
    const { result } = renderHook(() => useMessages('ws', 'general'))
    await waitFor(() => expect(result.current.messages).toHaveLength(1))
    const answers: ((list: Message[]) => void)[] = []
    holder.current.api.messages.list.mockImplementation(() => new Promise<Message[]>((r) => answers.push(r)))
    await act(async () => holder.current.emit('messages', { workspace: 'ws', channel: 'general' }))
    await act(async () => holder.current.emit('messages', { workspace: 'ws', channel: 'general' }))
    await waitFor(() => expect(answers).toHaveLength(2))
    await act(async () => answers[1]([...log, msg({ id: 'm2', text: 'typed', sentAt: 2000 })]))
    await waitFor(() =>
      expect(result.current.messages.map((m) => [m.id, m.state])).toEqual([
        ['m1', 'sent'],
        ['m2', 'sent'],
      ]),
    )
    await act(async () => answers[0]([...log, msg({ id: 'out-1', text: 'typed', sentAt: 2000, state: 'pending' })]))
    await act(async () => {})
    expect(result.current.messages.map((m) => [m.id, m.state])).toEqual([
      ['m1', 'sent'],
      ['m2', 'sent'],
    ])
  })
})
