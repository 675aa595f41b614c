import { describe, expect, it, beforeEach } from 'vitest'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type Agent, type AgentRequest } from '../lib/api'
import { holder, makeApi } from '../test/apiMock'

import { AgentsDialog, approvalSentence } from './AgentsDialog'

const general = { channel: 'a'.repeat(64), name: 'general', admission: 'parent', history: 'open', member: false }
const secret = { channel: 'b'.repeat(64), name: 'secret', admission: 'explicit', history: 'closed', member: false }

function request(over: Partial<AgentRequest> = {}): AgentRequest {
  return {
    agent: 'c'.repeat(64),
    name: 'ci bot',
    fingerprint: 'cccc cccc cccc cccc',
    scope: [general, secret],
    expiry: Date.UTC(2026, 11, 3, 12),
    renewal: false,
    added: ['general', 'secret'],
    dropped: [],
    parent: '',
    parentName: '',
    blocked: '',
    ...over,
  } as AgentRequest
}

function agent(over: Partial<Agent> = {}): Agent {
  return {
    id: 'c'.repeat(64),
    name: 'ci bot',
    fingerprint: 'cccc cccc cccc cccc',
    owner: 'd'.repeat(64),
    ownerName: 'Dana',
    scope: [general],
    expiry: Date.UTC(2026, 11, 3, 12),
    state: 'live',
    yours: true,
    parent: '',
    parentName: '',
    ...over,
  } as Agent
}

beforeEach(() => {
  holder.current = makeApi()
})

