import { describe, expect, it, beforeEach } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { holder, makeApi, ws } from '../test/apiMock'

import { SetupPanel } from './SetupPanel'

describe('SetupPanel', () => {
  beforeEach(() => {
    holder.current = makeApi()
  })

  it('spells out the operator step while the relay does not know the workspace, with a copy button', async () => {
    holder.current.api.copy.mockResolvedValue(true)
    const command = 'weald-relay provision -workspace aa -genesis bb'
    render(
      <SetupPanel
        ws={ws({ ready: false, pending: ['bootstrap:genesis_set', 'bootstrap:root'], provision: { workspace: 'aa', genesisKey: 'bb', command } })}
      />,
    )
    expect(screen.getByTestId('provision-command').textContent).toBe(command)
    expect(screen.getByRole('list', { name: 'Still to do' }).textContent).toMatch(
      /Registering the workspace with the relay.*Creating the workspace group/,
    )
    await userEvent.click(screen.getByRole('button', { name: 'Copy command' }))
    expect(holder.current.api.copy).toHaveBeenCalledWith(command)
    expect(screen.getByRole('status').textContent).toBe('Copied')
  })

  it('shows the last sync error in plain words and says it keeps trying', () => {
    render(<SetupPanel ws={ws({ ready: false, pending: ['redeem'], problem: { code: 'relay/unreachable', message: 'x' } })} />)
    expect(screen.getByRole('alert').textContent).toMatch(/cannot reach the relay.*relay\/unreachable Weald keeps trying/)
  })

  it('abandons a stuck setup after asking once: the workspace leaves this device', async () => {
    holder.current.api.workspaces.remove.mockResolvedValue(undefined)
    render(<SetupPanel ws={ws({ ready: false, pending: ['bootstrap:genesis_set'], problem: { code: 'relay/unreachable', message: 'x' } })} />)
    await userEvent.click(screen.getByRole('button', { name: 'Remove from this device' }))
    expect(screen.getByRole('region', { name: 'Remove this workspace' }).textContent).toMatch(
      /the relay deletes it too; otherwise nothing changes on the relay/,
    )
    await userEvent.click(screen.getByRole('button', { name: 'Keep it' }))
    expect(holder.current.api.workspaces.remove).not.toHaveBeenCalled()
    await userEvent.click(screen.getByRole('button', { name: 'Remove from this device' }))
    await userEvent.click(screen.getByRole('button', { name: 'Remove' }))
    expect(holder.current.api.workspaces.remove).toHaveBeenCalledWith(ws().id)
  })
})
