/**
 * newest returns a function that applies the answer of a request only if no request was started through it since: a
 * view that loads again on every change event (and on a switch of workspace) shows the newest load's answer, never an
 * older one that arrived last. A dropped answer's error is dropped too.
 */
export function newest() {
  let started = 0
  return <T>(request: Promise<T>, ok: (v: T) => void, failed: (e: unknown) => void = () => {}) => {
    const mine = ++started
    request.then(
      (v) => mine === started && ok(v),
      (e) => mine === started && failed(e),
    )
  }
}
