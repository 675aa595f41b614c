import { useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type NotifyLevel, type Workspace } from '../lib/api'
import { plainMessage } from '../state/errors'

const levels: { value: NotifyLevel; label: string }[] = [
  { value: 'all', label: 'Every new message' },
  { value: 'mentions', label: 'Mentions and direct messages' },
  { value: 'none', label: 'Nothing' },
]

/**
 * NotificationSetting: which new messages of this workspace show a desktop
 * notification while you are not looking at their channel. A muted channel
 * notifies only of mentions of you. Kept on this device.
 */
export function NotificationSetting({ ws }: { ws: Workspace }) {
  const [level, setLevel] = useState<NotifyLevel>(ws.notifications)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => setLevel(ws.notifications), [ws.notifications])
  return (
    <section className="side-section notify-setting">
      <label htmlFor="notify-level" className="side-label">
        Notify me of
      </label>
      <select
        id="notify-level"
        value={level}
        onChange={(e) => {
          const next = e.target.value as NotifyLevel
          const prev = level
          setLevel(next)
          setError(null)
          api.workspaces.setNotifications(ws.id, next).catch((err) => {
            setLevel(prev)
            setError(toApiError(err))
          })
        }}
      >
        {levels.map((l) => (
          <option key={l.value} value={l.value}>
            {l.label}
          </option>
        ))}
      </select>
      {error ? (
        <p role="alert" className="side-error">
          {plainMessage(error)} <code>{error.code}</code>
        </p>
      ) : null}
    </section>
  )
}
