import { describe, expect, it, beforeEach } from 'vitest'
import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type InviteRecord, type Project } from '../lib/api'
import { chan, defaults, holder, hex, makeApi, msg, policy, ws } from '../test/apiMock'

import { Shell } from './Shell'
import { NewChannelDialog } from './NewChannelDialog'
import { InviteDialog } from './InviteDialog'

const status = { version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] }

beforeEach(async () => {
  holder.current = makeApi()
  const a = holder.current.api
  a.status.mockResolvedValue(status)
  a.projects.list.mockResolvedValue([])
  a.workspaces.list.mockResolvedValue([])
})

function inWorkspace() {
  const a = holder.current.api
  a.workspaces.list.mockResolvedValue([ws()])
  a.channels.list.mockResolvedValue(defaults())
  a.messages.list.mockResolvedValue([msg({ text: 'hello' })])
  a.messages.markRead.mockResolvedValue(undefined)
}

describe('NewChannelDialog', () => {
  it('says for "parent" exactly that anyone in the workspace can join and nobody can be removed alone', async () => {
    const create = vi.fn().mockResolvedValue(chan({ name: 'design' }))
    const close = vi.fn()
    render(<NewChannelDialog onCreate={create} onClose={close} />)
    const parent = screen.getByRole('radio', { name: /Open to the workspace/ })
    expect((parent as HTMLInputElement).checked).toBe(true)
    const desc = document.getElementById(parent.getAttribute('aria-describedby')!)!
    expect(desc.querySelector('strong')!.textContent).toBe('Anyone in this workspace can join this channel.')
    // The label is not repeated as a lowercase sentence.
    for (const label of document.querySelectorAll('.scope-label')) {
      expect(desc.textContent!.toLowerCase()).not.toContain(label.textContent!.toLowerCase())
    }
    expect(desc.textContent).toMatch(/Nobody can be removed from it alone/)
    const explicit = screen.getByRole('radio', { name: /Private/ })
    expect(document.getElementById(explicit.getAttribute('aria-describedby')!)!.textContent).toMatch(/^Members add people\./)
    await userEvent.type(screen.getByLabelText('Name'), '#design')
    await userEvent.click(screen.getByRole('button', { name: 'Create channel' }))
    expect(create).toHaveBeenCalledWith('design', 'parent')
    expect(close).toHaveBeenCalledWith(expect.objectContaining({ name: 'design' }))
  })

  it('creates a private channel when "explicit" is picked, with the keyboard only', async () => {
    const create = vi.fn().mockResolvedValue(chan({ name: 'hr', policy: policy({ admission: 'explicit', history: 'closed' }) }))
    render(<NewChannelDialog onCreate={create} onClose={() => {}} />)
    expect(document.activeElement).toBe(screen.getByLabelText('Name'))
    await userEvent.keyboard('hr')
    await userEvent.tab() // to the radio group
    expect(document.activeElement).toBe(screen.getByRole('radio', { name: /Anyone/ }))
    await userEvent.keyboard('{ArrowDown}')
    expect((screen.getByRole('radio', { name: /Private/ }) as HTMLInputElement).checked).toBe(true)
    await userEvent.keyboard('{Enter}')
    expect(create).toHaveBeenCalledWith('hr', 'explicit')
  })

  it('shows a refusal and keeps the dialog open', async () => {
    const create = vi.fn().mockRejectedValue(new ApiError('groups/limit', 'This workspace already has 512 groups; archive one first.'))
    const close = vi.fn()
    render(<NewChannelDialog onCreate={create} onClose={close} />)
    await userEvent.type(screen.getByLabelText('Name'), 'x{Enter}')
    expect((await screen.findByRole('alert')).textContent).toMatch(/512 groups; archive one first\. groups\/limit/)
    expect(close).not.toHaveBeenCalled()
  })

  it('closes on Escape', async () => {
    const close = vi.fn()
    render(<NewChannelDialog onCreate={vi.fn()} onClose={close} />)
    await userEvent.keyboard('{Escape}')
    expect(close).toHaveBeenCalled()
  })
})

