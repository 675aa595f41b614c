import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { chan } from '../test/apiMock'
import { Badges, badgeLabel } from './Badges'

// What a sidebar row shows of a channel's unread messages and mentions.
describe('Badges', () => {
  it('shows the unread count, and nothing for a channel with nothing new', () => {
    const { container, rerender } = render(<Badges c={chan({ name: 'design', unread: 3 })} />)
    expect(container.textContent).toBe('3')
    expect(screen.queryByTestId('mention-badge')).toBeNull()
    rerender(<Badges c={chan({ name: 'design' })} />)
    expect(container.textContent).toBe('')
  })

  it('shows mentions of you as "@n" apart from the unread count', () => {
    const { container } = render(<Badges c={chan({ name: 'design', unread: 5, mentions: 2 })} />)
    expect(screen.getByTestId('mention-badge').textContent).toBe('@2')
    expect(container.textContent).toBe('@25')
  })

  it('hides the unread count of a muted channel but still shows a mention of you', () => {
    const { container } = render(<Badges c={chan({ name: 'design', unread: 5, muted: true, mentions: 1 })} />)
    expect(container.textContent).toBe('@1')
    expect(badgeLabel(chan({ name: 'design', unread: 5, muted: true, mentions: 1 }))).toBe(', 1 mention')
  })

  it('says the same in the row’s accessible name, since the badges themselves are hidden from screen readers', () => {
    const { container } = render(<Badges c={chan({ name: 'design', unread: 5, mentions: 2 })} />)
    for (const b of container.querySelectorAll('.badge')) expect(b.getAttribute('aria-hidden')).toBe('true')
    expect(badgeLabel(chan({ name: 'design', unread: 5, mentions: 2 }))).toBe(', 2 mentions, 5 unread')
    expect(badgeLabel(chan({ name: 'design', unread: 1 }))).toBe(', 1 unread')
    expect(badgeLabel(chan({ name: 'design' }))).toBe('')
  })
})
