import { useCallback, useEffect, useState } from 'react'
import { api, ApiError, toApiError, type Status } from '../lib/api'

export type StatusState = { kind: 'loading' } | { kind: 'ready'; status: Status } | { kind: 'failed'; error: ApiError }

/** useStatus loads App.Status once and on reload(). */
export function useStatus(): [StatusState, () => void] {
  const [state, setState] = useState<StatusState>({ kind: 'loading' })
  const load = useCallback(() => {
    let live = true
    api.status().then(
      (status) => live && setState({ kind: 'ready', status }),
      (e) => live && setState({ kind: 'failed', error: toApiError(e) }),
    )
    return () => {
      live = false
    }
  }, [])
  useEffect(() => load(), [load])
  return [state, load]
}
