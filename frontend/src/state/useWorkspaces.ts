import { useCallback, useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Workspace } from '../lib/api'
import { followList } from './followList'

export interface WorkspacesState {
  workspaces: Workspace[]
  loading: boolean
  error: ApiError | null
  current: string | null
}

/** useWorkspaces lists the workspaces on this device and which one is shown. */
export function useWorkspaces() {
  const [s, set] = useState<WorkspacesState>({ workspaces: [], loading: true, error: null, current: null })

  useEffect(() => {
    const apply = (list: Workspace[]) =>
      set((p) => ({
        ...p,
        loading: false,
        error: null,
        workspaces: list,
        current: p.current && list.some((w) => w.id === p.current) ? p.current : (list[0]?.id ?? null),
      }))
    return followList(
      (heard) => api.workspaces.onChanged(heard),
      () => api.workspaces.list(),
      apply,
      (e) => set((p) => ({ ...p, loading: false, error: toApiError(e) })),
    )
  }, [])

  const select = useCallback((id: string) => set((p) => ({ ...p, current: id })), [])
  /**
   * added shows a workspace just created or joined. The create or join result is a snapshot from before the
   * recovery phrase was confirmed: when Go has pushed the workspace since (connected, synced), the pushed entry
   * is newer and stays; the snapshot only fills in a workspace not listed yet.
   */
  const added = useCallback(
    (ws: Workspace) =>
      set((p) => ({ ...p, workspaces: p.workspaces.some((w) => w.id === ws.id) ? p.workspaces : [...p.workspaces, ws], current: ws.id })),
    [],
  )
  return { ...s, select, added }
}
