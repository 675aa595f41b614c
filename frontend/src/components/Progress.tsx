import type { Progress } from '../lib/api'

/** ProgressList shows long work (joining many channels, a first sync). */
export function ProgressList({ items }: { items: Progress[] }) {
  const running = items.filter((p) => !p.finished)
  if (running.length === 0) return null
  return (
    <div className="progress-list" aria-label="Work in progress">
      {running.map((p) => (
        <div key={p.id} className="progress">
          <label htmlFor={`progress-${p.id}`}>
            {p.label} ({p.done} of {p.total})
          </label>
          <progress id={`progress-${p.id}`} max={Math.max(p.total, 1)} value={p.done} />
        </div>
      ))}
    </div>
  )
}
