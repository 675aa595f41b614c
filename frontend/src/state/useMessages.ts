import { useCallback, useEffect, useRef, useState } from 'react'
import { api, toApiError, type ApiError, type MentionRef, type Message } from '../lib/api'
import { mergeNewest, mergeOlder } from './history'
import { newest } from './newest'

/** A message this device is sending or failed to send. */
export interface Outgoing {
  key: string
  text: string
  mentions?: MentionRef[]
  state: 'sending' | 'failed'
  error?: ApiError
}

/** Sends in flight in one channel, and whether a newest page waits for them (useMessages). */
interface Flight {
  sending: number
  wanted: boolean
  refresh: () => void
}

/** Messages per call over the bridge: a long channel arrives a page at a time. */
export const PAGE = 200

/**
 * useMessages holds a window of one channel's history — the newest page on
 * open, older pages as the reader scrolls up (loadOlder), live from message
 * events, back to target when one is given — with this device's outbox (pending and failed messages, which
 * Go lists after the log) and the sends in flight.
 */
export function useMessages(ws: string | null, channel: string | null, target?: string) {
  const [messages, setMessages] = useState<Message[]>([])
  const [hasOlder, setHasOlder] = useState(false)
  const [outgoing, setOutgoing] = useState<Outgoing[]>([])
  const [error, setError] = useState<ApiError | null>(null)
  const [loading, setLoading] = useState(false)
  const seq = useRef(0)
  const older = useRef<{ key: string; busy: boolean; first: string; more: boolean }>({ key: '', busy: false, first: '', more: false })
  // Sends in flight, per channel. Go puts a message in the outbox and tells of the change
  // before the answer to Send comes back, so a page taken meanwhile would list the message
  // beside its "Sending…" line: twice on screen. While a send is in flight a newest page is
  // not taken but asked for again once the last send has its answer.
  const flights = useRef<Flight>({ sending: 0, wanted: false, refresh: () => {} })

  useEffect(() => {
    setMessages([])
    setHasOlder(false)
    setOutgoing([])
    setError(null)
    const key = `${ws}/${channel}`
    older.current = { key, busy: false, first: '', more: false }
    const flight: Flight = { sending: 0, wanted: false, refresh: () => {} }
    flights.current = flight
    if (!ws || !channel) return
    let live = true
    let fresh = true
    setLoading(true)
    const take = (list: Message[], more: boolean) => {
      const first = fresh
      fresh = false
      setMessages((prev) => {
        const next = mergeNewest(prev, list, more)
        if (first || next.reset) {
          older.current.more = more
          setHasOlder(more)
        }
        older.current.first = next.list[0]?.id ?? ''
        return next.list
      })
    }
    // A page answered while a send is in flight is asked for again after it.
    const settled = (p: { messages: Message[]; more: boolean }) => {
      if (!live) return
      if (flight.sending > 0) flight.wanted = true
      else take(p.messages, p.more)
    }
    // Pages are answered in any order: only the answer to the page asked
    // for last counts, so an older one (a message still pending) never
    // replaces a newer one (the message sent). Whichever answer counts
    // ends the loading; a refresh's error is not shown (the next event asks again).
    const latest = newest()
    const page = () => api.messages.page(ws, channel, '', PAGE)
    const shown = (p: { messages: Message[]; more: boolean }) => {
      if (!live) return
      setLoading(false)
      settled(p)
    }
    flight.refresh = () => latest(page(), shown, () => live && setLoading(false))
    const off = api.messages.onChanged((e) => live && e.workspace === ws && e.channel === channel && flight.refresh())
    latest(page(), shown, (e) => {
      if (!live) return
      setLoading(false)
      setError(toApiError(e))
    })
    return () => {
      live = false
      off()
    }
  }, [ws, channel])

  /** loadOlder fetches the page before the oldest message held; one call at a time. */
  const loadOlder = useCallback(async () => {
    const o = older.current
    if (!ws || !channel || o.busy || !o.more || !o.first) return
    o.busy = true
    try {
      const p = await api.messages.page(ws, channel, o.first, PAGE)
      if (older.current !== o) return // the channel changed meanwhile
      setMessages((prev) => {
        const list = mergeOlder(prev, p.messages)
        o.first = list[0]?.id ?? ''
        return list
      })
      o.more = p.more
      setHasOlder(p.more)
    } catch (e) {
      if (older.current === o) setError(toApiError(e))
    } finally {
      o.busy = false
    }
  }, [ws, channel])

  // A message to show (a search result): older pages load until it is held or the history ends.
  useEffect(() => {
    if (target && !loading && hasOlder && !messages.some((m) => m.id === target)) void loadOlder()
  }, [target, loading, hasOlder, messages, loadOlder])

  const sendOne = useCallback(
    async (key: string, text: string, mentions?: MentionRef[]) => {
      if (!ws || !channel) return
      setOutgoing((o) => o.map((x) => (x.key === key ? { ...x, state: 'sending', error: undefined } : x)))
      const flight = flights.current
      flight.sending++
      try {
        // Back at once: the message waits in the outbox (pending) and goes
        // out by itself, now or once the connection is back.
        const m = await (mentions && mentions.length > 0 ? api.messages.send(ws, channel, text, mentions) : api.messages.send(ws, channel, text))
        if (flights.current !== flight) return // the channel changed meanwhile
        setOutgoing((o) => o.filter((x) => x.key !== key))
        setMessages((list) => (list.some((x) => x.id === m.id) ? list : [...list, m]))
      } catch (e) {
        const err = toApiError(e)
        setOutgoing((o) => o.map((x) => (x.key === key ? { ...x, state: 'failed', error: err } : x)))
      } finally {
        if (--flight.sending === 0 && flight.wanted) {
          flight.wanted = false
          flight.refresh()
        }
      }
    },
    [ws, channel],
  )

  const send = useCallback(
    (text: string, mentions?: MentionRef[]) => {
      const key = `out-${++seq.current}`
      setOutgoing((o) => [...o, { key, text, mentions, state: 'sending' }])
      return sendOne(key, text, mentions)
    },
    [sendOne],
  )
  // key is a send that never reached the outbox, or a failed outbox message's id.
  const retry = useCallback(
    (key: string) => {
      const o = outgoing.find((x) => x.key === key)
      if (o) return sendOne(key, o.text, o.mentions)
      if (ws) return api.messages.retry(ws, key).catch((e) => setError(toApiError(e)))
    },
    [outgoing, sendOne, ws],
  )
  const discard = useCallback(
    (key: string) => {
      if (outgoing.some((x) => x.key === key)) return setOutgoing((o) => o.filter((x) => x.key !== key))
      if (!ws) return
      // A new message leaves at once; a message whose change is discarded comes back as it was with the change event.
      setMessages((list) => list.filter((m) => m.id !== key || m.change))
      api.messages.discard(ws, key).catch((e) => setError(toApiError(e)))
    },
    [outgoing, ws],
  )

  // Your own messages: the list takes the result at once (the change event follows).
  const edit = useCallback(
    async (id: string, text: string) => {
      if (!ws || !channel) return
      const m = await api.messages.edit(ws, channel, id, text)
      setMessages((list) => list.map((x) => (x.id === id ? m : x)))
    },
    [ws, channel],
  )
  const remove = useCallback(
    async (id: string) => {
      if (!ws || !channel) return
      await api.messages.remove(ws, channel, id)
      // The delete waits in the outbox; the message leaves once it went out (a new one still waiting leaves at once).
      setMessages((list) =>
        list.flatMap((x) =>
          x.id !== id ? [x] : x.state === 'sent' || x.change ? [{ ...x, state: 'pending' as const, change: 'delete' as const }] : [],
        ),
      )
    },
    [ws, channel],
  )

  return { messages, hasOlder, loadOlder, outgoing, error, loading, send, retry, discard, edit, remove }
}
