// Issue 17 items 7, 8 and 9 in the shell: the recovery phrase cannot be
// skipped, keyboard focus goes where a person expects, and the smaller
// truths of the header, footer and sidebar.
import { describe, expect, it, beforeEach, vi } from 'vitest'
import { act, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'
import { chan, defaults, holder, makeApi, msg, ws } from '../test/apiMock'

import { Shell } from './Shell'
import { NewChannelDialog } from './NewChannelDialog'

const status = { version: '9.9.9', dataDir: '/tmp/weald-x', hasWorkspace: false, workspaces: [] }

function inWorkspace(channels = defaults()) {
  const a = holder.current.api
  a.workspaces.list.mockResolvedValue([ws()])
  a.channels.list.mockResolvedValue(channels)
  a.messages.list.mockResolvedValue([msg({ text: 'hello' })])
  a.messages.markRead.mockResolvedValue(undefined)
}

/** narrowWindow makes matchMedia report a window of at most 800 px (src/test/setup.ts puts jsdom's back after each test). */
function narrowWindow(on: boolean) {
  window.matchMedia = ((q: string) => ({
    matches: on && q === '(max-width: 800px)',
    media: q,
    addEventListener: () => {},
    removeEventListener: () => {},
  })) as unknown as typeof window.matchMedia
}

beforeEach(() => {
  holder.current = makeApi()
  const a = holder.current.api
  a.status.mockResolvedValue(status)
  a.projects.list.mockResolvedValue([])
  a.workspaces.list.mockResolvedValue([])
  narrowWindow(false)
})

describe('the recovery phrase (item 7)', () => {
  it('cannot be skipped by clicking #general in the sidebar', async () => {
    const words = Array.from({ length: 24 }, (_, i) => `w${i + 1}`)
    const a = holder.current.api
    a.channels.list.mockResolvedValue(defaults())
    a.messages.list.mockResolvedValue([])
    a.workspaces.create.mockImplementation(async () => {
      act(() => holder.current.emit('workspaces', [ws()]))
      return { workspace: ws(), recoveryPhrase: words }
    })
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    await userEvent.type(screen.getByLabelText('Workspace name'), 'Acme')
    await userEvent.type(screen.getByLabelText('Your name'), 'Ada')
    await userEvent.type(screen.getByLabelText('Relay address'), 'ws://127.0.0.1:1')
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    await screen.findByRole('list', { name: 'Recovery phrase' })
    // #general is listed, but the sidebar is out of reach while the phrase is on screen.
    const general = await screen.findByRole('button', { name: /^#general/, hidden: true })
    await userEvent.click(general)
    expect(screen.getByRole('list', { name: 'Recovery phrase' })).toBeTruthy()
    expect(screen.getByRole('note').textContent).toMatch(/Confirm your recovery phrase first/)
    expect(general.closest('[inert]')).not.toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'I have written them down' }))
    await userEvent.click(general)
    expect(screen.getByRole('heading', { name: 'Confirm your recovery phrase' })).toBeTruthy()
    for (const input of screen.getAllByLabelText(/^Word \d+$/)) await userEvent.type(input, words[Number(input.id.slice(5))])
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect(await screen.findByRole('heading', { level: 1, name: '#general' })).toBeTruthy()
    expect(screen.queryByRole('note')).toBeNull()
  }, 60000)
})

describe('keyboard and focus (item 8)', () => {
  it('makes the primary action the first Tab stop on first run', async () => {
    render(<Shell />)
    await screen.findByRole('button', { name: 'Create a workspace' })
    await userEvent.tab()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Create a workspace' }))
  })

  it('focuses a dialog’s first field, not Close', async () => {
    render(<NewChannelDialog onCreate={vi.fn()} onClose={vi.fn()} />)
    expect(document.activeElement).toBe(screen.getByLabelText('Name'))
  })

  it('keeps focus in a dialog after a failed submit, and Escape still closes it', async () => {
    const create = vi.fn().mockRejectedValue(new ApiError('channel/name_taken', 'There is already a #x.'))
    const close = vi.fn()
    render(<NewChannelDialog onCreate={create} onClose={close} />)
    await userEvent.type(screen.getByLabelText('Name'), 'x')
    await userEvent.click(screen.getByRole('button', { name: 'Create channel' }))
    await screen.findByRole('alert')
    await act(() => new Promise((r) => setTimeout(r, 10)))
    expect(screen.getByRole('dialog').contains(document.activeElement)).toBe(true)
    await userEvent.keyboard('{Escape}')
    expect(close).toHaveBeenCalled()
  })

  it('puts focus in the composer of a channel just created', async () => {
    inWorkspace()
    const design = chan({ name: 'design' })
    const a = holder.current.api
    a.channels.create.mockImplementation(async () => {
      a.channels.list.mockResolvedValue([...defaults(), design])
      return design
    })
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'New channel' }))
    await userEvent.type(screen.getByLabelText('Name'), 'design{Enter}')
    await screen.findByRole('heading', { level: 1, name: '#design' })
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Message')))
  })
})

