import { beforeEach, describe, expect, it } from 'vitest'
import { act, renderHook, waitFor } from '@testing-library/react'
import { chan, defaults, holder, makeApi, ws } from '../test/apiMock'
import type { Channel } from '../lib/api'

import { useChannels } from './useChannels'

beforeEach(() => {
  holder.current = makeApi()
})

// A list answer that Go took before a channel was joined can reach the page
// after the channels:changed event that adds the channel. Taken as it came, it
// put back the list without the channel, and nothing brought it back until the
// next change: a paired laptop never showed #plans in a loaded CI run.
describe('useChannels', () => {
  it('keeps a pushed list over the answer to an earlier request', async () => {
    let answer!: (l: Channel[]) => void
    holder.current.api.channels.list.mockReturnValue(new Promise<Channel[]>((r) => (answer = r)))
    const { result } = renderHook(() => useChannels(ws().id))
    const plans = chan({ name: 'plans' })
    act(() => holder.current.emit('channels', { workspace: ws().id, channels: [...defaults(), plans] }))
    expect(result.current.channels.map((c) => c.name)).toContain('plans')
    await act(async () => answer(defaults()))
    expect(result.current.channels.map((c) => c.name)).toEqual(['general', 'activity', 'plans'])
  })

  it('takes the answer when no event came first, and later pushes', async () => {
    holder.current.api.channels.list.mockResolvedValue(defaults())
    const { result } = renderHook(() => useChannels(ws().id))
    await waitFor(() => expect(result.current.channels).toHaveLength(2))
    act(() => holder.current.emit('channels', { workspace: ws().id, channels: [...defaults(), chan({ name: 'plans' })] }))
    expect(result.current.channels).toHaveLength(3)
    act(() => holder.current.emit('channels', { workspace: 'another', channels: [] }))
    expect(result.current.channels).toHaveLength(3)
  })

  it('says a failed listing, and drops the failure once a push brought the list', async () => {
    let fail!: (e: unknown) => void
    holder.current.api.channels.list.mockReturnValue(new Promise<Channel[]>((_, j) => (fail = j)))
    const { result } = renderHook(() => useChannels(ws().id))
    act(() => holder.current.emit('channels', { workspace: ws().id, channels: defaults() }))
    await act(async () => fail({ code: 'relay/unreachable', message: 'The relay cannot be reached.' }))
    expect(result.current.error).toBeNull()
    expect(result.current.channels).toHaveLength(2)
  })
})
