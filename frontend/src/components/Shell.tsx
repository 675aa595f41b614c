import { useCallback, useEffect, useEffectEvent, useMemo, useState } from 'react'
import { api, type AlertEvent, type Channel, type OpenTarget, type Progress, type Workspace } from '../lib/api'
import { splitChannels, unreadTotal } from '../state/channels'
import { useChannels } from '../state/useChannels'
import { useMessages } from '../state/useMessages'
import { useProjects } from '../state/useProjects'
import { useStatus } from '../state/useStatus'
import { useWorkspaces } from '../state/useWorkspaces'
import { plainMessage } from '../state/errors'
import { PhraseOnScreen } from '../state/phrase'
import { useNarrow } from '../state/useNarrow'
import { mentionable } from '../state/mentions'
import { ChannelHeader } from './ChannelHeader'
import { AddPeopleDialog } from './AddPeopleDialog'
import { ChannelList } from './ChannelList'
import { DMList } from './DMList'
import { MembersDialog } from './MembersDialog'
import { HealthPanel } from './HealthPanel'
import { NewDMDialog } from './NewDMDialog'
import { ConnectionStatus } from './ConnectionStatus'
import { ErrorNote } from './Dialog'
import { FirstRun, linkStep } from './FirstRun'
import { InviteDialog } from './InviteDialog'
import { AddDeviceDialog } from './AddDeviceDialog'
import { AgentsDialog } from './AgentsDialog'
import { MessagePane } from './MessagePane'
import { NewChannelDialog } from './NewChannelDialog'
import { NameDialog } from './NameDialog'
import { NotificationSetting } from './NotificationSetting'
import { PeopleView } from './PeopleView'
import { SecurityView, needsAttention } from './SecurityView'
import { ProgressList } from './Progress'
import { SearchBar, SearchResults, useSearch } from './Search'
import { SetupPanel } from './SetupPanel'
import { RecoveryPanel } from './Recover'
import { AddProjectDialog, ProjectList, ProjectView } from './Projects'
import { Sidebar, WorkspaceSwitcher } from './Sidebar'

type View =
  | { kind: 'channel' }
  | { kind: 'people' }
  | { kind: 'security' }
  | { kind: 'project'; folder: string }
  | { kind: 'first-run'; step: 'choose' | 'create' | 'join' | 'device' | 'recover' }
type Modal = 'new-channel' | 'invite' | 'add-device' | 'add-project' | 'new-dm' | 'add-people' | 'members' | 'agents' | 'name' | 'health' | null

