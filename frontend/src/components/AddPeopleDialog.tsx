import { useEffect, useState } from 'react'
import { api, toApiError, type AddResult, type ApiError, type Channel, type Person } from '../lib/api'
import { plainMessage } from '../state/errors'
import { Dialog, ErrorNote } from './Dialog'

/** addedSentence says what an add did, pending adds included. */
export function addedSentence(r: AddResult): string {
  const added = `Added ${r.added} ${r.added === 1 ? 'device' : 'devices'}.`
  if (r.pending === 0) return added
  return `${added} ${r.pending} ${r.pending === 1 ? 'device has' : 'devices have'} not checked in yet: ${r.pending === 1 ? 'it joins' : 'they join'} when ${r.pending === 1 ? 'it does' : 'they do'}, added by any member's Weald.`
}

/**
 * AddPeopleDialog: the picker of a private channel. Members add people
 * (spec/channels.md "Explicit groups and the pending add"): every device of
 * each person picked goes in with one change; a device that has not checked
 * in yet is added when it does.
 */
export function AddPeopleDialog({ workspace, channel, onClose }: { workspace: string; channel: Channel; onClose: () => void }) {
  const [people, setPeople] = useState<Person[] | null>(null)
  const [picked, setPicked] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const [done, setDone] = useState<AddResult | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => {
    Promise.all([api.people.list(workspace), api.channels.members(workspace, channel.id)]).then(
      ([all, members]) => {
        const inIt = new Set(members.map((m) => m.user))
        setPeople(all.filter((p) => !p.you && !inIt.has(p.user)))
      },
      (e) => setError(toApiError(e)),
    )
  }, [workspace, channel.id])
  if (done) {
    return (
      <Dialog title={`Add people to #${channel.name}`} onClose={onClose}>
        <p role="status">{addedSentence(done)}</p>
        <div className="dialog-actions">
          <button type="button" className="primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    )
  }
  return (
    <Dialog title={`Add people to #${channel.name}`} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault()
          setBusy(true)
          setError(null)
          try {
            setDone(await api.channels.addPeople(workspace, channel.id, picked))
          } catch (err) {
            setError(toApiError(err))
          }
          setBusy(false)
        }}
      >
        <fieldset className="people-picker">
          <legend>People</legend>
          {people === null && !error ? <p className="muted">Loading people…</p> : null}
          {people?.length === 0 ? <p className="muted">Everyone in this workspace is already in #{channel.name}.</p> : null}
          {people?.map((p) => (
            <label key={p.user} className="person-choice">
              <input
                type="checkbox"
                value={p.user}
                checked={picked.includes(p.user)}
                onChange={(e) => setPicked((list) => (e.target.checked ? [...list, p.user] : list.filter((u) => u !== p.user)))}
              />
              <span>{p.name}</span>
              <span className="muted">
                {' '}
                · {p.devices} {p.devices === 1 ? 'device' : 'devices'}
              </span>
            </label>
          ))}
        </fieldset>
        <p className="help">Only the people members add can read #{channel.name}, from the moment they are added.</p>
        <ErrorNote error={error ? { code: error.code, message: plainMessage(error) } : null} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || picked.length === 0}>
            {busy ? 'Adding…' : 'Add'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
