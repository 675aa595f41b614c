import type { Channel } from '../lib/api'
import { Badges, badgeLabel } from './Badges'

/**
 * DMList: the direct messages of this person, with unread counts, and New
 * message. A DM this device is not in yet (the other person started it and
 * their device has not added this one) says so.
 */
export function DMList({ dms, selected, onSelect, onNew }: { dms: Channel[]; selected?: string; onSelect: (id: string) => void; onNew: () => void }) {
  return (
    <section className="side-section" aria-labelledby="dms-h">
      <div className="side-section-head">
        <h2 id="dms-h">Direct messages</h2>
        <button type="button" className="icon side-add" aria-label="New message" onClick={onNew}>
          +
        </button>
      </div>
      {dms.length === 0 ? (
        <p className="muted">No direct messages yet.</p>
      ) : (
        <ul className="side-list" aria-label="Direct messages">
          {dms.map((c) => {
            return (
              <li key={c.id} className="channel-row">
                <button
                  type="button"
                  className="side-item"
                  aria-current={selected === c.id ? 'page' : undefined}
                  onClick={() => onSelect(c.id)}
                  aria-label={`${c.name}${badgeLabel(c)}${c.joined ? '' : ', waiting to be added'}`}
                >
                  <span className="side-item-name">
                    <span aria-hidden="true">@ </span>
                    {c.name}
                  </span>
                  <span className="side-badges">
                    <Badges c={c} />
                  </span>
                </button>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}
