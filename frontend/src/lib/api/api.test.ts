import { describe, expect, it } from 'vitest'
import { ApiError, toApiError } from './index'

describe('toApiError', () => {
  it('takes the code and sentence Go sends as fields', () => {
    const e = toApiError({ code: 'quota/log_budget_exhausted', message: 'The workspace has used its storage.' })
    expect(e).toBeInstanceOf(ApiError)
    expect(e.code).toBe('quota/log_budget_exhausted')
    expect(e.message).toBe('The workspace has used its storage.')
  })
  it('does not parse a code out of text', () => {
    const e = toApiError('quota/log_budget_exhausted: The workspace has used its storage.')
    expect(e.code).toBe('app/unexpected')
  })
  it('keeps an uncoded error whole', () => {
    const e = toApiError(new Error('boom'))
    expect(e.code).toBe('app/unexpected')
    expect(e.message).toBe('boom')
  })
})
