import { describe, expect, it, beforeEach } from 'vitest'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type ChannelMember, type Person } from '../lib/api'
import { chan, defaults, holder, hex, makeApi, msg, policy, ws } from '../test/apiMock'

import { AddPeopleDialog, addedSentence } from './AddPeopleDialog'
import { DMList } from './DMList'
import { MembersDialog, verifiedSentence, waitingSentence } from './MembersDialog'
import { NewDMDialog } from './NewDMDialog'
import { Shell } from './Shell'

const person = (p: Partial<Person> & { user: string; name: string }): Person => ({ you: false, devices: 1, ...p })
const member = (p: Partial<ChannelMember> & { user: string; name: string; device: string }): ChannelMember => ({
  you: false,
  pending: false,
  since: 0,
  ...p,
})
const secret = chan({ id: hex(0x51), name: 'secret', policy: policy({ admission: 'explicit', history: 'closed' }) })
const dm = chan({ id: hex(0xd1), name: 'Member 0000000b', kind: 'dm', peer: hex(0xb), policy: policy({ admission: 'explicit', history: 'closed' }) })

beforeEach(() => {
  holder.current = makeApi()
  const a = holder.current.api
  a.status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] })
  a.projects.list.mockResolvedValue([])
  a.workspaces.list.mockResolvedValue([ws()])
  a.messages.list.mockResolvedValue([])
  a.messages.markRead.mockResolvedValue(undefined)
  a.people.list.mockResolvedValue([
    person({ user: hex(0xa), name: 'Ada', you: true }),
    person({ user: hex(0xb), name: 'Member 0000000b', devices: 2 }),
    person({ user: hex(0xc), name: 'Member 0000000c' }),
  ])
})

describe('AddPeopleDialog', () => {
  it('offers the people not in the channel and adds the picked ones in one call', async () => {
    const a = holder.current.api
    a.channels.members.mockResolvedValue([
      member({ user: hex(0xa), name: 'Ada', device: hex(0xaa), you: true }),
      member({ user: hex(0xc), name: 'Member 0000000c', device: hex(0xcc) }),
    ])
    a.channels.addPeople.mockResolvedValue({ added: 1, pending: 1 })
    const close = vi.fn()
    render(<AddPeopleDialog workspace={hex(1)} channel={secret} onClose={close} />)
    const box = await screen.findByRole('checkbox', { name: /Member 0000000b/ })
    expect(screen.queryByRole('checkbox', { name: /Member 0000000c/ })).toBeNull() // already in #secret
    expect(screen.queryByRole('checkbox', { name: /Ada/ })).toBeNull() // you
    expect(screen.getByRole('button', { name: 'Add' })).toHaveProperty('disabled', true)
    await userEvent.click(box)
    await userEvent.click(screen.getByRole('button', { name: 'Add' }))
    expect(a.channels.addPeople).toHaveBeenCalledWith(hex(1), secret.id, [hex(0xb)])
    expect((await screen.findByRole('status')).textContent).toBe(addedSentence({ added: 1, pending: 1 }))
    expect(addedSentence({ added: 1, pending: 1 })).toMatch(/^Added 1 device\. 1 device has not checked in yet/)
  })

  it('says a refused add by its code and keeps the picks', async () => {
    const a = holder.current.api
    a.channels.members.mockResolvedValue([])
    a.channels.addPeople.mockRejectedValue(new ApiError('roster/limit_pending', 'A group holds at most 64 pending adds.'))
    render(<AddPeopleDialog workspace={hex(1)} channel={secret} onClose={vi.fn()} />)
    await userEvent.click(await screen.findByRole('checkbox', { name: /Member 0000000c/ }))
    await userEvent.click(screen.getByRole('button', { name: 'Add' }))
    expect(await screen.findByText('roster/limit_pending')).toBeTruthy()
    expect(screen.getByRole('checkbox', { name: /Member 0000000c/ })).toHaveProperty('checked', true)
  })
})

