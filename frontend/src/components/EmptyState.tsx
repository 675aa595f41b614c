import { useState } from 'react'

type Choice = 'create' | 'join' | null

/** EmptyState is what a device with no workspace sees: the two ways in. */
export function EmptyState() {
  const [choice, setChoice] = useState<Choice>(null)
  return (
    <div className="empty">
      <h2>Start with a workspace</h2>
      <p>A workspace is one project: its people, devices, agents, channels and documents, end-to-end encrypted.</p>
      <div className="empty-actions">
        <button type="button" className="primary" onClick={() => setChoice('create')} aria-pressed={choice === 'create'}>
          Create a workspace
        </button>
        <button type="button" onClick={() => setChoice('join')} aria-pressed={choice === 'join'}>
          Join with an invite
        </button>
      </div>
      {choice ? (
        <p className="notice" role="status">
          {choice === 'create' ? 'Creating a workspace' : 'Joining with an invite'} needs the workspace core, which this
          build does not include yet.
        </p>
      ) : null}
    </div>
  )
}
