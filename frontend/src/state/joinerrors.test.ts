import { describe, expect, it } from 'vitest'
import { plainJoinMessage, plainMessage } from './errors'

describe('plainJoinMessage', () => {
  it('says a revoked link is revoked while joining, and a removed device is removed otherwise', () => {
    const e = { code: 'auth/revoked', message: 'x' }
    expect(plainJoinMessage(e)).toBe('This invite link has been revoked. Ask the person who sent it for a new one.')
    expect(plainMessage(e)).toMatch(/^This device has been removed/)
    expect(plainJoinMessage({ code: 'invite/bad_link', message: 'x' })).toBe(plainMessage({ code: 'invite/bad_link', message: 'x' }))
  })
})
