import { beforeEach, describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError } from '../lib/api'
import { holder, makeApi, ws } from '../test/apiMock'
import { FirstRun, randomPositions } from './FirstRun'

beforeEach(() => {
  holder.current = makeApi()
})

const words = Array.from({ length: 24 }, (_, i) => `word${i + 1}`)
// The confirm step asks for words 2, 5 and 24.
const pick = () => [1, 4, 23]

async function fillCreate() {
  await userEvent.type(screen.getByLabelText('Workspace name'), '  Acme  ')
  await userEvent.type(screen.getByLabelText('Your name'), 'Dana')
  await userEvent.type(screen.getByLabelText('Relay address'), 'wss://relay.example.org')
}

describe('FirstRun', () => {
  it('offers the four ways in, creating first', async () => {
    render(<FirstRun onReady={vi.fn()} />)
    expect(screen.getByRole('heading', { name: 'Start with a workspace' })).toBeTruthy()
    const buttons = screen.getAllByRole('button').map((b) => b.textContent)
    expect(buttons).toEqual(['Create a workspace', 'Join with an invite', 'Join as an existing user', 'Recover with your recovery phrase'])
    await userEvent.tab()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Create a workspace' }))
  })

  it('creates a workspace only with a name, your name and a relay, and shows the phrase once, then asks three of its words', async () => {
    const a = holder.current.api
    const ready = vi.fn()
    a.workspaces.create.mockResolvedValue({ workspace: ws(), recoveryPhrase: words })
    render(<FirstRun onReady={ready} pick={pick} />)
    await userEvent.click(screen.getByRole('button', { name: 'Create a workspace' }))
    expect(document.activeElement).toBe(screen.getByLabelText('Workspace name'))
    const create = screen.getByRole('button', { name: 'Create workspace' }) as HTMLButtonElement
    expect(create.disabled).toBe(true)
    await fillCreate()
    expect(create.disabled).toBe(false)
    await userEvent.click(create)
    expect(a.workspaces.create).toHaveBeenCalledWith('Acme', 'Dana', 'wss://relay.example.org')

    // Each word once, in order; then three of them asked back with the phrase off the screen.
    expect((await screen.findByRole('list', { name: 'Recovery phrase' })).textContent).toBe(words.join(''))
    // How to come back with them, in the app, and the workspace link that says where.
    const about = screen.getByText(/These 24 words are your recovery phrase/)
    expect(about.textContent).toMatch(/on a new one: there, choose Recover with your recovery phrase\./)
    expect(about.textContent).not.toMatch(/weald recover/)
    expect(about.textContent).toContain(ws().link)
    await userEvent.click(screen.getByRole('button', { name: 'I have written them down' }))
    expect(screen.queryByRole('list', { name: 'Recovery phrase' })).toBeNull()
    expect(screen.getAllByRole('textbox').map((t) => t.id)).toEqual(['word-1', 'word-4', 'word-23'])
    await userEvent.type(screen.getByLabelText('Word 2'), 'word2')
    await userEvent.type(screen.getByLabelText('Word 5'), 'word5')
    await userEvent.type(screen.getByLabelText('Word 24'), 'wrong')
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect(screen.getByRole('alert').textContent).toBe(
      'Those words do not match the phrase. Check what you wrote down, or go back to see the phrase again.',
    )
    expect(ready).not.toHaveBeenCalled()

    await userEvent.clear(screen.getByLabelText('Word 24'))
    await userEvent.type(screen.getByLabelText('Word 24'), ' WORD24 ')
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }))
    expect(ready).toHaveBeenCalledWith(ws())
  })

  it('goes back to the phrase from the confirm step', async () => {
    holder.current.api.workspaces.create.mockResolvedValue({ workspace: ws(), recoveryPhrase: words })
    render(<FirstRun onReady={vi.fn()} pick={pick} initial="create" />)
    await fillCreate()
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    await userEvent.click(await screen.findByRole('button', { name: 'I have written them down' }))
    await userEvent.click(screen.getByRole('button', { name: 'Show the phrase again' }))
    expect(screen.getByRole('list', { name: 'Recovery phrase' })).toBeTruthy()
  })

  it('says plainly when the relay cannot be reached, keeps what was typed, and creates on the next try', async () => {
    const a = holder.current.api
    const ready = vi.fn()
    a.workspaces.create
      .mockRejectedValueOnce(new ApiError('relay/unreachable', 'dial tcp: connection refused'))
      .mockResolvedValueOnce({ workspace: ws(), recoveryPhrase: [] })
    render(<FirstRun onReady={ready} initial="create" />)
    await fillCreate()
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Weald cannot reach the relay. Check your internet connection, then try again. relay/unreachable',
    )
    expect((screen.getByLabelText('Workspace name') as HTMLInputElement).value).toBe('  Acme  ')
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    // No phrase came back (the words were handed out before): nothing to confirm.
    await vi.waitFor(() => expect(ready).toHaveBeenCalledWith(ws()))
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('hosts the relay on this computer, saying who can reach it', async () => {
    const a = holder.current.api
    a.workspaces.createHosted.mockResolvedValue({ workspace: ws(), recoveryPhrase: [] })
    render(<FirstRun onReady={vi.fn()} initial="create" />)
    await userEvent.type(screen.getByLabelText('Workspace name'), 'Acme')
    await userEvent.type(screen.getByLabelText('Your name'), 'Dana')
    await userEvent.click(screen.getByRole('radio', { name: 'Host on this computer' }))
    expect(screen.queryByLabelText('Relay address')).toBeNull()
    expect(screen.getByText(/Others reach the workspace only while Weald is open/).textContent).toMatch(/only this computer can reach it\.$/)
    await userEvent.click(screen.getByRole('checkbox', { name: 'Let computers on my network join' }))
    expect(screen.getByText(/Others reach the workspace only while Weald is open/).textContent).toMatch(/teammates on the same network can join\.$/)
    await userEvent.click(screen.getByRole('button', { name: 'Create workspace' }))
    expect(a.workspaces.createHosted).toHaveBeenCalledWith('Acme', 'Dana', true)
    expect(a.workspaces.create).not.toHaveBeenCalled()
  })

  it('joins with a link it was opened with, asking your name, and says what a revoked link means', async () => {
    const a = holder.current.api
    const ready = vi.fn()
    a.workspaces.join.mockRejectedValueOnce(new ApiError('auth/revoked', 'go error')).mockResolvedValueOnce({ workspace: ws(), recoveryPhrase: [] })
    render(<FirstRun onReady={ready} link="weald://invite?v=1&x" />)
    expect(screen.getByRole('heading', { name: 'Join with an invite' })).toBeTruthy()
    expect((screen.getByLabelText('Invite link') as HTMLTextAreaElement).value).toBe('weald://invite?v=1&x')
    const join = screen.getByRole('button', { name: 'Join' }) as HTMLButtonElement
    expect(join.disabled).toBe(true)
    await userEvent.type(screen.getByLabelText('Your name'), 'Sam ')
    await userEvent.click(join)
    expect((await screen.findByRole('alert')).textContent).toBe(
      'This invite link has been revoked. Ask the person who sent it for a new one. auth/revoked',
    )
    await userEvent.click(join)
    expect(a.workspaces.join).toHaveBeenLastCalledWith('weald://invite?v=1&x', 'Sam')
    await vi.waitFor(() => expect(ready).toHaveBeenCalledWith(ws()))
  })

  it('goes back to the choice, and back to the workspace when there is one', async () => {
    const onCancel = vi.fn()
    const onStep = vi.fn()
    render(<FirstRun onReady={vi.fn()} canCancel onCancel={onCancel} onStep={onStep} />)
    await userEvent.click(screen.getByRole('button', { name: 'Join with an invite' }))
    await userEvent.click(screen.getByRole('button', { name: 'Back' }))
    expect(onStep.mock.calls.map((c) => c[0])).toEqual(['join', 'choose'])
    await userEvent.click(screen.getByRole('button', { name: 'Back to your workspace' }))
    expect(onCancel).toHaveBeenCalled()
  })
})

describe('randomPositions', () => {
  it('asks for three different words of the phrase, in order', () => {
    for (let i = 0; i < 50; i++) {
      const p = randomPositions(24)
      expect(p).toHaveLength(3)
      expect(new Set(p).size).toBe(3)
      expect([...p].sort((x, y) => x - y)).toEqual(p)
      for (const x of p) expect(x >= 0 && x < 24).toBe(true)
    }
  })
})