describe('InviteDialog', () => {
  it('always includes the root, never lists closed groups, sets the expiry and copies the link', async () => {
    const a = holder.current.api
    a.invites.scopes.mockResolvedValue([
      { group: hex(0xa), name: 'Acme', root: true, history: 'open' },
      { group: hex(0xb), name: 'general', root: false, history: 'open' },
      { group: hex(0xc), name: 'design', root: false, history: 'open' },
      { group: hex(0xd), name: 'secret', root: false, history: 'closed' },
    ])
    a.invites.create.mockResolvedValue({ link: 'weald://join/xyz', expiresAt: 1_800_000_000_000, maxUses: 1, role: 'member' })
    a.copy.mockResolvedValue(true)
    render(<InviteDialog workspace={hex(1)} onClose={() => {}} />)
    const root = (await screen.findByRole('checkbox', { name: /Acme/ })) as HTMLInputElement
    expect(root.checked).toBe(true)
    expect(root.disabled).toBe(true)
    expect(screen.queryByRole('checkbox', { name: /secret/ })).toBeNull()
    await userEvent.click(screen.getByRole('checkbox', { name: '#design' }))
    await userEvent.selectOptions(screen.getByLabelText('Expires after'), '1 day')
    await userEvent.click(screen.getByRole('button', { name: 'Create link' }))
    expect(a.invites.create).toHaveBeenCalledWith(hex(1), [hex(0xa), hex(0xb)], 24, 1, 'member')
    const link = (await screen.findByLabelText('Invite link')) as HTMLInputElement
    // Links are single-use: the dialog says so, not "anyone with this link".
    expect(screen.getByText(/One person can join with this link, once/)).toBeTruthy()
    expect(screen.queryByText(/Anyone with this link can join/)).toBeNull()
    expect(link.value).toBe('weald://join/xyz')
    await userEvent.click(screen.getByRole('button', { name: 'Copy link' }))
    expect(a.copy).toHaveBeenCalledWith('weald://join/xyz')
    expect(screen.getByRole('status').textContent).toBe('Copied')
  })

  it('shows the relay address the link carries, the one to give teammates', async () => {
    const a = holder.current.api
    a.invites.scopes.mockResolvedValue([{ group: hex(0xa), name: 'Acme', root: true, history: 'open' }])
    a.invites.create.mockResolvedValue({ link: 'weald://invite?x', expiresAt: 1_800_000_000_000, maxUses: 1, role: 'member' })
    render(<InviteDialog workspace={hex(1)} relay="ws://192.168.1.20:7447/v1/ws" onClose={() => {}} />)
    await screen.findByRole('checkbox', { name: /Acme/ })
    expect(screen.queryByTestId('invite-relay')).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Create link' }))
    expect((await screen.findByTestId('invite-relay')).textContent).toBe('ws://192.168.1.20:7447/v1/ws')
  })

  it('makes a multi-use admin link and says so', async () => {
    const a = holder.current.api
    a.invites.scopes.mockResolvedValue([{ group: hex(0xa), name: 'Acme', root: true, history: 'open' }])
    a.invites.create.mockResolvedValue({ link: 'weald://invite?x', expiresAt: 1_800_000_000_000, maxUses: 10, role: 'admin' })
    render(<InviteDialog workspace={hex(1)} onClose={() => {}} />)
    await screen.findByRole('checkbox', { name: /Acme/ })
    await userEvent.selectOptions(screen.getByLabelText('How many people can join with it'), 'Up to 10 people')
    await userEvent.selectOptions(screen.getByLabelText('They join as'), 'admin')
    await userEvent.click(screen.getByRole('button', { name: 'Create link' }))
    expect(a.invites.create).toHaveBeenCalledWith(hex(1), [hex(0xa)], 24 * 7, 10, 'admin')
    expect(await screen.findByText(/Up to 10 people can join with this link, each once, as an admin/)).toBeTruthy()
  })

  it('lists the live invites with their use count and revokes one', async () => {
    const a = holder.current.api
    a.invites.scopes.mockResolvedValue([{ group: hex(0xa), name: 'Acme', root: true, history: 'open' }])
    const rec = (p: Partial<InviteRecord>): InviteRecord => ({
      id: hex(0x11),
      role: 'member',
      uses: 2,
      maxUses: 5,
      createdAt: 1_700_000_000_000,
      expiresAt: 1_800_000_000_000,
      createdBy: 'Dana',
      mine: true,
      scopes: [],
      joinedBy: ['Sam', 'Lee'],
      state: 'live',
      ...p,
    })
    a.invites.list.mockResolvedValueOnce([rec({}), rec({ id: hex(0x12), state: 'used', uses: 1, maxUses: 1 })]).mockResolvedValue([])
    a.invites.revoke.mockResolvedValue(undefined)
    render(<InviteDialog workspace={hex(1)} onClose={() => {}} />)
    const row = await screen.findByText(/Member link by Dana: 2 of 5 used/)
    expect(row.textContent).toContain('joined: Sam, Lee')
    expect(screen.getAllByRole('button', { name: /^Revoke/ })).toHaveLength(1) // the used one is not live
    await userEvent.click(screen.getByRole('button', { name: /^Revoke/ }))
    expect(a.invites.revoke).toHaveBeenCalledWith(hex(1), hex(0x11))
    expect(await screen.findByText('None.')).toBeTruthy()
  })

  it('is not offered to members who cannot invite', async () => {
    inWorkspace()
    holder.current.api.workspaces.list.mockResolvedValue([ws({ canInvite: false })])
    render(<Shell />)
    await screen.findByRole('main', { name: '#general' })
    expect(screen.queryByRole('button', { name: 'Invite people' })).toBeNull()
  })

  it('is opened from the channel header', async () => {
    inWorkspace()
    holder.current.api.invites.scopes.mockResolvedValue([{ group: hex(0xa), name: 'Acme', root: true, history: 'open' }])
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Invite people' }))
    expect(await screen.findByRole('dialog', { name: 'Invite people' })).toBeTruthy()
  })
})

