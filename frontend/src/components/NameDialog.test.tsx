import { beforeEach, describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'
import { defaults, holder, makeApi, ws } from '../test/apiMock'

import { NameDialog } from './NameDialog'
import { Shell } from './Shell'

beforeEach(() => {
  holder.current = makeApi()
  const a = holder.current.api
  a.status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] })
  a.projects.list.mockResolvedValue([])
  a.workspaces.list.mockResolvedValue([ws()])
  a.channels.list.mockResolvedValue(defaults())
  a.messages.markRead.mockResolvedValue(undefined)
})

describe('NameDialog', () => {
  it('opens from your name in the sidebar with it filled in, and saves the new one', async () => {
    const a = holder.current.api
    a.workspaces.setName.mockResolvedValue(undefined)
    render(<Shell />)
    await userEvent.click(await screen.findByRole('button', { name: 'Your name: Ada. Change it' }))
    const field = screen.getByLabelText('Your name in Acme')
    expect(document.activeElement).toBe(field)
    expect((field as HTMLInputElement).value).toBe('Ada')
    await userEvent.clear(field)
    await userEvent.type(field, '  Ada Lovelace ')
    await userEvent.click(screen.getByRole('button', { name: 'Save' }))
    expect(a.workspaces.setName).toHaveBeenCalledWith(ws().id, 'Ada Lovelace')
    expect(screen.queryByRole('dialog', { name: 'Your name' })).toBeNull()
  })

  it('says why a name is refused, in a plain sentence with its code, and keeps focus in the field', async () => {
    const save = vi
      .fn()
      .mockRejectedValue(new ApiError('roster/bad_name', 'a name must be 1 to 80 bytes of printable UTF-8 without surrounding spaces'))
    const close = vi.fn()
    render(<NameDialog workspace="Acme" current="Ada" onSave={save} onClose={close} />)
    const field = screen.getByLabelText('Your name in Acme')
    await userEvent.clear(field)
    await userEvent.type(field, 'x{Enter}')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toMatch(/^A name is at most 80 bytes .* control characters\. roster\/bad_name$/)
    expect(close).not.toHaveBeenCalled()
    expect(document.activeElement).toBe(field)
    await userEvent.keyboard('{Escape}')
    expect(close).toHaveBeenCalled()
  })
})
