import { describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { chan, hex } from '../test/apiMock'
import { Composer } from './Composer'

const field = () => screen.getByRole('combobox', { name: 'Message' }) as HTMLInputElement
const send = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement

describe('Composer', () => {
  it('sends the trimmed text with Enter or Send and empties the field', async () => {
    const onSend = vi.fn()
    render(<Composer channel={chan({ name: 'design' })} onSend={onSend} />)
    expect(field().placeholder).toBe('Message #design')
    await userEvent.type(field(), '  hello there  {Enter}')
    expect(onSend).toHaveBeenLastCalledWith('hello there', [])
    expect(field().value).toBe('')
    await userEvent.type(field(), 'second')
    await userEvent.click(send())
    expect(onSend).toHaveBeenLastCalledWith('second', [])
    expect(onSend).toHaveBeenCalledTimes(2)
  })

  it('does not send an empty or blank message', async () => {
    const onSend = vi.fn()
    render(<Composer channel={chan({ name: 'design' })} onSend={onSend} />)
    await userEvent.type(field(), '{Enter}')
    await userEvent.type(field(), '   {Enter}')
    await userEvent.click(send())
    expect(onSend).not.toHaveBeenCalled()
  })

  it('says a channel is still being joined, and takes nothing until it is', async () => {
    const onSend = vi.fn()
    render(<Composer channel={chan({ name: 'design', joined: false })} onSend={onSend} />)
    expect(field().placeholder).toBe('Joining #design…')
    expect(field().disabled).toBe(true)
    expect(send().disabled).toBe(true)
  })

  it('names the person of a direct message, and says when their device has yet to add this one', () => {
    const { rerender } = render(<Composer channel={chan({ name: 'Sam', kind: 'dm' })} onSend={vi.fn()} />)
    expect(field().placeholder).toBe('Message Sam')
    rerender(<Composer channel={chan({ name: 'Sam', kind: 'dm', joined: false })} onSend={vi.fn()} />)
    expect(field().placeholder).toBe("Waiting for Sam's Weald to add this device…")
    expect(field().disabled).toBe(true)
  })

  it('without a workspace says how to get one, with Send disabled', () => {
    render(<Composer onSend={vi.fn()} />)
    expect(field().placeholder).toBe('Join a workspace to send messages')
    expect(send().disabled).toBe(true)
  })

  it('takes focus for a channel just created, not otherwise', () => {
    const c = chan({ name: 'design' })
    const { unmount } = render(<Composer channel={c} onSend={vi.fn()} />)
    expect(document.activeElement).not.toBe(field())
    unmount()
    render(<Composer channel={c} focusKey={c.id} onSend={vi.fn()} />)
    expect(document.activeElement).toBe(field())
  })

  it('closes the mention list with Escape and leaves the text as typed; Tab picks a person', async () => {
    const onSend = vi.fn()
    const people = [{ user: hex(0xb), name: 'Ben' }]
    render(<Composer channel={chan({ name: 'design' })} onSend={onSend} loadMembers={() => Promise.resolve(people)} />)
    await userEvent.type(field(), '@be')
    await screen.findByRole('listbox', { name: 'People to mention' })
    expect(field().getAttribute('aria-expanded')).toBe('true')
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('listbox')).toBeNull()
    expect(field().value).toBe('@be')
    await userEvent.clear(field())
    await userEvent.type(field(), 'ask @b')
    await screen.findByRole('option', { name: '@Ben' })
    await userEvent.keyboard('{Tab}')
    expect(field().value).toBe('ask @Ben ')
    await userEvent.keyboard('{Enter}')
    expect(onSend).toHaveBeenCalledWith('ask @Ben', [expect.objectContaining({ user: hex(0xb), start: 4, end: 8 })])
  })

  it('leaves the caret after a picked person at once: a key typed before the next frame follows the name', async () => {
    vi.useFakeTimers({ toFake: ['requestAnimationFrame'] }) // no frame passes until the test says so
    const people = [{ user: hex(0xb), name: 'Ben' }]
    render(<Composer channel={chan({ name: 'design' })} onSend={vi.fn()} loadMembers={() => Promise.resolve(people)} />)
    await userEvent.type(field(), 'ask @b')
    await screen.findByRole('option', { name: '@Ben' })
    await userEvent.keyboard('{Enter}')
    await userEvent.keyboard('n')
    vi.advanceTimersToNextFrame()
    await userEvent.keyboard('ow')
    expect(field().value).toBe('ask @Ben now')
  })
})
