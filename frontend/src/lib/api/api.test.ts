import { describe, expect, it } from 'vitest'
import { ApiError, toApiError } from './index'

describe('toApiError', () => {
  it('splits a Go error into code and sentence', () => {
    const e = toApiError('quota/log_budget_exhausted: The workspace has used its storage.')
    expect(e).toBeInstanceOf(ApiError)
    expect(e.code).toBe('quota/log_budget_exhausted')
    expect(e.message).toBe('The workspace has used its storage.')
  })
  it('keeps an uncoded error whole', () => {
    const e = toApiError(new Error('boom'))
    expect(e.code).toBe('app/unexpected')
    expect(e.message).toBe('boom')
  })
})
