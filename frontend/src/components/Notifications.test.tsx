import { describe, expect, it, beforeEach } from 'vitest'
import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'
import { chan, defaults, hex, holder, makeApi, ws } from '../test/apiMock'

import { NotificationSetting } from './NotificationSetting'
import { Shell } from './Shell'

describe('notifications', () => {
  beforeEach(() => {
    holder.current = makeApi()
    const a = holder.current.api
    a.status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] })
    a.projects.list.mockResolvedValue([])
    a.workspaces.list.mockResolvedValue([ws({ notifications: 'mentions' })])
    a.channels.list.mockResolvedValue(defaults())
    a.messages.markRead.mockResolvedValue(undefined)
    a.messages.page.mockResolvedValue({ messages: [], more: false })
  })

  it('sets the level per workspace, and goes back and says why when it is refused', async () => {
    const a = holder.current.api
    render(<NotificationSetting ws={ws({ notifications: 'mentions' })} />)
    const select = screen.getByLabelText('Notify me of') as HTMLSelectElement
    expect(select.value).toBe('mentions')
    expect([...select.options].map((o) => o.text)).toEqual(['Every new message', 'Mentions and direct messages', 'Nothing'])
    await userEvent.selectOptions(select, 'none')
    expect(a.workspaces.setNotifications).toHaveBeenCalledWith(ws().id, 'none')
    a.workspaces.setNotifications.mockRejectedValueOnce(new ApiError('storage/write_failed', 'Weald could not save your settings.'))
    await userEvent.selectOptions(select, 'all')
    await screen.findByText('storage/write_failed')
    expect(select.value).toBe('none')
  })

  it('tells Go the open channel and whether the window has focus', async () => {
    const a = holder.current.api
    render(<Shell />)
    await screen.findByRole('heading', { level: 1, name: '#general' })
    await vi.waitFor(() => expect(a.setAttention).toHaveBeenLastCalledWith(ws().id, defaults()[0].id, document.hasFocus()))
    await userEvent.click(screen.getByRole('button', { name: /^#activity/ }))
    await vi.waitFor(() => expect(a.setAttention).toHaveBeenLastCalledWith(ws().id, defaults()[1].id, document.hasFocus()))
    const n = a.setAttention.mock.calls.length
    window.dispatchEvent(new Event('blur')) // the window loses focus: Go hears it again
    expect(a.setAttention).toHaveBeenCalledTimes(n + 1)
    screen.getByLabelText('Notify me of')
  })

  it('opens the channel of a clicked notification, in its workspace', async () => {
    const a = holder.current.api
    const beta = ws({ id: hex(2), name: 'Beta', notifications: 'mentions' })
    const design = chan({ id: hex(0x20), name: 'design' })
    a.workspaces.list.mockResolvedValue([ws({ notifications: 'mentions' }), beta])
    a.channels.list.mockImplementation(async (id: string) => (id === beta.id ? [...defaults(), design] : defaults()))
    render(<Shell />)
    await screen.findByRole('heading', { level: 1, name: '#general' })
    // A workspace not on this device opens nothing.
    act(() => holder.current.emit('channel:open', { workspace: hex(9), channel: design.id }))
    screen.getByRole('heading', { level: 1, name: '#general' })
    // Go raised the window and says which channel the notification was about.
    act(() => holder.current.emit('channel:open', { workspace: beta.id, channel: design.id }))
    await screen.findByRole('heading', { level: 1, name: '#design' })
    await vi.waitFor(() => expect(a.setAttention).toHaveBeenLastCalledWith(beta.id, design.id, document.hasFocus()))
  })

  it('opens the Security view of a clicked security alert, in its workspace', async () => {
    const a = holder.current.api
    const beta = ws({ id: hex(2), name: 'Beta', notifications: 'mentions' })
    a.workspaces.list.mockResolvedValue([ws({ notifications: 'mentions' }), beta])
    render(<Shell />)
    await screen.findByRole('heading', { level: 1, name: '#general' })
    act(() => holder.current.emit('channel:open', { workspace: beta.id, channel: '', view: 'security' }))
    await screen.findByRole('heading', { level: 1, name: 'Security' })
    await vi.waitFor(() => expect(a.security.alerts).toHaveBeenCalledWith(beta.id))
  })
})
