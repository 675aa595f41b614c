import { useEffect, useState } from 'react'

/** The width at and under which the sidebar collapses (issue 17: "the sidebar collapses at 800 px"). */
export const NARROW = '(max-width: 800px)'

/** useNarrow says whether the window is narrow, following resizes. */
export function useNarrow(): boolean {
  const mq = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(NARROW) : null
  const [narrow, setNarrow] = useState(() => mq?.matches ?? false)
  useEffect(() => {
    if (!mq) return
    const on = () => setNarrow(mq.matches)
    on()
    mq.addEventListener('change', on)
    return () => mq.removeEventListener('change', on)
  }, [mq?.media]) // eslint-disable-line react-hooks/exhaustive-deps
  return narrow
}
