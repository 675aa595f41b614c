import { createContext, useContext, useEffect } from 'react'

/**
 * PhraseOnScreen is told while a new recovery phrase (or its confirm step)
 * is on screen, so that the shell keeps everything else out of reach until
 * the phrase is confirmed (issue 17 item 7: #general in the sidebar must not
 * skip it).
 */
export const PhraseOnScreen = createContext<(on: boolean) => void>(() => {})

/** usePhraseOnScreen marks the calling component's lifetime as "the phrase is on screen". */
export function usePhraseOnScreen() {
  const set = useContext(PhraseOnScreen)
  useEffect(() => {
    set(true)
    return () => set(false)
  }, [set])
}
