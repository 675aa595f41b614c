import { useCallback, useEffect, useState } from 'react'
import { api, toApiError, type ApiError, type Project } from '../lib/api'

export interface ProjectsState {
  projects: Project[]
  loading: boolean
  error: ApiError | null
}

/** upsert replaces the project with the same folder, or appends it. */
export function upsert(list: Project[], p: Project): Project[] {
  const i = list.findIndex((x) => x.folder === p.folder)
  if (i < 0) return [...list, p]
  const next = list.slice()
  next[i] = p
  return next
}

/**
 * useProjects lists the known project folders and keeps them live: every
 * project:changed event from Go (the .weald watcher) replaces its entry.
 */
export function useProjects() {
  const [state, setState] = useState<ProjectsState>({ projects: [], loading: true, error: null })

  useEffect(() => {
    let live = true
    // Subscribe first so that a change between List and the subscription is not lost.
    const off = api.projects.onChanged((p) => live && setState((s) => ({ ...s, projects: upsert(s.projects, p) })))
    api.projects.list().then(
      (list) =>
        live &&
        setState((s) => ({
          loading: false,
          error: null,
          // Events that arrived before the list are newer than it.
          projects: s.projects.reduce(upsert, list),
        })),
      (e) => live && setState((s) => ({ ...s, loading: false, error: toApiError(e) })),
    )
    return () => {
      live = false
      off()
    }
  }, [])

  const add = useCallback(async (folder: string) => {
    const p = await api.projects.add(folder)
    setState((s) => ({ ...s, projects: upsert(s.projects, p) }))
    return p
  }, [])
  const forget = useCallback(async (folder: string) => {
    await api.projects.forget(folder)
    setState((s) => ({ ...s, projects: s.projects.filter((p) => p.folder !== folder) }))
  }, [])
  const bind = useCallback(async (folder: string, workspace: string, relay: string) => {
    const p = await api.projects.bind(folder, workspace, relay)
    setState((s) => ({ ...s, projects: upsert(s.projects, p) }))
    return p
  }, [])

  return { ...state, add, forget, bind }
}
