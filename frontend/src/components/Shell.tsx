import { useStatus } from '../state/useStatus'
import { Sidebar } from './Sidebar'
import { ChannelHeader } from './ChannelHeader'
import { MessagePane } from './MessagePane'

/** Shell is the application frame: sidebar, channel header, message pane. */
export function Shell() {
  const [state, reload] = useStatus()
  const status = state.kind === 'ready' ? state.status : undefined
  return (
    <div className="shell" data-state={state.kind}>
      <Sidebar status={status} />
      <main className="main" aria-label="Channel">
        <ChannelHeader title={status?.hasWorkspace ? 'general' : undefined} />
        {state.kind === 'failed' ? (
          <div className="pane-error" role="alert">
            <p>
              Weald could not read its state: {state.error.message} <code>{state.error.code}</code>
            </p>
            <button type="button" onClick={reload}>
              Try again
            </button>
          </div>
        ) : (
          <MessagePane status={status} loading={state.kind === 'loading'} />
        )}
      </main>
    </div>
  )
}
