import { describe, expect, it } from 'vitest'
import { render } from '@testing-library/react'
import { LockIcon } from './LockIcon'

// The shackle is the padlock's shape: closed, both of its ends reach the body
// (y = 7 of the 16 px box); open, one end stands free above it.
const shackle = (locked: boolean) => {
  const { container } = render(<LockIcon locked={locked} />)
  const svg = container.querySelector('svg')!
  return { svg, d: svg.querySelector('path')!.getAttribute('d')! }
}

describe('LockIcon', () => {
  it('draws a closed padlock for an encrypted or private channel', () => {
    const { d } = shackle(true)
    expect(d).toMatch(/^M5 7V5a3 3 0 0 1 6 0v2$/)
  })

  it('draws an open padlock otherwise, its shackle not reaching the body on the right', () => {
    const { d } = shackle(false)
    expect(d).not.toMatch(/v2$/)
    expect(d).not.toBe(shackle(true).d)
  })

  it('is a picture only: hidden from screen readers and out of the Tab order, sized as asked', () => {
    const { container } = render(<LockIcon locked size={12} />)
    const svg = container.querySelector('svg')!
    expect(svg.getAttribute('aria-hidden')).toBe('true')
    expect(svg.getAttribute('focusable')).toBe('false')
    expect(svg.getAttribute('width')).toBe('12')
    expect(shackle(true).svg.getAttribute('width')).toBe('14')
  })
})