describe('Projects in the shell', () => {
  const project = (p: Partial<Project>): Project => ({
    folder: '/code/site',
    state: 'local',
    name: 'site',
    workspace: '',
    relay: '',
    member: false,
    problem: null,
    ...p,
  })

  it('updates live from project:changed and offers to join a workspace you are not in', async () => {
    inWorkspace()
    holder.current.api.projects.list.mockResolvedValue([project({})])
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'site' }))
    expect(screen.getByTestId('project-state').textContent).toBe('Local only: not bound to a workspace')
    act(() => holder.current.emit('project', project({ name: 'site2', state: 'bound', workspace: hex(9), relay: 'ws://r' })))
    expect(screen.getByTestId('project-state').textContent).toMatch(/which you are not in/)
    await userEvent.click(screen.getByRole('button', { name: 'Join with an invite' }))
    expect(screen.getByLabelText('Invite link')).toBeTruthy()
  })

  it('binds a local folder to one of your workspaces with its relay', async () => {
    inWorkspace()
    const a = holder.current.api
    a.projects.list.mockResolvedValue([project({})])
    a.projects.bind.mockResolvedValue(project({ state: 'bound', workspace: hex(1), relay: 'ws://127.0.0.1:1', member: true }))
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'site' }))
    await userEvent.click(await screen.findByRole('button', { name: 'Bind folder' }))
    expect(a.projects.bind).toHaveBeenCalledWith('/code/site', hex(1), 'ws://127.0.0.1:1')
    expect(screen.getByTestId('project-state').textContent).toBe('Bound to Acme')
  })

  it('adds a folder from the dialog and shows a refusal in the dialog', async () => {
    inWorkspace()
    const a = holder.current.api
    a.projects.add.mockRejectedValueOnce(new ApiError('projects/no_folder', 'There is no folder at /x; check the path.'))
    a.projects.add.mockResolvedValueOnce(project({ folder: '/y', name: 'y', state: 'none' }))
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Add a project folder' }))
    await userEvent.type(screen.getByLabelText('Folder'), '/x{Enter}')
    expect((await screen.findByRole('alert')).textContent).toMatch(/check the path/)
    await userEvent.clear(screen.getByLabelText('Folder'))
    await userEvent.type(screen.getByLabelText('Folder'), '/y{Enter}')
    expect(await screen.findByRole('button', { name: 'y' })).toBeTruthy()
    expect(screen.queryByRole('dialog')).toBeNull()
  })
})

