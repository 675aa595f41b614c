/** ChannelHeader names the open channel; with none open it greets. */
export function ChannelHeader({ title }: { title?: string }) {
  return (
    <header className="channel-header">
      <h1>{title ? `#${title}` : 'Welcome to Weald'}</h1>
    </header>
  )
}
