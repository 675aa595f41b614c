import { useEffect, useRef, useState } from 'react'
import { api, toApiError, type ApiError, type ChannelRetention, type RetentionChange } from '../lib/api'
import { plainMessage } from '../state/errors'
import { formatBytes } from './bytes'
import { Dialog, ErrorNote } from './Dialog'

/** The longest window (days) Go takes (app/retention.go maxRetentionDays). */
export const maxRetentionDays = 36500

/** previewDelay: the impact is counted once the admin stops typing this long (ms), not on every key. */
const previewDelay = 250

function windowWords(days: number): string {
  return days === 0 ? 'without limit' : `${days.toLocaleString()} ${days === 1 ? 'day' : 'days'}`
}

/** currentText: a channel's windows in words. */
export function currentText(r: ChannelRetention): string {
  return `Text is kept ${windowWords(r.textDays)}, media ${windowWords(r.mediaDays)}${r.defaultPolicy ? ' (the defaults)' : ''}.`
}

/**
 * impactText: what the new text window would delete, as a number. The
 * steward's checkpoints leave out the days older than the window, and a
 * drop a window after one deletes everything below it, the earlier
 * checkpoints' snapshots included (docs/protocol/retention.md "What a text
 * window removes"): the text goes from the relay, not from members' devices.
 */
export function impactText(p: RetentionChange, channel: string): string {
  if (p.textDays === 0) return `Text is kept without limit: no message in ${channel} would be deleted.`
  const older = `older than ${windowWords(p.textDays)}`
  const n = p.impact.messages
  if (n === 0) return `No message in ${channel} is ${older}: none would be deleted now.`
  const bytes = p.impact.bytes > 0 ? ` (about ${formatBytes(p.impact.bytes)} of envelopes on the relay)` : ''
  const [noun, verb, it] = n === 1 ? ['message', 'is', 'it'] : ['messages', 'are', 'them']
  return (
    `${n.toLocaleString()} ${noun}${bytes} ${verb} ${older}. ` +
    `The relay deletes ${it}, text included, at the first compaction ${windowWords(p.textDays)} after the channel's next checkpoint, ` +
    `so people who join later do not read ${it}; members keep their own copies.`
  )
}

/** days reads a window: 0 (unlimited) or 1 to maxRetentionDays; null when it is neither. */
function days(mode: 'unlimited' | 'days', text: string): number | null {
  if (mode === 'unlimited') return 0
  if (!/^\d+$/.test(text.trim())) return null
  const n = Number(text.trim())
  return n >= 1 && n <= maxRetentionDays ? n : null
}

function WindowField({
  legend,
  name,
  mode,
  value,
  onMode,
  onValue,
}: {
  legend: string
  name: string
  mode: 'unlimited' | 'days'
  value: string
  onMode: (m: 'unlimited' | 'days') => void
  onValue: (v: string) => void
}) {
  return (
    <fieldset className="retention-window">
      <legend>{legend}</legend>
      <label>
        <input type="radio" name={name} checked={mode === 'unlimited'} onChange={() => onMode('unlimited')} /> Keep without limit
      </label>
      <label>
        <input type="radio" name={name} checked={mode === 'days'} onChange={() => onMode('days')} /> Delete after
      </label>{' '}
      <input
        type="number"
        inputMode="numeric"
        aria-label={`${legend}: days`}
        min={1}
        max={maxRetentionDays}
        value={value}
        disabled={mode !== 'days'}
        onChange={(ev) => onValue(ev.target.value)}
      />{' '}
      days
    </fieldset>
  )
}

/**
 * RetentionDialog: a channel's retention windows (spec/lifecycle.md
 * "Dropping": "configurable per group by an admin, with the storage impact
 * of the change shown as a number before it is applied"). An admin edits
 * the text and media windows and sees, as they edit, how many messages are
 * older than the text window (and about how many bytes of envelopes the
 * relay would delete; their text stays in the checkpoint); a plain
 * statement precedes Save; the result says whether the change is in force or
 * waits for a second admin's approval. Anyone else sees the windows
 * read-only.
 */
