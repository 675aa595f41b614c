import { beforeEach, describe, expect, it } from 'vitest'
import { act, renderHook, waitFor } from '@testing-library/react'
import { holder, makeApi, ws } from '../test/apiMock'

import { useWorkspaces } from './useWorkspaces'

beforeEach(() => {
  holder.current = makeApi()
  holder.current.api.workspaces.list.mockResolvedValue([])
})

// A workspace created on a relay that answers at once is connected before
// its recovery phrase is confirmed; the create result, taken earlier, said
// "not connected". Showing that result over what Go pushed since left
// "Not connected to the relay; reconnecting…" on screen for good while
// messages arrived (seen in the hosted and token-link stories).
describe('useWorkspaces', () => {
  it('keeps what Go pushed over an older create result', async () => {
    const { result } = renderHook(() => useWorkspaces())
    await waitFor(() => expect(result.current.loading).toBe(false))
    act(() => holder.current.emit('workspaces', [ws({ connected: true })]))
    act(() => result.current.added(ws({ connected: false, ready: false })))
    expect(result.current.current).toBe(ws().id)
    expect(result.current.workspaces).toHaveLength(1)
    expect(result.current.workspaces[0].connected).toBe(true)
    expect(result.current.workspaces[0].ready).toBe(true)
  })

  it('lists a created workspace Go has not pushed yet, and takes later pushes', async () => {
    const { result } = renderHook(() => useWorkspaces())
    await waitFor(() => expect(result.current.loading).toBe(false))
    act(() => result.current.added(ws({ connected: false })))
    expect(result.current.workspaces.map((w) => w.connected)).toEqual([false])
    act(() => holder.current.emit('workspaces', [ws({ connected: true })]))
    expect(result.current.workspaces.map((w) => w.connected)).toEqual([true])
  })
  // The list answer Go took before a workspace connected reached the page after
  // the push saying it had: taken as it came, it left "not connected" on screen.
  it('keeps a pushed list over the answer to an earlier request', async () => {
    let answer!: (l: ReturnType<typeof ws>[]) => void
    holder.current.api.workspaces.list.mockReturnValue(new Promise((r) => (answer = r)))
    const { result } = renderHook(() => useWorkspaces())
    act(() => holder.current.emit('workspaces', [ws({ connected: true })]))
    await act(async () => answer([ws({ connected: false })]))
    expect(result.current.workspaces.map((w) => w.connected)).toEqual([true])
    expect(result.current.loading).toBe(false)
  })
})
