import { useState, type ReactNode } from 'react'
import { api, toApiError, type ApiError, type SearchHit } from '../lib/api'
import { plainMessage } from '../state/errors'
import { ErrorNote } from './Dialog'

/** marked wraps the words search matched (the last also as the start of a word) in <mark>. */
export function marked(text: string, words: string[]): ReactNode[] {
  if (words.length === 0) return [text]
  const esc = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const last = words[words.length - 1]
  const alts = [...words.slice(0, -1).map((w) => `${esc(w)}(?![\\p{L}\\p{N}])`), `${esc(last)}[\\p{L}\\p{N}]*`]
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alts.join('|')})`, 'giu')
  const out: ReactNode[] = []
  let at = 0
  for (const m of text.matchAll(re)) {
    if (m.index > at) out.push(text.slice(at, m.index))
    out.push(<mark key={m.index}>{m[0]}</mark>)
    at = m.index + m[0].length
  }
  if (at < text.length) out.push(text.slice(at))
  return out
}

/**
 * useSearch runs searches of one workspace's local history; results stay
 * until the next search or close.
 */
export function useSearch(ws: string | null) {
  const [query, setQuery] = useState('')
  const [hits, setHits] = useState<SearchHit[] | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const run = async (q: string) => {
    if (!ws) return
    setQuery(q)
    setBusy(true)
    setError(null)
    try {
      setHits(await api.messages.search(ws, q, ''))
    } catch (e) {
      setHits([])
      setError(toApiError(e))
    } finally {
      setBusy(false)
    }
  }
  const close = () => {
    setHits(null)
    setError(null)
  }
  return { query, hits, error, busy, open: hits !== null || error !== null, run, close }
}

/** SearchBar: the search field above the channel, for the workspace's whole local history. */
export function SearchBar({ onSearch }: { onSearch: (q: string) => void }) {
  const [q, setQ] = useState('')
  return (
    <form
      role="search"
      aria-label="Search messages"
      className="search-bar"
      onSubmit={(e) => {
        e.preventDefault()
        if (q.trim() !== '') onSearch(q.trim())
      }}
    >
      <label htmlFor="search-input" className="visually-hidden">
        Search messages
      </label>
      <input id="search-input" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Search messages" autoComplete="off" />
      <button type="submit">Search</button>
    </form>
  )
}

const when = (ms: number) => new Date(ms).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })

/** SearchResults lists what a search found, newest first; choosing one opens its channel at that message. */
export function SearchResults({
  query,
  hits,
  error,
  busy,
  onOpen,
  onClose,
}: {
  query: string
  hits: SearchHit[] | null
  error: ApiError | null
  busy: boolean
  onOpen: (hit: SearchHit) => void
  onClose: () => void
}) {
  return (
    <section className="pane search-results" aria-label={`Search results for ${query}`}>
      <div className="search-head">
        <h2>
          {busy
            ? 'Searching…'
            : hits && hits.length > 0
              ? `${hits.length}${hits.length >= 50 ? '+' : ''} result${hits.length === 1 ? '' : 's'} for “${query}”`
              : `No results for “${query}”`}
        </h2>
        <button type="button" onClick={onClose}>
          Close search
        </button>
      </div>
      {error ? <ErrorNote error={{ code: error.code, message: plainMessage(error) }} /> : null}
      {!busy && !error && hits?.length === 0 ? (
        <p className="muted">Search looks for whole words in the messages this device has decrypted; the last word may be the start of a word.</p>
      ) : null}
      <ol className="hit-list">
        {(hits ?? []).map((h) => (
          <li key={`${h.channel}/${h.message.id}`}>
            <button type="button" className="hit" onClick={() => onOpen(h)}>
              <span className="hit-meta">
                <span className="hit-channel">#{h.channelName}</span> <span className="author">{h.message.author}</span>{' '}
                <time dateTime={new Date(h.message.sentAt).toISOString()}>{when(h.message.sentAt)}</time>
              </span>
              <span className="hit-text">{marked(h.message.text, h.words)}</span>
            </button>
          </li>
        ))}
      </ol>
    </section>
  )
}