describe('MembersDialog', () => {
  it('lists members and shows a pending add as waiting for that device to check in, with the date', async () => {
    const since = Date.UTC(2026, 10, 30, 12)
    holder.current.api.channels.members.mockResolvedValue([
      member({ user: hex(0xa), name: 'Ada', device: hex(0xaa), you: true }),
      member({ user: hex(0xb), name: 'Member 0000000b', device: hex(0xbb), pending: true, since }),
    ])
    render(<MembersDialog workspace={hex(1)} channel={secret} onClose={vi.fn()} />)
    const list = await screen.findByRole('list', { name: 'Members' })
    const rows = within(list).getAllByRole('listitem')
    expect(rows).toHaveLength(2)
    expect(rows[0].textContent).not.toMatch(/waiting/)
    expect(rows[1].textContent).toContain('waiting for that device to check in')
    expect(rows[1].textContent).toContain(waitingSentence(since))
    expect(waitingSentence(since)).toMatch(/2026/)
    expect(screen.queryByRole('note')).toBeNull() // the whole history verified here: nothing to say
  })

  it('says from when the history is verified when this device read it from a checkpoint', async () => {
    const from = Date.UTC(2026, 11, 1, 9)
    const a = holder.current.api
    a.channels.members.mockResolvedValue([member({ user: hex(0xa), name: 'Ada', device: hex(0xaa), you: true })])
    a.channels.historyVerifiedFrom.mockResolvedValue(from)
    render(<MembersDialog workspace={hex(1)} channel={secret} onClose={vi.fn()} />)
    await screen.findByRole('list', { name: 'Members' })
    const note = await screen.findByRole('note')
    expect(note.textContent).toBe(verifiedSentence(from))
    expect(note.textContent).toMatch(/^History verified from .*2026\./)
    expect(a.channels.historyVerifiedFrom).toHaveBeenCalledWith(hex(1), secret.id)
  })
})

describe('DMList and NewDMDialog', () => {
  it('lists DMs with unread counts and says when this device waits to be added', () => {
    const select = vi.fn()
    render(
      <DMList
        dms={[
          { ...dm, unread: 2 },
          { ...dm, id: hex(0xd2), name: 'Member 0000000c', joined: false },
        ]}
        onSelect={select}
        onNew={vi.fn()}
      />,
    )
    expect(screen.getByRole('button', { name: 'Member 0000000b, 2 unread' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Member 0000000c, waiting to be added' })).toBeTruthy()
  })

  it('sends the first message to the person picked and opens the DM', async () => {
    const a = holder.current.api
    a.dms.send.mockResolvedValue({ channel: dm, message: msg({ text: 'hi', mine: true }) })
    const close = vi.fn()
    render(<NewDMDialog workspace={hex(1)} onClose={close} />)
    await userEvent.click(await screen.findByRole('radio', { name: 'Member 0000000b' }))
    expect(screen.queryByRole('radio', { name: 'Ada' })).toBeNull()
    await userEvent.type(screen.getByLabelText('Message'), 'hi')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(a.dms.send).toHaveBeenCalledWith(hex(1), hex(0xb), 'hi')
    expect(close).toHaveBeenCalledWith(dm)
  })

  it('puts DMs under Direct messages in the shell, not among the channels, and opens one', async () => {
    const a = holder.current.api
    a.channels.list.mockResolvedValue([...defaults(), secret, { ...dm, unread: 1 }])
    a.messages.list.mockImplementation(async (_ws: string, ch: string) => (ch === dm.id ? [msg({ text: 'psst', channel: dm.id })] : []))
    render(<Shell />)
    const dmButton = await screen.findByRole('button', { name: 'Member 0000000b, 1 unread' })
    expect(within(screen.getByRole('list', { name: 'Other channels' })).queryByText('Member 0000000b')).toBeNull()
    await userEvent.click(dmButton)
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Member 0000000b'))
    expect(await screen.findByText('psst')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Invite people' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Add people' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Members' })).toBeTruthy()
  })

  it('shows Members, without Add people, in a channel open to the workspace', async () => {
    holder.current.api.channels.list.mockResolvedValue(defaults())
    holder.current.api.channels.members.mockResolvedValue([member({ user: hex(0xa), name: 'Ada', device: hex(0xaa), you: true })])
    render(<Shell />)
    expect(await screen.findByRole('button', { name: 'Members' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Add people' })).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Members' }))
    expect(await screen.findByRole('dialog', { name: 'Members of #general' })).toBeTruthy()
  })

  it('shows Add people and Members in a private channel', async () => {
    const a = holder.current.api
    a.channels.list.mockResolvedValue([...defaults(), secret])
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: '#secret' }))
    expect(await screen.findByRole('button', { name: 'Add people' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Members' })).toBeTruthy()
  })
})