describe('keyboard and labels', () => {
  const interactive = 'button, input, select, textarea, [tabindex="0"]'

  /** Every control has an accessible name, and Tab reaches each enabled one. */
  async function checkAll(container: HTMLElement) {
    const { computeAccessibleName } = await import('dom-accessibility-api')
    const controls = Array.from(container.querySelectorAll<HTMLElement>(interactive)).filter(
      (el) => !(el as HTMLButtonElement).disabled && !(el instanceof HTMLInputElement && el.type === 'radio' && !el.checked),
    )
    expect(controls.length).toBeGreaterThan(3)
    for (const el of controls) expect(computeAccessibleName(el), el.outerHTML.slice(0, 80)).not.toBe('')
    ;(document.activeElement as HTMLElement | null)?.blur()
    const reached = new Set<Element>()
    for (let i = 0; i < controls.length * 2 + 5 && reached.size < controls.length; i++) {
      await userEvent.tab()
      const el = document.activeElement
      if (el && controls.includes(el as HTMLElement)) reached.add(el)
    }
    for (const el of controls) expect(reached.has(el), `not reachable by Tab: ${el.outerHTML.slice(0, 80)}`).toBe(true)
  }

  it('in a workspace: sidebar, header, composer', async () => {
    inWorkspace()
    holder.current.api.workspaces.list.mockResolvedValue([ws(), ws({ id: hex(2), name: 'Beta' })])
    holder.current.api.channels.list.mockResolvedValue([...defaults(), chan({ name: 'design', unread: 1 })])
    holder.current.api.projects.list.mockResolvedValue([
      { folder: '/p', state: 'local', name: 'p', workspace: '', relay: '', member: false, problem: null },
    ])
    const { container } = render(<Shell />)
    await screen.findByText('hello')
    await screen.findByRole('button', { name: 'p' })
    await screen.findByRole('button', { name: '#design, 1 unread' })
    await screen.findByRole('option', { name: 'Beta' })
    await userEvent.type(screen.getByLabelText('Message'), 'x')
    await checkAll(container)
  })

  it('first run and its forms', async () => {
    const { container } = render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    await userEvent.type(screen.getByLabelText('Workspace name'), 'A')
    await userEvent.type(screen.getByLabelText('Your name'), 'B')
    await userEvent.type(screen.getByLabelText('Relay address'), 'ws://r')
    await checkAll(container)
  })

  it('hosting on this computer: no address asked, the network choice goes to Go', async () => {
    const a = holder.current.api
    a.workspaces.createHosted.mockResolvedValue({ workspace: ws(), recoveryPhrase: [] })
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([])
    const { container } = render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    await userEvent.type(screen.getByLabelText('Workspace name'), 'A')
    await userEvent.type(screen.getByLabelText('Your name'), 'B')
    await userEvent.click(screen.getByRole('radio', { name: 'Host on this computer' }))
    expect(screen.queryByLabelText('Relay address')).toBeNull()
    expect(screen.getByText(/only this computer can reach it/)).toBeTruthy()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Let computers on my network join' }))
    expect(screen.getByText(/teammates on the same network can join/)).toBeTruthy()
    await checkAll(container)
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    expect(a.workspaces.createHosted).toHaveBeenCalledWith('A', 'B', true)
    expect(a.workspaces.create).not.toHaveBeenCalled()
  })

  it('the dialogs', async () => {
    holder.current.api.invites.scopes.mockResolvedValue([
      { group: hex(0xa), name: 'Acme', root: true, history: 'open' },
      { group: hex(0xb), name: 'general', root: false, history: 'open' },
    ])
    const inv = render(<InviteDialog workspace={hex(1)} onClose={() => {}} />)
    await screen.findByRole('checkbox', { name: '#general' })
    await checkAll(inv.container)
    inv.unmount()
    const nc = render(<NewChannelDialog onCreate={vi.fn()} onClose={() => {}} />)
    await userEvent.type(screen.getByLabelText('Name'), 'x')
    await checkAll(nc.container)
  })
})
