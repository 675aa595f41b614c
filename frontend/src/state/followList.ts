/**
 * followList keeps a list that Go sends whole with every change: it subscribes to the change event, then asks for the
 * list once. An event carries the list as Go had it when it sent it, so the answer to a request made before that event
 * is older and is dropped: taken as it came, it put back a list without a channel joined meanwhile, and that channel
 * stayed missing until the next change (the paired-device story under load). The answer counts only when no event came
 * first; so does its error. Returns the unsubscribe.
 */
export function followList<T>(
  subscribe: (heard: (list: T) => void) => () => void,
  list: () => Promise<T>,
  apply: (list: T) => void,
  failed: (e: unknown) => void,
): () => void {
  let live = true
  let heard = false
  const off = subscribe((l) => {
    if (!live) return
    heard = true
    apply(l)
  })
  list().then(
    (l) => live && !heard && apply(l),
    (e) => live && !heard && failed(e),
  )
  return () => {
    live = false
    off()
  }
}