describe('smaller truths (item 9)', () => {
  it('says the channel is end-to-end encrypted with a closed padlock, and explains and copies the policy hash', async () => {
    inWorkspace()
    holder.current.api.copy.mockResolvedValue(true)
    render(<Shell />)
    const lock = await screen.findByTestId('lock-state')
    expect(lock.textContent).toMatch(/^End-to-end encrypted · Anyone in the workspace can join · Joiners see the history$/)
    // The closed padlock's shackle comes back down on both sides.
    expect(lock.querySelector('path')!.getAttribute('d')).toBe('M5 7V5a3 3 0 0 1 6 0v2')
    await userEvent.click(screen.getByRole('button', { name: 'Policy' }))
    const panel = screen.getByRole('region', { name: 'Policy of #general' })
    expect(panel.textContent).toMatch(/fingerprint of this channel's rules/)
    expect(within(panel).getByTestId('policy-hash').textContent).toBe(defaults()[0].policy.hash)
    await userEvent.click(within(panel).getByRole('button', { name: 'Copy policy hash' }))
    expect(holder.current.api.copy).toHaveBeenCalledWith(defaults()[0].policy.hash)
    expect(within(panel).getByRole('status').textContent).toBe('Copied')
  })

  it('shows the workspace and your name without a hex id, and the data directory only in About', async () => {
    inWorkspace()
    const { container } = render(<Shell />)
    await screen.findByText('hello')
    const side = screen.getByRole('navigation', { name: 'Workspace' })
    expect(side.textContent).not.toMatch(/[0-9a-f]{8}/)
    expect(container.textContent).not.toContain('/tmp/weald-x')
    await userEvent.click(within(side).getByRole('button', { name: 'About' }))
    const about = screen.getByRole('dialog', { name: 'About Weald' })
    expect(within(about).getByTestId('data-dir').textContent).toBe('/tmp/weald-x')
    expect(document.activeElement).toBe(within(about).getByRole('button', { name: 'Done' }))
  })

  it('shows Projects only once a workspace exists', async () => {
    holder.current.api.channels.list.mockResolvedValue(defaults())
    holder.current.api.messages.list.mockResolvedValue([])
    render(<Shell />)
    await screen.findByRole('button', { name: 'Create a workspace' })
    expect(screen.queryByRole('heading', { name: 'Projects' })).toBeNull()
    act(() => holder.current.emit('workspaces', [ws()]))
    expect(await screen.findByRole('heading', { name: 'Projects' })).toBeTruthy()
  })

  it('carries the unread count in the window title', async () => {
    inWorkspace([defaults()[0], chan({ name: 'design', unread: 3 })])
    render(<Shell />)
    await screen.findByText('hello')
    await vi.waitFor(() => expect(holder.current.api.setTitle).toHaveBeenLastCalledWith('(3) Weald'))
  })

  it('collapses the sidebar in a narrow window, out of the Tab order until shown', async () => {
    narrowWindow(true)
    inWorkspace([...defaults(), chan({ name: 'design' })])
    const { container } = render(<Shell />)
    await screen.findByText('hello')
    const side = container.querySelector<HTMLElement>('nav.sidebar')!
    expect(side.hasAttribute('inert')).toBe(true)
    await userEvent.click(screen.getByRole('button', { name: 'Show channels' }))
    expect(side.hasAttribute('inert')).toBe(false)
    await userEvent.click(within(side).getByRole('button', { name: '#design' }))
    expect(await screen.findByRole('heading', { level: 1, name: '#design' })).toBeTruthy()
    expect(side.hasAttribute('inert')).toBe(true)
  })

  it('keeps the Security badge in sight with the sidebar collapsed: on the menu button', async () => {
    narrowWindow(true)
    inWorkspace()
    const a = holder.current.api
    const alert = { id: 'a1', code: 'roster/unexpected_change', tone: 'alert', summary: 'Sam made Lee an admin.', acknowledged: 0 }
    a.security.alerts.mockResolvedValue([alert, { ...alert, id: 'n1', tone: 'notice' }])
    render(<Shell />)
    await screen.findByText('hello')
    const menu = screen.getByRole('button', { name: 'Show channels' })
    await vi.waitFor(() => expect(menu.getAttribute('aria-describedby')).toBe('menu-alerts'))
    expect(document.getElementById('menu-alerts')!.textContent).toBe('1 security alert to review')
    expect(menu.textContent).toBe('☰11 security alert to review')
    // Acknowledged elsewhere: the badge goes.
    a.security.alerts.mockResolvedValue([{ ...alert, acknowledged: 1 }])
    act(() => holder.current.emit('alert', { workspace: ws().id, id: 'a2', code: 'x/y', tone: 'notice', message: 'm' }))
    await vi.waitFor(() => expect(menu.getAttribute('aria-describedby')).toBeNull())
  })
})
