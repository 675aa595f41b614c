import { useEffect, useId, useRef, type ReactNode } from 'react'

const focusable =
  'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [href], [tabindex]:not([tabindex="-1"])'

/**
 * Dialog is a modal: labelled by its title, focus moves to its first field
 * (or [data-autofocus]), never to Close; a dialog whose fields come later
 * (loaded from Go) holds focus itself until they do, then gives it to the
 * first, unless the user has moved it; Tab stays inside; focus that falls
 * out (a submit button disabled while it works) comes back to the first
 * field; Escape closes it wherever focus is; focus returns to where it was.
 */
export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const id = useId()
  const ref = useRef<HTMLDivElement>(null)
  const close = useRef(onClose)
  close.current = onClose
  const field = () =>
    ref.current?.querySelector<HTMLElement>('[data-autofocus]') ?? ref.current?.querySelector<HTMLElement>(`.dialog-body :is(${focusable})`)
  const first = () => field() ?? ref.current?.querySelector<HTMLElement>(focusable)
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null
    const now = field()
    let later: MutationObserver | undefined
    if (now) {
      now.focus()
    } else if (ref.current) {
      const dialog = ref.current
      dialog.focus()
      later = new MutationObserver(() => {
        const f = field()
        if (!f) return
        if (document.activeElement === dialog) f.focus()
        later?.disconnect()
      })
      later.observe(dialog, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] })
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) {
        e.preventDefault()
        close.current()
      }
    }
    // Escape reaches the document even when focus fell to the body.
    document.addEventListener('keydown', onKey)
    return () => {
      later?.disconnect()
      document.removeEventListener('keydown', onKey)
      before?.focus?.()
    }
  }, [])
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      onClose()
      return
    }
    if (e.key !== 'Tab' || !ref.current) return
    const items = Array.from(ref.current.querySelectorAll<HTMLElement>(focusable))
    if (items.length === 0) return
    const head = items[0]
    const last = items[items.length - 1]
    if (e.shiftKey && document.activeElement === head) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault()
      head.focus()
    }
  }
  const onBlur = (e: React.FocusEvent) => {
    // Focus leaving to nothing (the element became disabled or went away) stays in the dialog.
    if (e.relatedTarget === null) {
      setTimeout(() => {
        const a = document.activeElement
        if (ref.current && (a === null || a === document.body)) first()?.focus()
      }, 0)
    }
  }
  return (
    <div className="backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className={wide ? 'dialog dialog-wide' : 'dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={id}
        tabIndex={-1}
        ref={ref}
        onKeyDown={onKeyDown}
        onBlur={onBlur}
      >
        <header className="dialog-head">
          <h2 id={id}>{title}</h2>
          <button type="button" className="icon" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        <div className="dialog-body">{children}</div>
      </div>
    </div>
  )
}

/** ErrorNote shows an ApiError's sentence and code, announced to screen readers. */
export function ErrorNote({ error }: { error: { code: string; message: string } | null }) {
  if (!error) return null
  return (
    <p className="error-note" role="alert">
      {error.message} <code>{error.code}</code>
    </p>
  )
}
