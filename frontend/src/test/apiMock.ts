// A controllable stand-in for src/lib/api in component tests: every method is
// a vi.fn, events are captured so a test can push them as Go would.
import { vi } from 'vitest'
import type { Channel, MemberDevice, Message, PhraseCheck, Policy, SearchHit, Workspace } from '../lib/api'

type Handler = (v: never) => void

export function makeApi() {
  const handlers: Record<string, Handler[]> = {}
  const on = (name: string) =>
    vi.fn((cb: Handler) => {
      ;(handlers[name] ??= []).push(cb)
      return () => {
        handlers[name] = (handlers[name] ?? []).filter((h) => h !== cb)
      }
    })
  const api = {
    status: vi.fn(),
    ready: vi.fn(() => Promise.resolve()),
    takeLaunchLink: vi.fn(() => Promise.resolve('')),
    setAttention: vi.fn(() => Promise.resolve()),
    projects: { list: vi.fn(), add: vi.fn(), forget: vi.fn(), bind: vi.fn(), onChanged: on('project') },
    workspaces: {
      list: vi.fn(),
      create: vi.fn(),
      createHosted: vi.fn(),
      join: vi.fn(),
      joinDevice: vi.fn(),
      pairDevice: vi.fn(),
      // By default every word is of the list and the phrase is whole.
      checkPhrase: vi.fn(async (words: string[]): Promise<PhraseCheck> => ({
        words: words.map((w) => ({ known: w !== '', suggest: '' })),
        complete: words.every((w) => w !== ''),
        problem: null,
      })),
      recover: vi.fn(),
      resumeRecovery: vi.fn(),
      people: vi.fn().mockResolvedValue([]),
      members: vi.fn().mockResolvedValue([]),
      setName: vi.fn(),
      setNotifications: vi.fn(() => Promise.resolve()),
      remove: vi.fn(),
      onChanged: on('workspaces'),
    },
    channels: {
      list: vi.fn(),
      create: vi.fn(),
      renameLocal: vi.fn(),
      setMuted: vi.fn(),
      moveLocal: vi.fn(),
      onChanged: on('channels'),
      members: vi.fn(),
      historyVerifiedFrom: vi.fn(() => Promise.resolve(0)),
      addPeople: vi.fn(),
    },
    people: { list: vi.fn() },
    members: {
      list: vi.fn(),
      plan: vi.fn(),
      remove: vi.fn(),
      receipts: vi.fn().mockResolvedValue([]),
      exportReceipt: vi.fn(),
      setAdmin: vi.fn(),
      revokeDevice: vi.fn(),
      approveDevice: vi.fn(),
      revokeAgentsIssuedBy: vi.fn(),
    },
    security: {
      // By default there is no alert and no rotation under way.
      alerts: vi.fn().mockResolvedValue([]),
      dismiss: vi.fn(),
      vouch: vi.fn(),
      recoveryState: vi.fn().mockResolvedValue({ unfinished: false, unconfirmed: 0 }),
      rotateRecovery: vi.fn(),
      confirmRotation: vi.fn(() => Promise.resolve()),
    },
    agents: { list: vi.fn().mockResolvedValue([]), preview: vi.fn(), submit: vi.fn(), approve: vi.fn(), revoke: vi.fn() },
    dms: { send: vi.fn() },
    messages: {
      list: vi.fn(),
      // By default a page is cut from what list resolves, as Go's MessagesBefore cuts its history.
      page: vi.fn(async (ws: string, ch: string, before: string, limit: number) => {
        const all: Message[] = (await api.messages.list(ws, ch)) ?? []
        const end = before ? all.findIndex((m) => m.id === before) : all.length
        const start = Math.max(0, end - limit)
        return { messages: all.slice(start, end), more: start > 0 }
      }),
      send: vi.fn(),
      retry: vi.fn(),
      discard: vi.fn(),
      edit: vi.fn(),
      remove: vi.fn(),
      markRead: vi.fn(),
      search: vi.fn(async (): Promise<SearchHit[]> => []),
      onChanged: on('messages'),
    },
    invites: { scopes: vi.fn(), create: vi.fn(), list: vi.fn().mockResolvedValue([]), revoke: vi.fn() },
    health: {
      // By default the check has never run: nothing needs action.
      get: vi.fn().mockResolvedValue({ report: { at: 0, needsAction: false, findings: [] }, groups: [], storage: [], pending: [] }),
      run: vi.fn(),
      dismiss: vi.fn(),
      resolve: vi.fn(),
      registerQuorum: vi.fn(),
      approve: vi.fn(),
      retention: vi.fn(),
      previewRetention: vi.fn(),
      setRetention: vi.fn(),
      onChanged: on('health:changed'),
    },
    onProgress: on('progress'),
    onAlert: on('alert'),
    onOpenChannel: on('channel:open'),
    onLaunchLink: on('launch:link'),
    copy: vi.fn(),
    setTitle: vi.fn(),
  }
  /** emit delivers an event to the page as the Go side would. */
  const emit = (name: string, v: unknown) => (handlers[name] ?? []).forEach((h) => h(v as never))
  return { api, emit }
}

