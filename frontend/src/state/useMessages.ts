import { useCallback, useEffect, useRef, useState } from 'react'
import { api, toApiError, type ApiError, type Message } from '../lib/api'

/** A message this device is sending or failed to send. */
export interface Outgoing {
  key: string
  text: string
  state: 'sending' | 'failed'
  error?: ApiError
}

/** useMessages holds one channel's history, live from message events, and the sends in flight. */
export function useMessages(ws: string | null, channel: string | null) {
  const [messages, setMessages] = useState<Message[]>([])
  const [outgoing, setOutgoing] = useState<Outgoing[]>([])
  const [error, setError] = useState<ApiError | null>(null)
  const [loading, setLoading] = useState(false)
  const seq = useRef(0)

  useEffect(() => {
    setMessages([])
    setOutgoing([])
    setError(null)
    if (!ws || !channel) return
    let live = true
    setLoading(true)
    // The list holds the log and this device's outbox: an outbox message
    // missing from it went out (it is in the log now) or was discarded.
    const merge = (list: Message[]) =>
      setMessages((prev) =>
        [...list, ...prev.filter((p) => p.state === 'sent' && !list.some((m) => m.id === p.id))].sort((a, b) => a.sentAt - b.sentAt),
      )
    const off = api.messages.onChanged(
      (e) =>
        live &&
        e.workspace === ws &&
        e.channel === channel &&
        api.messages.list(ws, channel).then(
          (l) => live && merge(l),
          () => {},
        ),
    )
    api.messages.list(ws, channel).then(
      (list) => {
        if (!live) return
        setLoading(false)
        merge(list)
      },
      (e) => {
        if (!live) return
        setLoading(false)
        setError(toApiError(e))
      },
    )
    return () => {
      live = false
      off()
    }
  }, [ws, channel])

  const sendOne = useCallback(
    async (key: string, text: string) => {
      if (!ws || !channel) return
      setOutgoing((o) => o.map((x) => (x.key === key ? { ...x, state: 'sending', error: undefined } : x)))
      try {
        // Back at once: the message waits in the outbox (pending) and goes
        // out by itself, now or once the connection is back.
        const m = await api.messages.send(ws, channel, text)
        setOutgoing((o) => o.filter((x) => x.key !== key))
        setMessages((list) => (list.some((x) => x.id === m.id) ? list : [...list, m]))
      } catch (e) {
        const err = toApiError(e)
        setOutgoing((o) => o.map((x) => (x.key === key ? { ...x, state: 'failed', error: err } : x)))
      }
    },
    [ws, channel],
  )

  const send = useCallback(
    (text: string) => {
      const key = `out-${++seq.current}`
      setOutgoing((o) => [...o, { key, text, state: 'sending' }])
      return sendOne(key, text)
    },
    [sendOne],
  )
  // key is a send that never reached the outbox, or a failed outbox message's id.
  const retry = useCallback(
    (key: string) => {
      const o = outgoing.find((x) => x.key === key)
      if (o) return sendOne(key, o.text)
      if (ws) return api.messages.retry(ws, key).catch((e) => setError(toApiError(e)))
    },
    [outgoing, sendOne, ws],
  )
  const discard = useCallback(
    (key: string) => {
      if (outgoing.some((x) => x.key === key)) return setOutgoing((o) => o.filter((x) => x.key !== key))
      if (!ws) return
      setMessages((list) => list.filter((m) => m.id !== key))
      api.messages.discard(ws, key).catch((e) => setError(toApiError(e)))
    },
    [outgoing, ws],
  )

  return { messages, outgoing, error, loading, send, retry, discard }
}
