import { describe, expect, it, vi, beforeEach } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'

const status = vi.fn()
vi.mock('../lib/api', async (orig) => {
  const real = await orig<typeof import('../lib/api')>()
  return { ...real, api: { status: () => status() } }
})

import { Shell } from './Shell'

describe('Shell', () => {
  beforeEach(() => status.mockReset())

  it('shows backend state and the two ways in when there is no workspace', async () => {
    status.mockResolvedValue({ version: '9.9.9', dataDir: '/tmp/weald-x', hasWorkspace: false, workspaces: [] })
    render(<Shell />)
    expect(await screen.findByTestId('version')).toHaveProperty('textContent', '9.9.9')
    expect(screen.getByTestId('data-dir').textContent).toBe('/tmp/weald-x')
    expect(screen.getByRole('button', { name: 'Create a workspace' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Join with an invite' })).toBeTruthy()
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true)
    expect(screen.getByRole('navigation', { name: 'Workspace' })).toBeTruthy()
  })

  it('says plainly that creation is not in this build when chosen', async () => {
    status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: false, workspaces: [] })
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Create a workspace' }))
    expect(screen.getByRole('status').textContent).toMatch(/does not include yet/)
  })

  it('shows a workspace that exists instead of the empty state', async () => {
    status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [{ id: 'ws-abc' }] })
    render(<Shell />)
    expect(await screen.findByText('ws-abc')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Create a workspace' })).toBeNull()
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('#general')
  })

  it('shows a failing status call as an error with its code and a retry', async () => {
    status.mockRejectedValueOnce(new ApiError('storage/unreadable', 'The data directory /d cannot be read.'))
    status.mockResolvedValueOnce({ version: '2', dataDir: '/d', hasWorkspace: false, workspaces: [] })
    render(<Shell />)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('storage/unreadable')
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByTestId('version')).toHaveProperty('textContent', '2')
  })
})