export function RetentionDialog({ workspace, channel, label, onClose }: { workspace: string; channel: string; label: string; onClose: () => void }) {
  const [info, setInfo] = useState<ChannelRetention | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [textMode, setTextMode] = useState<'unlimited' | 'days'>('unlimited')
  const [textValue, setTextValue] = useState('')
  const [mediaMode, setMediaMode] = useState<'unlimited' | 'days'>('days')
  const [mediaValue, setMediaValue] = useState('')
  const [preview, setPreview] = useState<RetentionChange | null>(null)
  const [saving, setSaving] = useState(false)
  const [result, setResult] = useState<RetentionChange | null>(null)
  const asked = useRef(0)

  useEffect(() => {
    api.health.retention(workspace, channel).then(
      (r) => {
        setInfo(r)
        setTextMode(r.textDays === 0 ? 'unlimited' : 'days')
        setTextValue(r.textDays === 0 ? '' : String(r.textDays))
        setMediaMode(r.mediaDays === 0 ? 'unlimited' : 'days')
        setMediaValue(r.mediaDays === 0 ? '' : String(r.mediaDays))
      },
      (e) => setError(toApiError(e)),
    )
  }, [workspace, channel])

  const text = days(textMode, textValue)
  const media = days(mediaMode, mediaValue)
  const valid = text !== null && media !== null
  const changed = info !== null && valid && (text !== info.textDays || media !== info.mediaDays || info.defaultPolicy)

  // The impact, counted again as the admin edits (the newest answer wins).
  useEffect(() => {
    if (!info?.admin || result || text === null || media === null) return
    const n = ++asked.current
    const t = setTimeout(() => {
      api.health.previewRetention(workspace, channel, text, media).then(
        (p) => {
          if (n === asked.current) {
            setPreview(p)
            setError(null)
          }
        },
        (e) => {
          if (n === asked.current) setError(toApiError(e))
        },
      )
    }, previewDelay)
    return () => clearTimeout(t)
  }, [info, result, workspace, channel, text, media])

  const save = () => {
    if (text === null || media === null) return
    setSaving(true)
    setError(null)
    api.health
      .setRetention(workspace, channel, text, media)
      .then(setResult, (e) => setError(toApiError(e)))
      .finally(() => setSaving(false))
  }

  const current = preview && valid && preview.textDays === text && preview.mediaDays === media ? preview : null
  return (
    <Dialog title={`Retention of ${label}`} onClose={onClose}>
      {info === null && !error ? <p className="muted">Loading…</p> : null}
      {info ? <p aria-label="Current retention">{currentText(info)}</p> : null}
      {info && !info.admin ? <p className="help">Only an admin can change a channel&apos;s retention.</p> : null}
      {info?.admin && !result ? (
        <form
          className="retention-form"
          aria-label="New retention"
          onSubmit={(ev) => {
            ev.preventDefault()
            if (changed && !saving) save()
          }}
        >
          <WindowField legend="Text messages" name="text" mode={textMode} value={textValue} onMode={setTextMode} onValue={setTextValue} />
          <WindowField legend="Media" name="media" mode={mediaMode} value={mediaValue} onMode={setMediaMode} onValue={setMediaValue} />
          {!valid ? (
            <p role="alert">A window is kept without limit or deletes after 1 to {maxRetentionDays.toLocaleString()} days.</p>
          ) : (
            <p role="status" aria-label="Impact" className="retention-impact">
              {current ? impactText(current, label) : `Counting what ${label} would delete…`}
            </p>
          )}
          {changed ? (
            <p className="help">
              Saving sets {label} to keep text {windowWords(text ?? 0)} and media {windowWords(media ?? 0)}, for everyone in it. The channel&apos;s
              checkpoints then leave out the days older than the text window, and once a checkpoint is older than the window the relay deletes the
              channel&apos;s history below it at the next compaction, text included; what it deletes cannot be brought back. Members keep their own
              copies on their devices. If the workspace has another admin, the change waits for a second admin&apos;s approval.
            </p>
          ) : null}
          <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
          <div className="dialog-actions">
            <button type="submit" className="primary" disabled={!changed || saving}>
              {saving ? 'Saving…' : 'Save'}
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {result ? (
        <p role="status" aria-label="Saved">
          {result.active
            ? `In force: ${label} keeps text ${windowWords(result.textDays)} and media ${windowWords(result.mediaDays)}.${result.note ? ` ${result.note}` : ''}`
            : `Proposed: text ${windowWords(result.textDays)}, media ${windowWords(result.mediaDays)}. It waits for a second admin's approval and is listed under "Waiting for approval" in Encryption & health.`}
        </p>
      ) : null}
      {!info?.admin || result ? (
        <>
          <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
          <div className="dialog-actions">
            <button type="button" className={result ? 'primary' : undefined} onClick={onClose}>
              {result ? 'Done' : 'Close'}
            </button>
          </div>
        </>
      ) : null}
    </Dialog>
  )
}
