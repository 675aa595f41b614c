// The only module that talks to Go. Everything else imports from here, so that
// tests can replace the backend with vi.mock('../lib/api') and the e2e build
// can serve the same calls over HTTP (app/shim).
import * as App from '../../../wailsjs/go/app/App'
import { app } from '../../../wailsjs/go/models'

export type Status = app.Status
export type WorkspaceSummary = app.WorkspaceSummary

/** An error from a bound method: a stable code and one plain sentence. */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** toApiError turns what a rejected Go call gives ("code: sentence") into an ApiError. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  const text = typeof e === 'string' ? e : e instanceof Error ? e.message : String(e)
  const m = /^([a-z_]+\/[a-z_.]+): (.*)$/s.exec(text)
  if (m) return new ApiError(m[1], m[2])
  return new ApiError('app/unexpected', text)
}

async function wrap<T>(p: () => Promise<T>): Promise<T> {
  try {
    return await p()
  } catch (e) {
    throw toApiError(e)
  }
}

export const api = {
  status: (): Promise<Status> => wrap(() => App.Status()),
}