describe('AgentsDialog', () => {
  it('shows the request as an approval sheet: name, fingerprint, channels with lock states, expiry; Approve approves it', async () => {
    const a = holder.current.api
    a.agents.submit.mockResolvedValue({ renewed: null, request: request() })
    a.agents.approve.mockResolvedValue(agent())
    render(<AgentsDialog workspace="w1" onClose={() => {}} />)
    await userEvent.type(screen.getByLabelText("An agent's request"), 'weald-agent-request:xyz')
    await userEvent.click(screen.getByRole('button', { name: 'Review request' }))
    expect(a.agents.submit).toHaveBeenCalledWith('w1', 'weald-agent-request:xyz')
    expect(screen.getAllByRole('definition')[0].textContent).toBe('ci bot')
    expect(screen.getByText('cccc cccc cccc cccc')).toBeTruthy()
    const channels = screen.getByRole('list', { name: 'Channels in scope' })
    expect(channels.textContent).toMatch(/#general · Anyone in the workspace can join · Joiners see the history/)
    expect(channels.textContent).toMatch(/#secret · Members add people · Joiners see messages from joining on/)
    expect(screen.getByText(/2026/)).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }))
    expect(a.agents.approve).toHaveBeenCalledWith('w1', 'weald-agent-request:xyz')
    expect((await screen.findByRole('status')).textContent).toBe('Approved ci bot.')
  })

  it('Decline goes back without approving; a bad request says its code', async () => {
    const a = holder.current.api
    a.agents.submit
      .mockResolvedValueOnce({ renewed: null, request: request() })
      .mockRejectedValueOnce(new ApiError('agent/bad_request', 'The agent request is malformed.'))
    render(<AgentsDialog workspace="w1" onClose={() => {}} />)
    await userEvent.type(screen.getByLabelText("An agent's request"), 'weald-agent-request:xyz')
    await userEvent.click(screen.getByRole('button', { name: 'Review request' }))
    await userEvent.click(screen.getByRole('button', { name: 'Decline' }))
    expect(a.agents.approve).not.toHaveBeenCalled()
    await userEvent.type(screen.getByLabelText("An agent's request"), 'junk')
    await userEvent.click(screen.getByRole('button', { name: 'Review request' }))
    expect((await screen.findByText(/malformed/)).textContent).toBeTruthy()
  })

  it('lists agents with owner, channels and expiry, and revokes the ones this device issued', async () => {
    const a = holder.current.api
    a.agents.list.mockResolvedValue([agent(), agent({ id: 'e'.repeat(64), name: 'other bot', ownerName: 'Sam', yours: false })])
    a.agents.revoke.mockResolvedValue(agent({ state: 'revoked' }))
    render(<AgentsDialog workspace="w1" onClose={() => {}} />)
    const list = await screen.findByRole('list', { name: 'Agents' })
    expect(list.textContent).toMatch(/ci bot · agent of Dana · #general · until/)
    expect(list.textContent).toMatch(/other bot · agent of Sam/)
    expect(screen.getAllByRole('button', { name: 'Revoke' })).toHaveLength(1)
    await userEvent.click(screen.getByRole('button', { name: 'Revoke' }))
    expect(a.agents.revoke).toHaveBeenCalledWith('w1', 'c'.repeat(64))
  })

  // spec/channels.md "Group policy": renewal within the same scope does not prompt again.
  it('a renewal for the same channels is renewed at once: no sheet, no Approve, a status saying nothing changed', async () => {
    const a = holder.current.api
    a.agents.submit.mockResolvedValue({ renewed: agent({ expiry: Date.UTC(2026, 11, 4, 12) }), request: null })
    render(<AgentsDialog workspace="w1" onClose={() => {}} />)
    await userEvent.type(screen.getByLabelText("An agent's request"), 'weald-agent-request:again')
    await userEvent.click(screen.getByRole('button', { name: 'Review request' }))
    expect((await screen.findByRole('status')).textContent).toMatch(/^Renewed ci bot until .*2026.*: the same channels, no membership changed\.$/)
    expect(screen.queryByRole('dialog', { name: 'Approve an agent' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull()
    expect(a.agents.approve).not.toHaveBeenCalled()
    expect(a.agents.list).toHaveBeenCalledTimes(2) // reloaded
    expect((screen.getByLabelText("An agent's request") as HTMLTextAreaElement).value).toBe('')
  })

  // Widening is one visible approval followed by the matching adds.
  it('a wider scope is one sheet naming the added channel, and one approval', async () => {
    const a = holder.current.api
    a.agents.submit.mockResolvedValue({ renewed: null, request: request({ added: ['ops'] }) })
    a.agents.approve.mockResolvedValue(agent())
    render(<AgentsDialog workspace="w1" onClose={() => {}} />)
    await userEvent.type(screen.getByLabelText("An agent's request"), 'weald-agent-request:wider')
    await userEvent.click(screen.getByRole('button', { name: 'Review request' }))
    expect((await screen.findByText(/Approving adds it to #ops once it has connected\./)).textContent).toBeTruthy()
    expect(a.agents.approve).not.toHaveBeenCalled()
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }))
    expect(a.agents.approve).toHaveBeenCalledTimes(1)
    expect(a.agents.approve).toHaveBeenCalledWith('w1', 'weald-agent-request:wider')
  })

  it('a sub-agent is shown as one, and a request this device cannot approve says why and offers no Approve', async () => {
    const a = holder.current.api
    a.agents.list.mockResolvedValue([agent({ id: 'f'.repeat(64), name: 'helper', parent: 'c'.repeat(64), parentName: 'ci bot' })])
    a.agents.submit.mockResolvedValue({
      renewed: null,
      request: request({
        name: 'helper',
        parent: 'c'.repeat(64),
        parentName: 'ci bot',
        added: [],
        blocked: 'This agent is a sub-agent of ci bot; only ci bot can renew or change it.',
      }),
    })
    render(<AgentsDialog workspace="w1" onClose={() => {}} />)
    const list = await screen.findByRole('list', { name: 'Agents' })
    expect(list.textContent).toMatch(/helper · agent of Dana · sub-agent of ci bot, within its channels · #general · until/)
    await userEvent.type(screen.getByLabelText("An agent's request"), 'weald-agent-request:helper')
    await userEvent.click(screen.getByRole('button', { name: 'Review request' }))
    expect((await screen.findByText(/only ci bot can renew or change it/)).textContent).toBeTruthy()
    expect(screen.getByText(/its certificate descends from that agent's/).textContent).toMatch(/^ci bot/)
    expect((screen.getByRole('button', { name: 'Approve' }) as HTMLButtonElement).disabled).toBe(true)
  })

  it('says what approving changes', () => {
    expect(approvalSentence(request({ renewal: true, added: [] }))).toMatch(/changes no membership/)
    expect(approvalSentence(request({ added: ['ops'], dropped: ['general'] }))).toBe(
      'Approving adds it to #ops once it has connected and removes it from #general.',
    )
  })
})
