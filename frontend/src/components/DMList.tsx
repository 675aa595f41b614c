import type { Channel } from '../lib/api'

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
            const unread = !c.muted && c.unread > 0
            return (
              <li key={c.id} className="channel-row">
                <button
                  type="button"
                  className="side-item"
                  aria-current={selected === c.id ? 'page' : undefined}
                  onClick={() => onSelect(c.id)}
                  aria-label={`${c.name}${unread ? `, ${c.unread} unread` : ''}${c.joined ? '' : ', waiting to be added'}`}
                >
                  <span className="side-item-name">
                    <span aria-hidden="true">@ </span>
                    {c.name}
                  </span>
                  {unread ? (
                    <span className="badge" aria-hidden="true">
                      {c.unread}
                    </span>
                  ) : null}
                </button>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}
