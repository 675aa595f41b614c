import { useCallback, useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Channel } from '../lib/api'
import { followList } from './followList'

/** useChannels keeps the channel list of one workspace, live from channels:changed. */
export function useChannels(ws: string | null) {
  const [channels, setChannels] = useState<Channel[]>([])
  const [error, setError] = useState<ApiError | null>(null)
  // A listing error is stale once a list arrives; an action's stays until the next action.
  const [, setListFailed] = useState(false)

  useEffect(() => {
    setChannels([])
    setError(null)
    if (!ws) return
    return followList<Channel[]>(
      (heard) => api.channels.onChanged((e) => e.workspace === ws && heard(e.channels)),
      () => api.channels.list(ws),
      (list) => {
        setChannels(list)
        setListFailed((failed) => {
          if (failed) setError(null)
          return false
        })
      },
      (e) => {
        setError(toApiError(e))
        setListFailed(true)
      },
    )
  }, [ws])

  const replace = (c: Channel) => setChannels((list) => list.map((x) => (x.id === c.id ? c : x)))
  const act = useCallback(async <T>(f: () => Promise<T>): Promise<T> => {
    setError(null)
    setListFailed(false)
    try {
      return await f()
    } catch (e) {
      const err = toApiError(e)
      setError(err)
      throw err
    }
  }, [])

  return {
    channels,
    error,
    clearError: () => setError(null),
    create: (name: string, admission: 'parent' | 'explicit') =>
      act(async () => {
        const c = await api.channels.create(ws!, name, admission)
        setChannels((list) => [...list.filter((x) => x.id !== c.id), c])
        return c
      }),
    renameLocal: (id: string, name: string) => act(async () => replace(await api.channels.renameLocal(ws!, id, name))),
    setMuted: (id: string, muted: boolean) => act(async () => replace(await api.channels.setMuted(ws!, id, muted))),
    moveLocal: (id: string, to: number) => act(async () => setChannels(await api.channels.moveLocal(ws!, id, to))),
    markRead: (id: string) => {
      setChannels((list) => list.map((x) => (x.id === id ? { ...x, unread: 0 } : x)))
      api.messages.markRead(ws!, id).catch(() => {})
    },
  }
}