export const hex = (n: number) => n.toString(16).padStart(64, '0')

/** memberDevice is a device row of the admin member list (device id hex(id)). */
export const memberDevice = (id: number, p: Partial<MemberDevice> = {}): MemberDevice => ({
  device: hex(id),
  revoked: false,
  you: false,
  probation: false,
  lastSeen: 0,
  waiting: [],
  agents: 0,
  canApprove: false,
  ...p,
})

export const policy = (p: Partial<Policy> = {}): Policy => ({ admission: 'parent', history: 'open', default: false, hash: hex(0xabc), ...p })

export const ws = (p: Partial<Workspace> = {}): Workspace => ({
  id: hex(1),
  name: 'Acme',
  relay: 'ws://127.0.0.1:1',
  you: 'Ada',
  ready: true,
  unread: 0,
  connected: true,
  canInvite: true,
  pending: [],
  provision: null,
  problem: null,
  removed: false,
  notifications: 'mentions',
  link: `weald://workspace?v=1&relay=ws%3A%2F%2F127.0.0.1%3A1&ws=${hex(1)}`,
  recovery: null,
  ...p,
})

export const chan = (p: Partial<Channel> & { name: string }): Channel => ({
  id: hex(p.name.length * 7919 + p.name.charCodeAt(0)),
  policy: policy(),
  muted: false,
  unread: 0,
  joined: true,
  defaultName: '',
  kind: 'chan',
  peer: '',
  ...p,
})

export const defaults = (): Channel[] => [
  chan({ id: hex(0x10), name: 'general', defaultName: 'general', policy: policy({ default: true, hash: hex(0x6e) }) }),
  chan({ id: hex(0x11), name: 'activity', defaultName: 'activity', muted: true, unread: 4, policy: policy({ default: true, hash: hex(0xac) }) }),
]

export const msg = (p: Partial<Message> & { text: string }): Message => ({
  id: `m-${p.text}`,
  channel: hex(0x10),
  author: 'Ada',
  mine: false,
  sentAt: 1_700_000_000_000,
  state: 'sent',
  ...p,
})

/** holder.current is the api the mocked module forwards to; tests replace it in beforeEach. */
export const holder = { current: makeApi() }

/** mockedModule builds the replacement of src/lib/api for vi.mock. */
export function mockedModule<T extends object>(real: T) {
  const api = new Proxy({}, { get: (_t, k) => (holder.current.api as Record<string | symbol, unknown>)[k] })
  return { ...real, api }
}

/** unreachable is the error a call gets when the relay does not answer. */
export async function unreachable() {
  const { ApiError } = await import('../lib/api')
  return new ApiError('relay/unreachable', 'Weald cannot reach the relay; check the address and your connection, then try again.')
}
