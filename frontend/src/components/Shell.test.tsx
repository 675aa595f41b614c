import { describe, expect, it, beforeEach } from 'vitest'
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'
import { chan, defaults, holder, hex, makeApi, msg, unreachable, policy, ws } from '../test/apiMock'

import { Shell } from './Shell'
import { releaseOf } from './Sidebar'

const failing = {
  check: 'storage',
  title: 'Storage',
  state: 'action' as const,
  severity: 'critical' as const,
  finding: 'Full.',
  action: null,
  groups: [],
}

const status = { version: '9.9.9', commit: '0123456789ab', dataDir: '/tmp/weald-x', hasWorkspace: false, workspaces: [] }

function inWorkspace(channels = defaults(), messages = [msg({ text: 'hello' })]) {
  const a = holder.current.api
  a.workspaces.list.mockResolvedValue([ws()])
  a.channels.list.mockResolvedValue(channels)
  a.messages.list.mockResolvedValue(messages)
  a.messages.markRead.mockResolvedValue(undefined)
}

describe('Shell', () => {
  beforeEach(async () => {
    holder.current = makeApi()
    const a = holder.current.api
    a.status.mockResolvedValue(status)
    a.projects.list.mockResolvedValue([])
    a.workspaces.list.mockResolvedValue([])
  })

  it('puts a badge on the health panel button when a check needs action', async () => {
    inWorkspace()
    holder.current.api.health.get.mockResolvedValue({
      report: { at: 1, needsAction: true, findings: [failing] },
      groups: [],
      storage: [],
      pending: [],
    })
    render(<Shell />)
    const button = await screen.findByRole('button', { name: /Encryption & health/ })
    expect((await within(button).findByLabelText('1 needs action')).textContent).toBe('1')
  })

  it('reads the badge again when a health check runs', async () => {
    inWorkspace()
    const a = holder.current.api
    const clean = { report: { at: 1, needsAction: false, findings: [] }, groups: [], storage: [], pending: [] }
    a.health.get.mockResolvedValue(clean)
    render(<Shell />)
    const button = await screen.findByRole('button', { name: /Encryption & health/ })
    await waitFor(() => expect(a.health.get).toHaveBeenCalled())
    expect(within(button).queryByLabelText(/need/)).toBeNull()
    a.health.get.mockResolvedValue({ ...clean, report: { at: 2, needsAction: true, findings: [failing] } })
    act(() => holder.current.emit('health:changed', { workspace: hex(1) }))
    expect((await within(button).findByLabelText('1 needs action')).textContent).toBe('1')
    // ... and again when it clears, e.g. after a repair elsewhere.
    a.health.get.mockResolvedValue(clean)
    act(() => holder.current.emit('health:changed', { workspace: hex(1) }))
    await waitFor(() => expect(within(button).queryByLabelText(/need/)).toBeNull())
  })

  it('shows backend state and the two ways in when there is no workspace', async () => {
    render(<Shell />)
    await waitFor(() => expect(screen.getByTestId('version').textContent).toBe('9.9.9'))
    await userEvent.click(screen.getByRole('button', { name: 'About' }))
    expect(screen.getByTestId('data-dir').textContent).toBe('/tmp/weald-x')
    expect(screen.getByTestId('about-commit').textContent).toBe('0123456789ab')
    await userEvent.click(screen.getByRole('button', { name: 'Done' }))
    expect(await screen.findByRole('button', { name: 'Create a workspace' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Join with an invite' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull()
    expect(screen.getByRole('navigation', { name: 'Workspace' })).toBeTruthy()
  })

  it('opens on the join screen with the invite link it was started with', async () => {
    const link = 'weald://join?relay=ws%3A%2F%2F127.0.0.1%3A1%2Fv1%2Fws&id=ab'
    holder.current.api.takeLaunchLink.mockResolvedValue(link)
    render(<Shell />)
    expect(await screen.findByRole('heading', { name: 'Join with an invite' })).toBeTruthy()
    expect(screen.getByLabelText('Invite link')).toHaveProperty('value', link)
    expect(holder.current.api.takeLaunchLink).toHaveBeenCalledTimes(1)
  })

  it('takes a link a later launch handed over while it runs: an invite to the join screen, a pairing link to the pairing screen', async () => {
    inWorkspace()
    const a = holder.current.api
    render(<Shell />)
    await screen.findByRole('heading', { level: 1, name: '#general' })
    const invite = 'weald://invite?relay=ws%3A%2F%2F127.0.0.1%3A1%2Fv1%2Fws&id=ab'
    a.takeLaunchLink.mockResolvedValueOnce(invite)
    act(() => holder.current.emit('launch:link', undefined))
    expect(await screen.findByRole('heading', { name: 'Join with an invite' })).toBeTruthy()
    expect(screen.getByLabelText('Invite link')).toHaveProperty('value', invite)
    const pair = 'weald://pair?relay=ws%3A%2F%2F127.0.0.1%3A1%2Fv1%2Fws&id=cd'
    a.takeLaunchLink.mockResolvedValueOnce(pair)
    act(() => holder.current.emit('launch:link', undefined))
    expect(await screen.findByRole('heading', { name: 'Join as an existing user' })).toBeTruthy()
    expect(screen.getByLabelText('Pairing link')).toHaveProperty('value', pair)
    expect(a.takeLaunchLink).toHaveBeenCalledTimes(3)
  })

  it('says in plain words what to do when the relay does not answer', async () => {
    holder.current.api.workspaces.create.mockRejectedValue(await unreachable())
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    await userEvent.type(screen.getByLabelText('Workspace name'), 'Acme')
    await userEvent.type(screen.getByLabelText('Your name'), 'Ada')
    await userEvent.type(screen.getByLabelText('Relay address'), 'ws://127.0.0.1:1')
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    expect((await screen.findByRole('alert')).textContent).toMatch(
      /cannot reach the relay. Check your internet connection, then try again\..*relay\/unreachable/,
    )
  })

  it('keeps the recovery phrase on screen when the new workspace appears in the list', async () => {
    const words = Array.from({ length: 24 }, (_, i) => `w${i + 1}`)
    const a = holder.current.api
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([])
    // The Go side announces the workspace as soon as it exists, before Create returns.
    a.workspaces.create.mockImplementation(async () => {
      act(() => holder.current.emit('workspaces', [ws()]))
      return { workspace: ws(), recoveryPhrase: words }
    })
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    await userEvent.type(screen.getByLabelText('Workspace name'), 'Acme')
    await userEvent.type(screen.getByLabelText('Your name'), 'Ada')
    await userEvent.type(screen.getByLabelText('Relay address'), 'ws://127.0.0.1:1{Enter}')
    const phrase = await screen.findByRole('list', { name: 'Recovery phrase' })
    expect(within(phrase).getAllByRole('listitem').length).toBe(24)
  })

  it('creates a workspace: the recovery phrase once, a confirm step, then #general ready to send', async () => {
    const words = Array.from({ length: 24 }, (_, i) => `word${i + 1}`)
    const a = holder.current.api
    a.workspaces.create.mockResolvedValue({ workspace: ws(), recoveryPhrase: words })
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([])
    a.messages.markRead.mockResolvedValue(undefined)
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    await userEvent.type(screen.getByLabelText('Workspace name'), ' Acme ')
    await userEvent.type(screen.getByLabelText('Your name'), 'Ada')
    await userEvent.type(screen.getByLabelText('Relay address'), 'ws://127.0.0.1:1{Enter}')
    expect(a.workspaces.create).toHaveBeenCalledWith('Acme', 'Ada', 'ws://127.0.0.1:1')
    const phrase = await screen.findByRole('list', { name: 'Recovery phrase' })
    expect(
      within(phrase)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(words)
    await userEvent.click(screen.getByRole('button', { name: 'I have written them down' }))
    // The phrase is no longer on screen while confirming.
    expect(screen.queryByRole('list', { name: 'Recovery phrase' })).toBeNull()
    const asked = screen.getAllByLabelText(/^Word \d+$/)
    expect(asked.length).toBe(3)
    for (const input of asked) await userEvent.type(input, 'wrong')
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect((await screen.findByRole('alert')).textContent).toMatch(/do not match/)
    for (const input of asked) {
      const n = Number(/\d+/.exec(input.id)![0])
      await userEvent.clear(input)
      await userEvent.type(input, words[n])
    }
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('#general')
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(false)
  })

  it('joins with a pasted invite link, showing the joiner its own recovery phrase once', async () => {
    const a = holder.current.api
    const words = Array.from({ length: 24 }, (_, i) => `j${i + 1}`)
    a.workspaces.join.mockResolvedValue({ workspace: ws({ name: 'Beta' }), recoveryPhrase: words })
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([msg({ text: 'first!' })])
    a.messages.markRead.mockResolvedValue(undefined)
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Join with an invite' }))
    await userEvent.type(screen.getByLabelText('Invite link'), '  weald://join/abc  ')
    // Sam is asked his name: Join waits for it.
    expect((screen.getByRole('button', { name: 'Join' }) as HTMLButtonElement).disabled).toBe(true)
    await userEvent.type(screen.getByLabelText('Your name'), ' Sam ')
    await userEvent.click(screen.getByRole('button', { name: 'Join' }))
    expect(a.workspaces.join).toHaveBeenCalledWith('weald://join/abc', 'Sam')
    const phrase = await screen.findByRole('list', { name: 'Recovery phrase' })
    expect(
      within(phrase)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(words)
    await userEvent.click(screen.getByRole('button', { name: 'I have written them down' }))
    for (const input of screen.getAllByLabelText(/^Word \d+$/)) {
      await userEvent.type(input, words[Number(/\d+/.exec(input.id)![0])])
    }
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect(await screen.findByText('first!')).toBeTruthy()
    // The ready state is reported to Go (logged for the desktop smoke test).
    expect(a.ready).toHaveBeenCalledWith(hex(1), 'general')
  })

  it('recovers with the phrase: the status screen while on probation, then the workspace once approved', async () => {
    const a = holder.current.api
    const words = Array.from({ length: 24 }, (_, i) => `r${i + 1}`)
    const rec = (stage: 'listing' | 'approval' | 'finishing' | 'done') => ({
      stage,
      device: hex(9),
      listed: stage !== 'listing',
      probationEnds: 0,
      revokedOld: 0,
    })
    a.workspaces.recover.mockResolvedValue(ws({ ready: false, you: 'Sam', recovery: rec('listing') }))
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([msg({ text: 'before the loss' })])
    a.messages.markRead.mockResolvedValue(undefined)
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Recover with your recovery phrase' }))
    fireEvent.change(screen.getByLabelText('Word 1'), { target: { value: words.join(' ') } })
    await userEvent.type(screen.getByLabelText('Workspace link or relay address'), 'weald://workspace?v=1')
    await screen.findByText('All 24 words are valid.')
    await userEvent.click(screen.getByRole('button', { name: 'Recover' }))
    expect(a.workspaces.recover).toHaveBeenCalledWith('weald://workspace?v=1', '', words)
    expect(await screen.findByRole('heading', { name: 'Waiting for an admin' })).toBeTruthy()
    // Listed, and in #general: on probation still, the status stays; the workspace can be opened meanwhile.
    act(() => holder.current.emit('workspaces', [ws({ you: 'Sam', recovery: rec('approval') })]))
    expect(await screen.findByRole('heading', { name: 'Waiting for an admin to approve this device' })).toBeTruthy()
    expect(screen.queryByText('before the loss')).toBeNull()
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Recovery')
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull()
    // Approved: the workspace, with the history.
    act(() => holder.current.emit('workspaces', [ws({ you: 'Sam', recovery: rec('done') })]))
    expect(await screen.findByText('before the loss')).toBeTruthy()
    expect(screen.queryByRole('heading', { name: /Waiting/ })).toBeNull()
  })

  it('opens a recovered workspace while it waits, with a note of the probation that leads back to the status', async () => {
    const a = holder.current.api
    const rec = { stage: 'approval' as const, device: hex(9), listed: true, probationEnds: 0, revokedOld: 0 }
    inWorkspace()
    a.workspaces.list.mockResolvedValue([ws({ recovery: rec })])
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Open Acme while you wait' }))
    expect(await screen.findByText('hello')).toBeTruthy()
    const note = screen.getByText(/This device is on probation until an admin approves it/)
    await userEvent.click(within(note).getByRole('button', { name: 'Recovery status' }))
    expect(await screen.findByRole('heading', { name: 'Waiting for an admin to approve this device' })).toBeTruthy()
  })

  it('refuses a bad link in plain words and stays on the form', async () => {
    holder.current.api.workspaces.join.mockRejectedValue(new ApiError('invite/bad_link', 'not a link'))
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Join with an invite' }))
    await userEvent.type(screen.getByLabelText('Invite link'), 'nonsense')
    await userEvent.type(screen.getByLabelText('Your name'), 'Sam')
    await userEvent.click(screen.getByRole('button', { name: 'Join' }))
    expect((await screen.findByRole('alert')).textContent).toMatch(/not a Weald invite link.*paste it again/)
    expect((screen.getByLabelText('Invite link') as HTMLTextAreaElement).value).toBe('nonsense')
  })

  it('lists default channels first with #activity muted, unread counts, and the lock state of the open one', async () => {
    inWorkspace([
      ...defaults(),
      chan({ name: 'design', unread: 2 }),
      chan({ name: 'hr', policy: policy({ admission: 'explicit', history: 'closed', hash: hex(0x77) }) }),
    ])
    render(<Shell />)
    await screen.findByRole('button', { name: '#general' })
    const defaultsList = screen.getByRole('list', { name: 'Default channels' })
    expect(
      within(defaultsList)
        .getAllByRole('button', { name: /^#/ })
        .map((b) => b.getAttribute('aria-label')),
    ).toEqual(['#general', '#activity, muted'])
    const others = screen.getByRole('list', { name: 'Other channels' })
    expect(within(others).getByRole('button', { name: '#design, 2 unread' })).toBeTruthy()
    const lock = screen.getByTestId('lock-state')
    expect(lock.textContent).toMatch(/Anyone in the workspace can join.*Joiners see the history/)
    expect(lock.getAttribute('title')).toBe(`Policy ${hex(0x6e)}`)
    await userEvent.click(within(others).getByRole('button', { name: /^#hr/ }))
    expect(screen.getByTestId('lock-state').textContent).toMatch(/Members add people.*Joiners see messages from joining on/)
    expect(screen.getByTestId('lock-state').getAttribute('title')).toBe(`Policy ${hex(0x77)}`)
    expect(screen.getByTestId('lock-state').dataset.lock).toBe('locked')
  })

  it('offers rename, mute and reorder for defaults but never delete or archive', async () => {
    inWorkspace([...defaults(), chan({ name: 'design' })])
    const a = holder.current.api
    a.channels.renameLocal.mockImplementation(async (_w: string, id: string, name: string) => ({ ...defaults()[0], id, name }))
    a.channels.setMuted.mockImplementation(async (_w: string, id: string, muted: boolean) => ({ ...defaults()[0], id, muted }))
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Options for #general' }))
    let menu = screen.getByRole('menu')
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((m) => m.textContent),
    ).toEqual(['Rename', 'Mute', 'Move down'])
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Rename' }))
    const input = screen.getByLabelText('New name for #general')
    await userEvent.clear(input)
    await userEvent.type(input, 'lobby{Enter}')
    expect(a.channels.renameLocal).toHaveBeenCalledWith(hex(1), hex(0x10), 'lobby')
    expect(await screen.findByRole('button', { name: '#lobby' })).toBeTruthy()

    await userEvent.click(screen.getByRole('button', { name: 'Options for #activity' }))
    menu = screen.getByRole('menu')
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((m) => m.textContent),
    ).toEqual(['Rename', 'Unmute', 'Move up'])
    await userEvent.click(screen.getByRole('button', { name: 'Options for #activity' }))

    await userEvent.click(screen.getByRole('button', { name: 'Options for #design' }))
    expect(
      within(screen.getByRole('menu'))
        .getAllByRole('menuitem')
        .map((m) => m.textContent),
    ).toEqual(['Rename', 'Mute'])
  })

  it('moves a default channel down within the defaults', async () => {
    inWorkspace()
    const a = holder.current.api
    a.channels.moveLocal.mockResolvedValue([defaults()[1], defaults()[0]])
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Options for #general' }))
    await userEvent.click(screen.getByRole('menuitem', { name: 'Move down' }))
    expect(a.channels.moveLocal).toHaveBeenCalledWith(hex(1), hex(0x10), 1)
    const list = screen.getByRole('list', { name: 'Default channels' })
    expect(
      within(list)
        .getAllByRole('button', { name: /^#/ })
        .map((b) => b.getAttribute('aria-label')),
    ).toEqual(['#activity, muted', '#general'])
  })

  it('shows a channel created elsewhere without any action (channels:changed)', async () => {
    inWorkspace()
    render(<Shell />)
    await screen.findByRole('button', { name: '#general' })
    act(() => holder.current.emit('channels', { workspace: hex(1), channels: [...defaults(), chan({ name: 'launch' })] }))
    expect(await screen.findByRole('button', { name: '#launch' })).toBeTruthy()
    act(() => holder.current.emit('channels', { workspace: hex(2), channels: [] }))
    expect(screen.getByRole('button', { name: '#launch' })).toBeTruthy()
  })

  it('sends a message showing its sending state, and a byte-budget refusal in words that say what to do', async () => {
    inWorkspace()
    const a = holder.current.api
    let resolve!: (m: unknown) => void
    a.messages.send.mockImplementationOnce(() => new Promise((r) => (resolve = r)))
    render(<Shell />)
    expect(await screen.findByText('hello')).toBeTruthy()
    await userEvent.type(screen.getByLabelText('Message'), 'shipping today{Enter}')
    expect(a.messages.send).toHaveBeenCalledWith(hex(1), hex(0x10), 'shipping today')
    expect(screen.getByText('Sending…')).toBeTruthy()
    await act(async () => resolve(msg({ id: 'm2', text: 'shipping today', mine: true, author: 'Ada' })))
    expect(screen.queryByText('Sending…')).toBeNull()
    expect(screen.getByText('shipping today')).toBeTruthy()

    a.messages.send.mockRejectedValueOnce(new ApiError('quota/log_budget_exhausted', 'budget'))
    await userEvent.type(screen.getByLabelText('Message'), 'one more{Enter}')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toMatch(/used all the storage its relay gives it.*Ask an admin.*then send it again/)
    expect(alert.textContent).toContain('quota/log_budget_exhausted')
    a.messages.send.mockResolvedValueOnce(msg({ id: 'm3', text: 'one more', mine: true }))
    await userEvent.click(screen.getByRole('button', { name: 'Send again' }))
    expect(await screen.findByText('one more')).toBeTruthy()
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('shows the offline state and clears it by itself once connected again', async () => {
    inWorkspace()
    holder.current.api.workspaces.list.mockResolvedValue([ws({ connected: false })])
    render(<Shell />)
    await screen.findByText('hello')
    expect((await screen.findByText(/Not connected to the relay; reconnecting/)).textContent).toMatch(
      /Messages you send, edit or delete wait on this device and go out by themselves once connected/,
    )
    act(() => holder.current.emit('workspaces', [ws({ connected: true, problem: { code: 'roster/invalid', message: 'the roster is not trusted' } })]))
    expect(screen.queryByText(/Not connected to the relay/)).toBeNull()
    expect(screen.getByText(/Not in sync/).textContent).toMatch(/roster\/invalid.*Weald keeps trying/)
    act(() => holder.current.emit('workspaces', [ws({ connected: true, problem: null })]))
    expect(screen.queryByText(/Not in sync/)).toBeNull()
  })

  it('keeps a message waiting in the outbox on screen across a channel switch, and it goes out by itself', async () => {
    const chans = [...defaults(), chan({ id: hex(0x12), name: 'design' })]
    inWorkspace(chans)
    const a = holder.current.api
    const pending = msg({ id: 'out-1', text: 'typed offline', mine: true, state: 'pending' })
    a.messages.send.mockResolvedValueOnce(pending)
    render(<Shell />)
    await screen.findByText('hello')
    await userEvent.type(screen.getByLabelText('Message'), 'typed offline{Enter}')
    expect(await screen.findByText('typed offline')).toBeTruthy()
    expect(screen.getByText('Sending…')).toBeTruthy()
    // Away and back: the list from Go holds the outbox.
    a.messages.list.mockImplementation(async (_ws: string, c: string) => (c === hex(0x10) ? [msg({ text: 'hello' }), pending] : []))
    await userEvent.click(screen.getByRole('button', { name: '#design' }))
    await screen.findByText(/No messages in #design yet/)
    await userEvent.click(screen.getByRole('button', { name: '#general' }))
    expect(await screen.findByText('typed offline')).toBeTruthy()
    expect(screen.getByText('Sending…')).toBeTruthy()
    // Reconnected: it is in the log now, not in the outbox.
    a.messages.list.mockResolvedValue([msg({ text: 'hello' }), msg({ id: 'm9', text: 'typed offline', mine: true })])
    act(() => holder.current.emit('messages', { workspace: hex(1), channel: hex(0x10) }))
    await screen.findByText('typed offline')
    await vi.waitFor(() => expect(screen.queryByText('Sending…')).toBeNull())
    expect(screen.getAllByText('typed offline')).toHaveLength(1)
  })

  it('offers to send a refused outbox message again or discard it', async () => {
    const failed = msg({
      id: 'out-2',
      text: 'to nowhere',
      mine: true,
      state: 'failed',
      error: { code: 'channel/unknown', message: 'there is no channel with that name or id' },
    })
    inWorkspace(defaults(), [msg({ text: 'hello' }), failed])
    const a = holder.current.api
    a.messages.retry.mockResolvedValue(undefined)
    a.messages.discard.mockResolvedValue(undefined)
    render(<Shell />)
    expect(await screen.findByText('Not sent')).toBeTruthy()
    expect(screen.getByRole('alert').textContent).toContain('channel/unknown')
    await userEvent.click(screen.getByRole('button', { name: 'Send again' }))
    expect(a.messages.retry).toHaveBeenCalledWith(hex(1), 'out-2')
    await userEvent.click(screen.getByRole('button', { name: 'Discard' }))
    expect(a.messages.discard).toHaveBeenCalledWith(hex(1), 'out-2')
    expect(screen.queryByText('to nowhere')).toBeNull()
  })

  it('clears a channel-list error once the list arrives', async () => {
    inWorkspace()
    holder.current.api.channels.list.mockRejectedValueOnce(new ApiError('relay/unreachable', 'x'))
    render(<Shell />)
    expect(await screen.findByText(/relay\/unreachable/)).toBeTruthy()
    act(() => holder.current.emit('channels', { workspace: hex(1), channels: defaults() }))
    expect(screen.queryByText(/relay\/unreachable/)).toBeNull()
  })

  it('shows a message from another member live', async () => {
    inWorkspace()
    render(<Shell />)
    await screen.findByText('hello')
    holder.current.api.messages.list.mockResolvedValue([msg({ text: 'hello' }), msg({ text: 'from bob', author: 'Bob', sentAt: 1_700_000_001_000 })])
    act(() => holder.current.emit('messages', { workspace: hex(1), channel: hex(0x10) }))
    expect(await screen.findByText('from bob')).toBeTruthy()
  })

  it('switches between workspaces, showing the other one’s unread count', async () => {
    inWorkspace()
    const a = holder.current.api
    a.workspaces.list.mockResolvedValue([ws(), ws({ id: hex(2), name: 'Beta', unread: 5 })])
    render(<Shell />)
    const sel = (await screen.findByRole('combobox', { name: 'Switch workspace' })) as HTMLSelectElement
    expect(within(sel).getByRole('option', { name: 'Beta (5 unread)' })).toBeTruthy()
    a.channels.list.mockResolvedValue([chan({ id: hex(0x20), name: 'general', policy: policy({ default: true }) })])
    a.messages.list.mockResolvedValue([msg({ text: 'beta says hi', channel: hex(0x20) })])
    await userEvent.selectOptions(sel, hex(2))
    expect(await screen.findByText('beta says hi')).toBeTruthy()
    expect(a.channels.list).toHaveBeenLastCalledWith(hex(2))
  })

  it('shows a security alert from the engine until dismissed, which acknowledges it', async () => {
    inWorkspace()
    holder.current.api.security.dismiss.mockResolvedValue([])
    render(<Shell />)
    await screen.findByText('hello')
    act(() =>
      holder.current.emit('alert', { workspace: hex(1), id: 'a1', code: 'join/forged', tone: 'alert', message: 'A forged join was removed.' }),
    )
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe('Security alert in Acme: A forged join was removed. Review Dismiss')
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }))
    expect(screen.queryByRole('alert')).toBeNull()
    expect(holder.current.api.security.dismiss).toHaveBeenCalledWith(hex(1), 'a1')
  })

  it('shows progress for long work', async () => {
    inWorkspace()
    render(<Shell />)
    await screen.findByText('hello')
    act(() => holder.current.emit('progress', { id: 'join', label: 'Joining channels', done: 3, total: 8, finished: false }))
    const bar = screen.getByRole('progressbar', { name: 'Joining channels (3 of 8)' }) as HTMLProgressElement
    expect(bar.value).toBe(3)
    act(() => holder.current.emit('progress', { id: 'join', label: 'Joining channels', done: 8, total: 8, finished: true }))
    expect(screen.queryByRole('progressbar')).toBeNull()
  })

  it('shows a failing status call as an error with its code and a retry', async () => {
    const a = holder.current.api
    a.status.mockReset()
    a.status.mockRejectedValueOnce(new ApiError('storage/unreadable', 'The data directory /d cannot be read.'))
    a.status.mockResolvedValueOnce({ ...status, version: '2' })
    render(<Shell />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('storage/unreadable')
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByTestId('version')).toHaveProperty('textContent', '2')
  })
})

describe('releaseOf', () => {
  it('leaves the commit hash of git describe to the About view', () => {
    expect(releaseOf('v0.0.0-387-g2244fedb6bc9-dirty')).toBe('v0.0.0-387-dirty')
    expect(releaseOf('v0.4.1')).toBe('v0.4.1')
    expect(releaseOf('v1.2.0-3-gabcdef1')).toBe('v1.2.0-3')
  })
})