/** Shell is the application frame: sidebar, channel header, message pane. */
export function Shell() {
  const [state, reload] = useStatus()
  const status = state.kind === 'ready' ? state.status : undefined
  const projects = useProjects()
  const wss = useWorkspaces()
  const channels = useChannels(wss.current)
  const [selected, setSelected] = useState<Record<string, string>>({})
  const [view, setView] = useState<View>({ kind: 'channel' })
  const [modal, setModal] = useState<Modal>(null)
  // How many health checks need action, or approvals wait: the badge on the
  // panel's button (read when the workspace is ready and when the panel closes).
  const [healthNeeds, setHealthNeeds] = useState(0)
  const [progress, setProgress] = useState<Progress[]>([])
  const [alerts, setAlerts] = useState<(AlertEvent & { key: number })[]>([])
  // How many security alerts of the current workspace nobody acknowledged here: the badge on Security.
  const [securityNeeds, setSecurityNeeds] = useState(0)
  const [securitySeen, setSecuritySeen] = useState(0)
  // A new recovery phrase on screen: nothing else may be chosen until it is confirmed.
  const [phrase, setPhrase] = useState(false)
  const onPhrase = useCallback((on: boolean) => setPhrase(on), [])
  const narrow = useNarrow()
  const [sideShown, setSideShown] = useState(false)
  // Recovered workspaces opened while their probation lasts (RecoveryPanel's "Open … while you wait").
  const [openedWhileWaiting, setOpenedWhileWaiting] = useState<Record<string, boolean>>({})
  // The composer of a channel just created takes focus.
  const [focusKey, setFocusKey] = useState<string | undefined>()

  // An invite link the app was opened with (the weald:// handler), or that a
  // later launch handed to this window, goes to the join screen (a pairing
  // link to the pairing screen), once no recovery phrase is on screen.
  const [launch, setLaunch] = useState({ link: '', n: 0 })
  const launchLink = launch.link
  useEffect(() => {
    const take = () =>
      api
        .takeLaunchLink()
        .then((l) => l && setLaunch((p) => ({ link: l, n: p.n + 1 })))
        .catch(() => {})
    const off = api.onLaunchLink(take)
    take()
    return off
  }, [])
  useEffect(() => {
    if (launch.link && !phrase) setView({ kind: 'first-run', step: linkStep(launch.link) })
  }, [launch, phrase])

  useEffect(() => api.onProgress((p) => setProgress((list) => [...list.filter((x) => x.id !== p.id), p].filter((x) => !x.finished))), [])
  useEffect(() => {
    let n = 0
    return api.onAlert((a) => {
      // An alert's event comes again, same id, when its summary changed
      // (the newcomer's name became known): its banner takes the new words.
      const same = (x: AlertEvent) => !!a.id && x.id === a.id && x.workspace === a.workspace
      setAlerts((list) => (list.some(same) ? list.map((x) => (same(x) ? { ...x, message: a.message } : x)) : [...list.slice(-4), { ...a, key: ++n }]))
      setSecuritySeen((k) => k + 1)
    })
  }, [])

  const current = wss.workspaces.find((w) => w.id === wss.current)
  const healthWs = current?.ready ? current.id : null
  // The badge is read when the workspace is ready, when an alert arrives and when one is acknowledged.
  useEffect(() => {
    if (!healthWs) return
    let live = true
    api.security.alerts(healthWs).then(
      (list) => live && setSecurityNeeds(needsAttention(list)),
      () => {},
    )
    return () => {
      live = false
    }
  }, [healthWs, securitySeen])
  const closeBanner = (a: AlertEvent & { key: number }, acknowledge: boolean) => {
    setAlerts((list) => list.filter((x) => x.key !== a.key))
    if (acknowledge && a.id) {
      api.security.dismiss(a.workspace, a.id).then(
        () => setSecuritySeen((n) => n + 1),
        () => {},
      )
    }
  }
  const healthOpen = modal === 'health'
  // Bumped when Go says the health state changed (a check ran, approvals
  // changed), so the badge is read again rather than kept from before.
  const [healthRev, setHealthRev] = useState(0)
  useEffect(() => api.health.onChanged((c) => c.workspace === healthWs && setHealthRev((n) => n + 1)), [healthWs])
  useEffect(() => {
    if (!healthWs || healthOpen) return
    let live = true
    api.health.get(healthWs).then(
      (h) => {
        if (!live) return
        const failing = h.report.findings.filter((f) => f.state === 'action').length
        setHealthNeeds(failing + (h.pending ?? []).filter((p) => p.approvable).length)
      },
      () => {},
    )
    return () => {
      live = false
    }
  }, [healthWs, healthOpen, healthRev])
  const { defaults, dms } = splitChannels(channels.channels)
  const channelId = (wss.current && selected[wss.current]) || defaults[0]?.id || null
  const channel = channels.channels.find((c) => c.id === channelId)
  // A search result chosen: its channel opens scrolled to the message, which is highlighted.
  const [jump, setJump] = useState<{ channel: string; id: string } | null>(null)
  const target = jump && jump.channel === channel?.id ? jump.id : undefined
  const messages = useMessages(wss.current, channel?.id ?? null, target)
  const search = useSearch(wss.current)
  const ownActions = useMemo(() => ({ onEdit: messages.edit, onDelete: messages.remove }), [messages.edit, messages.remove])
  const loadMembers = useMemo(() => {
    const ws = wss.current
    const id = channel?.id
    if (!ws || !id) return undefined
    return () => api.channels.members(ws, id).then(mentionable)
  }, [wss.current, channel?.id]) // eslint-disable-line react-hooks/exhaustive-deps
  const { workspaces, current: currentId } = wss
  const unread = useMemo(() => {
    const u: Record<string, number> = {}
    for (const w of workspaces) u[w.id] = w.id === currentId ? unreadTotal(channels.channels) : w.unread
    return u
  }, [workspaces, currentId, channels.channels])

  useEffect(() => {
    if (channel && channel.unread > 0 && channel.joined) channels.markRead(channel.id)
  }, [channel?.id, channel?.unread]) // eslint-disable-line react-hooks/exhaustive-deps

  // What you are looking at, for Go's notifications: none for the open channel of a focused window.
  const looking = view.kind === 'channel' && !search.open ? (channel?.id ?? '') : ''
  useEffect(() => {
    const ws = wss.current ?? ''
    const tell = () => api.setAttention(ws, looking, document.hasFocus() && document.visibilityState === 'visible').catch(() => {})
    tell()
    window.addEventListener('focus', tell)
    window.addEventListener('blur', tell)
    document.addEventListener('visibilitychange', tell)
    return () => {
      window.removeEventListener('focus', tell)
      window.removeEventListener('blur', tell)
      document.removeEventListener('visibilitychange', tell)
    }
  }, [wss.current, looking]) // eslint-disable-line react-hooks/exhaustive-deps

  // Ready: a channel shown with its Send button enabled.
  const readyNow = !!current && !!channel?.joined && view.kind === 'channel'
  useEffect(() => {
    if (readyNow && current && channel) api.ready(current.id, channel.name).catch(() => {})
  }, [readyNow, current?.id]) // eslint-disable-line react-hooks/exhaustive-deps

  // The window title carries the unread count of every workspace.
  const unreadAll = Object.values(unread).reduce((a, b) => a + b, 0)
  useEffect(() => api.setTitle(unreadAll > 0 ? `(${unreadAll}) Weald` : 'Weald'), [unreadAll])

  // A desktop notification clicked: Go raised the window; its channel opens,
  // in its workspace, or for a security alert its Security view. Not while a
  // new recovery phrase is on screen.
  const onOpen = useEffectEvent(({ workspace, channel: id, view: to }: OpenTarget) => {
    if (phrase || !wss.workspaces.some((w) => w.id === workspace)) return
    wss.select(workspace)
    if (to === 'security') {
      setView({ kind: 'security' })
      setSideShown(false)
      return
    }
    setSelected((s) => ({ ...s, [workspace]: id }))
    setView({ kind: 'channel' })
    setSideShown(false)
    setJump(null)
    search.close()
  })
  useEffect(() => api.onOpenChannel((c) => onOpen(c)), [])

  const selectChannel = (id: string) => {
    if (phrase) return
    if (wss.current) setSelected((s) => ({ ...s, [wss.current!]: id }))
    setView({ kind: 'channel' })
    setSideShown(false)
    setJump(null)
    search.close()
  }
  const ready = (ws: Workspace) => {
    wss.added(ws)
    setView({ kind: 'channel' })
  }
  const project = view.kind === 'project' ? projects.projects.find((p) => p.folder === view.folder) : undefined
  // A device recovered with the phrase shows where the recovery stands until its probation is over (app/recover.go).
  const stage = current?.recovery?.stage
  const onProbation = stage === 'listing' || stage === 'approval' || stage === 'wait'
  const recovering = !!current && !current.removed && (onProbation || (stage === 'finishing' && !current.ready)) && !openedWhileWaiting[current.id]
  const noWorkspace = !wss.loading && wss.workspaces.length === 0

  let main
  if (state.kind === 'failed') {
    main = (
      <div className="pane-error" role="alert">
        <p>
          Weald could not read its state: {state.error.message} <code>{state.error.code}</code>
        </p>
        <button type="button" onClick={reload}>
          Try again
        </button>
      </div>
    )
  } else if (project) {
    main = (
      <ProjectView
        project={project}
        workspaces={wss.workspaces}
        onBind={projects.bind}
        onForget={async (f) => {
          await projects.forget(f)
          setView({ kind: 'channel' })
        }}
        onJoin={() => setView({ kind: 'first-run', step: 'join' })}
      />
    )
  } else if (view.kind === 'first-run' || noWorkspace) {
    main = (
      <FirstRun
        // One key for both ways here (no workspace yet, or chosen from the
        // switcher), so that the workspace appearing mid-way — it exists as
        // soon as Create returns, before its phrase is shown and confirmed —
        // does not remount the flow and lose the phrase.
        key="first-run"
        initial={view.kind === 'first-run' ? view.step : 'choose'}
        link={phrase ? undefined : launchLink}
        linkKey={launch.n}
        onStep={(step) => setView({ kind: 'first-run', step })}
        onReady={ready}
        canCancel={!noWorkspace}
        onCancel={() => setView({ kind: 'channel' })}
      />
    )
  } else if (recovering && current && view.kind === 'channel') {
    main = <RecoveryPanel ws={current} onOpen={() => setOpenedWhileWaiting((o) => ({ ...o, [current.id]: true }))} />
  } else if (current && !current.ready && !channel?.joined && !current.removed) {
    main = <SetupPanel ws={current} />
  } else if (view.kind === 'people' && current) {
    main = <PeopleView key={current.id} workspace={current.id} workspaceName={current.name} />
  } else if (view.kind === 'security' && current) {
    main = (
      <SecurityView
        key={current.id}
        workspace={current.id}
        workspaceName={current.name}
        workspaceLink={current.link}
        onChanged={() => setSecuritySeen((n) => n + 1)}
      />
    )
  } else if (search.open && view.kind === 'channel') {
    main = (
      <SearchResults
        query={search.query}
        hits={search.hits}
        error={search.error}
        busy={search.busy}
        onClose={search.close}
        onOpen={(h) => {
          selectChannel(h.channel)
          setJump({ channel: h.channel, id: h.message.id })
        }}
      />
    )
  } else {
    main = (
      <MessagePane
        channel={channel}
        messages={messages.messages}
        hasOlder={messages.hasOlder}
        highlight={target}
        focusKey={focusKey}
        onOlder={messages.loadOlder}
        outgoing={messages.outgoing}
        loading={state.kind === 'loading' || wss.loading || messages.loading}
        error={messages.error}
        onSend={messages.send}
        loadMembers={loadMembers}
        onRetry={messages.retry}
        onDiscard={messages.discard}
        own={ownActions}
      />
    )
  }

  const showChannel = !project && view.kind === 'channel' && !noWorkspace && !recovering
  const hasWorkspace = wss.workspaces.length > 0
  const side = (
    <Sidebar
      key="side"
      status={status}
      collapsed={narrow}
      shown={sideShown}
      onHide={() => setSideShown(false)}
      locked={phrase ? 'Confirm your recovery phrase first: the rest of Weald waits until it is done.' : undefined}
      header={
        <WorkspaceSwitcher
          workspaces={wss.workspaces}
          current={wss.current}
          unread={unread}
          onSelect={(id) => {
            if (phrase) return
            wss.select(id)
            setView({ kind: 'channel' })
            setSideShown(false)
          }}
          onAdd={() => (setView({ kind: 'first-run', step: 'choose' }), setSideShown(false))}
          onRename={current?.ready && !phrase ? () => (setModal('name'), setSideShown(false)) : undefined}
        />
      }
    >
      {current ? (
        <ChannelList
          channels={channels.channels}
          selected={showChannel ? channel?.id : undefined}
          onSelect={selectChannel}
          onNew={() => setModal('new-channel')}
          actions={channels}
        />
      ) : (
        <section className="side-section" aria-label="Channels">
          <h2>Channels</h2>
          <p className="muted">Channels appear here once you are in a workspace.</p>
        </section>
      )}
      {current?.ready ? (
        <section className="side-section" aria-label="People">
          <button
            type="button"
            className="side-item"
            aria-current={view.kind === 'people' ? 'page' : undefined}
            onClick={() => {
              if (phrase) return
              setView({ kind: 'people' })
              setSideShown(false)
              search.close()
            }}
          >
            <span className="side-item-name">People</span>
          </button>
          <button
            type="button"
            className="side-item"
            aria-current={view.kind === 'security' ? 'page' : undefined}
            onClick={() => {
              if (phrase) return
              setView({ kind: 'security' })
              setSideShown(false)
              search.close()
            }}
          >
            <span className="side-item-name">Security</span>
            {securityNeeds > 0 ? (
              <span className="badge alert-badge" aria-label={`${securityNeeds} security alert${securityNeeds === 1 ? '' : 's'} to review`}>
                {securityNeeds}
              </span>
            ) : null}
          </button>
        </section>
      ) : null}
      {current?.ready ? (
        <DMList
          dms={dms}
          selected={showChannel ? channel?.id : undefined}
          onSelect={selectChannel}
          onNew={() => (setModal('new-dm'), setSideShown(false))}
        />
      ) : null}
      {current?.ready ? <NotificationSetting ws={current} /> : null}
      {current?.ready ? (
        <section className="side-section" aria-label="Workspace health">
          <button type="button" className="side-health" onClick={() => (setModal('health'), setSideShown(false))}>
            Encryption & health
            {healthNeeds > 0 ? (
              <span className="badge health-badge" aria-label={`${healthNeeds} need${healthNeeds === 1 ? 's' : ''} action`}>
                {healthNeeds}
              </span>
            ) : null}
          </button>
          <button type="button" className="side-health" onClick={() => (setModal('add-device'), setSideShown(false))}>
            Add a device
          </button>
        </section>
      ) : null}
      {hasWorkspace ? (
        <ProjectList
          projects={projects.projects}
          selected={project?.folder}
          onSelect={(folder) => (setView({ kind: 'project', folder }), setSideShown(false))}
          onAdd={() => (setModal('add-project'), setSideShown(false))}
        />
      ) : null}
      {projects.error ? <ErrorNote error={projects.error} /> : null}
    </Sidebar>
  )
  const body = (
    <main key="main" className="main" aria-label={showChannel && channel ? (channel.kind === 'dm' ? channel.name : `#${channel.name}`) : 'Main'}>
      <ChannelHeader
        channel={showChannel ? channel : undefined}
        title={
          project
            ? project.name
            : view.kind === 'people' && current
              ? 'People'
              : view.kind === 'security' && current
                ? 'Security'
                : recovering && view.kind === 'channel'
                  ? 'Recovery'
                  : undefined
        }
        onInvite={showChannel && current?.canInvite && channel?.kind !== 'dm' ? () => setModal('invite') : undefined}
        onAgents={showChannel && current && channel?.kind !== 'dm' ? () => setModal('agents') : undefined}
        onMembers={showChannel && channel?.joined ? () => setModal('members') : undefined}
        onAddPeople={showChannel && channel?.joined ? () => setModal('add-people') : undefined}
        onMenu={narrow && hasWorkspace ? () => setSideShown(true) : undefined}
        alerts={securityNeeds}
      />
      {current?.ready && showChannel ? <SearchBar onSearch={search.run} /> : null}
      <ProgressList items={progress} />
      {current && onProbation && openedWhileWaiting[current.id] && view.kind !== 'first-run' ? (
        <div className="banner notice-banner" role="status">
          <p className="notice-note">
            This device is on probation until {stage === 'wait' ? 'the 72-hour wait is over' : 'an admin approves it'}: it cannot add or remove anyone
            yet.{' '}
            <button type="button" className="link-button" onClick={() => setOpenedWhileWaiting((o) => ({ ...o, [current.id]: false }))}>
              Recovery status
            </button>
          </p>
        </div>
      ) : null}
      {current && (current.removed || (current.ready && showChannel)) ? <ConnectionStatus ws={current} /> : null}
      {alerts.map((a) => {
        // The Security view lists them already.
        if (view.kind === 'security' && a.workspace === current?.id) return null
        const where = wss.workspaces.find((w) => w.id === a.workspace)?.name ?? 'a workspace'
        const review = () => {
          if (phrase) return
          if (a.workspace !== wss.current) wss.select(a.workspace)
          setView({ kind: 'security' })
          closeBanner(a, false)
        }
        // A notice (someone joined by an admin's invite) is told, not alarmed; a security alert stays red (docs/protocol/desktop-ui.md "Security").
        return a.tone === 'notice' ? (
          <div key={a.key} className="banner notice-banner" role="status">
            <p className="notice-note">
              {where}: {a.message}{' '}
              <button type="button" className="link-button" onClick={review}>
                Review
              </button>{' '}
              <button type="button" onClick={() => closeBanner(a, true)}>
                OK
              </button>
            </p>
          </div>
        ) : (
          <div key={a.key} className="banner alert-banner" role="alert">
            <p className="error-note">
              Security alert in {where}: {a.message}{' '}
              <button type="button" onClick={review}>
                Review
              </button>{' '}
              <button type="button" onClick={() => closeBanner(a, true)}>
                Dismiss
              </button>
            </p>
          </div>
        )
      })}
      {channels.error && showChannel ? (
        <div className="banner">
          <ErrorNote error={{ code: channels.error.code, message: plainMessage(channels.error) }} />
        </div>
      ) : null}
      {wss.error ? (
        <div className="banner">
          <ErrorNote error={{ code: wss.error.code, message: plainMessage(wss.error) }} />
        </div>
      ) : null}
      {main}
    </main>
  )
  return (
    <PhraseOnScreen.Provider value={onPhrase}>
      <div className="shell" data-state={state.kind} data-narrow={narrow || undefined}>
        {/* On first run the main pane comes first, so that its primary action is the first Tab stop. */}
        {noWorkspace ? [body, side] : [side, body]}
        {modal === 'add-project' ? <AddProjectDialog onAdd={projects.add} onClose={() => setModal(null)} /> : null}
        {modal === 'new-channel' ? (
          <NewChannelDialog
            onCreate={channels.create}
            onClose={(c?: Channel) => {
              setModal(null)
              if (c) {
                selectChannel(c.id)
                setFocusKey(c.id)
              }
            }}
          />
        ) : null}
        {modal === 'name' && current ? (
          <NameDialog
            workspace={current.name}
            current={current.you}
            onSave={(name) => api.workspaces.setName(current.id, name)}
            onClose={() => setModal(null)}
          />
        ) : null}
        {modal === 'invite' && current ? <InviteDialog workspace={current.id} relay={current.relay} onClose={() => setModal(null)} /> : null}
        {modal === 'add-device' && current ? <AddDeviceDialog workspace={current.id} onClose={() => setModal(null)} /> : null}
        {modal === 'agents' && current ? <AgentsDialog workspace={current.id} onClose={() => setModal(null)} /> : null}
        {modal === 'new-dm' && current ? (
          <NewDMDialog
            workspace={current.id}
            onClose={(dm?: Channel) => {
              setModal(null)
              if (dm) selectChannel(dm.id)
            }}
          />
        ) : null}
        {modal === 'add-people' && current && channel ? (
          <AddPeopleDialog workspace={current.id} channel={channel} onClose={() => setModal(null)} />
        ) : null}
        {modal === 'health' && current ? <HealthPanel workspace={current.id} onClose={() => setModal(null)} /> : null}
        {modal === 'members' && current && channel ? (
          <MembersDialog
            workspace={current.id}
            workspaceName={current.name}
            admin={current.canInvite}
            channel={channel}
            onClose={() => setModal(null)}
          />
        ) : null}
      </div>
    </PhraseOnScreen.Provider>
  )
}
