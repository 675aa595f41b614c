import { describe, expect, it, vi } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { Dialog, ErrorNote } from './Dialog'

function Opener({ onClose = vi.fn() }: { onClose?: () => void }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open ? (
        <Dialog
          title="Rename #design"
          onClose={() => {
            onClose()
            setOpen(false)
          }}
        >
          <label htmlFor="n">New name</label>
          <input id="n" />
          <button type="button">Save</button>
        </Dialog>
      ) : null}
    </>
  )
}

describe('Dialog', () => {
  it('is a modal named by its title, with focus in its first field rather than on Close', async () => {
    render(<Opener />)
    await userEvent.click(screen.getByRole('button', { name: 'Open' }))
    const dialog = screen.getByRole('dialog', { name: 'Rename #design' })
    expect(dialog.getAttribute('aria-modal')).toBe('true')
    expect(document.activeElement).toBe(screen.getByLabelText('New name'))
  })

  it('gives focus to a field that comes later (loaded from Go), not to Close, unless the user moved it', async () => {
    function Later({ ready }: { ready: boolean }) {
      return (
        <Dialog title="Retention" onClose={() => {}}>
          {ready ? (
            <>
              <label htmlFor="d">Days</label>
              <input id="d" />
            </>
          ) : (
            <p>Loading…</p>
          )}
        </Dialog>
      )
    }
    const { rerender, unmount } = render(<Later ready={false} />)
    const dialog = screen.getByRole('dialog', { name: 'Retention' })
    expect(document.activeElement).toBe(dialog)
    rerender(<Later ready />)
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Days')))
    unmount()

    const second = render(<Later ready={false} />)
    screen.getByRole('button', { name: 'Close' }).focus() // the user tabbed on while it loaded
    second.rerender(<Later ready />)
    await Promise.resolve()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }))
  })

  it('keeps Tab inside, both ways', async () => {
    render(<Opener />)
    await userEvent.click(screen.getByRole('button', { name: 'Open' }))
    await userEvent.tab()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Save' }))
    await userEvent.tab()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }))
    await userEvent.tab({ shift: true })
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Save' }))
  })

  it('closes on Escape wherever focus is, and gives focus back to what opened it', async () => {
    const onClose = vi.fn()
    render(<Opener onClose={onClose} />)
    const open = screen.getByRole('button', { name: 'Open' })
    await userEvent.click(open)
    await userEvent.click(screen.getByRole('button', { name: 'Save' }))
    await userEvent.keyboard('{Escape}')
    expect(onClose).toHaveBeenCalledTimes(1)
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(document.activeElement).toBe(open)
  })

  it('closes with its Close button or a click outside it, not a click inside', async () => {
    const onClose = vi.fn()
    render(<Opener onClose={onClose} />)
    await userEvent.click(screen.getByRole('button', { name: 'Open' }))
    await userEvent.click(screen.getByLabelText('New name'))
    expect(onClose).not.toHaveBeenCalled()
    await userEvent.click(screen.getByRole('button', { name: 'Close' }))
    expect(onClose).toHaveBeenCalledTimes(1)
    await userEvent.click(screen.getByRole('button', { name: 'Open' }))
    await userEvent.click(document.querySelector('.backdrop')!)
    expect(onClose).toHaveBeenCalledTimes(2)
    expect(screen.queryByRole('dialog')).toBeNull()
  })
})

describe('ErrorNote', () => {
  it('says the sentence and the code, announced as an alert; nothing without an error', () => {
    const { container, rerender } = render(<ErrorNote error={{ code: 'relay/unreachable', message: 'Weald cannot reach the relay.' }} />)
    expect(screen.getByRole('alert').textContent).toBe('Weald cannot reach the relay. relay/unreachable')
    rerender(<ErrorNote error={null} />)
    expect(container.innerHTML).toBe('')
  })
})
