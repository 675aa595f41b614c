import { useState } from 'react'
import type { Channel } from '../lib/api'
import { moved, splitChannels } from '../state/channels'
import { Badges, badgeLabel } from './Badges'
import { LockIcon } from './LockIcon'

export interface ChannelActions {
  renameLocal: (id: string, name: string) => Promise<unknown>
  setMuted: (id: string, muted: boolean) => Promise<unknown>
  moveLocal: (id: string, to: number) => Promise<unknown>
}

/**
 * ChannelList: the default channels (#activity arrives muted), then the
 * other channels, with unread counts and mention badges. Every channel has an options menu:
 * rename, mute, move up/down. Delete and archive are never offered for a
 * default channel (spec/channels.md "Default channels"); the engine has
 * neither for any channel yet.
 */
export function ChannelList({
  channels,
  selected,
  onSelect,
  onNew,
  actions,
}: {
  channels: Channel[]
  selected?: string
  onSelect: (id: string) => void
  onNew: () => void
  actions: ChannelActions
}) {
  const { defaults, others } = splitChannels(channels)
  return (
    <section className="side-section" aria-labelledby="channels-h">
      <div className="side-section-head">
        <h2 id="channels-h">Channels</h2>
        <button type="button" className="icon side-add" aria-label="New channel" onClick={onNew}>
          +
        </button>
      </div>
      <ul className="side-list" aria-label="Default channels">
        {defaults.map((c) => (
          <ChannelItem key={c.id} c={c} list={defaults} selected={selected === c.id} onSelect={onSelect} actions={actions} />
        ))}
      </ul>
      {others.length > 0 ? (
        <ul className="side-list" aria-label="Other channels">
          {others.map((c) => (
            <ChannelItem key={c.id} c={c} list={others} selected={selected === c.id} onSelect={onSelect} actions={actions} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}

function ChannelItem({
  c,
  list,
  selected,
  onSelect,
  actions,
}: {
  c: Channel
  list: Channel[]
  selected: boolean
  onSelect: (id: string) => void
  actions: ChannelActions
}) {
  const [menu, setMenu] = useState(false)
  const [renaming, setRenaming] = useState(false)
  const [name, setName] = useState(c.name)
  const up = moved(list, c.id, -1)
  const down = moved(list, c.id, 1)
  const close = () => setMenu(false)
  if (renaming) {
    return (
      <li>
        <form
          className="rename"
          onSubmit={async (e) => {
            e.preventDefault()
            await actions.renameLocal(c.id, name.trim()).catch(() => {})
            setRenaming(false)
          }}
        >
          <label htmlFor={`rename-${c.id}`} className="visually-hidden">
            New name for #{c.name}
          </label>
          <input
            id={`rename-${c.id}`}
            autoFocus
            value={name}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && setRenaming(false)}
          />
          <button type="submit" disabled={name.trim() === ''}>
            Save
          </button>
        </form>
      </li>
    )
  }
  return (
    <li className="channel-row" data-muted={c.muted || undefined}>
      <button
        type="button"
        className="side-item"
        aria-current={selected ? 'page' : undefined}
        onClick={() => onSelect(c.id)}
        aria-label={`#${c.name}${c.muted ? ', muted' : ''}${badgeLabel(c)}`}
      >
        <span className="side-item-name">
          {c.policy.admission === 'explicit' ? <LockIcon locked size={12} /> : '# '}
          {c.name}
        </span>
        <span className="side-badges">
          <Badges c={c} />
        </span>
      </button>
      <button
        type="button"
        className="icon row-menu"
        aria-label={`Options for #${c.name}`}
        aria-haspopup="menu"
        aria-expanded={menu}
        onClick={() => setMenu((m) => !m)}
      >
        ⋯
      </button>
      {menu ? (
        <div className="menu" role="menu" aria-label={`#${c.name} options`} onKeyDown={(e) => e.key === 'Escape' && close()}>
          <button type="button" role="menuitem" autoFocus onClick={() => (close(), setName(c.name), setRenaming(true))}>
            Rename
          </button>
          <button type="button" role="menuitem" onClick={() => (close(), actions.setMuted(c.id, !c.muted).catch(() => {}))}>
            {c.muted ? 'Unmute' : 'Mute'}
          </button>
          {up !== null ? (
            <button type="button" role="menuitem" onClick={() => (close(), actions.moveLocal(c.id, up).catch(() => {}))}>
              Move up
            </button>
          ) : null}
          {down !== null ? (
            <button type="button" role="menuitem" onClick={() => (close(), actions.moveLocal(c.id, down).catch(() => {}))}>
              Move down
            </button>
          ) : null}
        </div>
      ) : null}
    </li>
  )
}
