import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { ProgressList } from './Progress'

const p = (id: string, label: string, done: number, total: number, finished = false) => ({ id, label, done, total, finished })

describe('ProgressList', () => {
  it('shows each piece of long work with how far it got, as a labelled progress bar', () => {
    render(<ProgressList items={[p('a', 'Joining channels', 2, 5), p('b', 'First sync', 0, 0)]} />)
    const list = screen.getByLabelText('Work in progress')
    expect(list.textContent).toBe('Joining channels (2 of 5)First sync (0 of 0)')
    const bar = screen.getByLabelText('Joining channels (2 of 5)') as HTMLProgressElement
    expect(bar.value).toBe(2)
    expect(bar.max).toBe(5)
    // Nothing known yet: an empty bar, not a division by zero.
    const empty = screen.getByLabelText('First sync (0 of 0)') as HTMLProgressElement
    expect(empty.max).toBe(1)
    expect(empty.value).toBe(0)
  })

  it('drops work once it finished, and shows nothing when nothing runs', () => {
    const { container, rerender } = render(<ProgressList items={[p('a', 'Joining channels', 5, 5, true), p('b', 'First sync', 1, 3)]} />)
    expect(screen.queryByText(/Joining channels/)).toBeNull()
    expect(screen.getByText('First sync (1 of 3)')).toBeTruthy()
    rerender(<ProgressList items={[p('a', 'Joining channels', 5, 5, true)]} />)
    expect(container.innerHTML).toBe('')
    rerender(<ProgressList items={[]} />)
    expect(container.innerHTML).toBe('')
  })
})
