import { describe, expect, it, beforeEach } from 'vitest'
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderToStaticMarkup } from 'react-dom/server'
import { ApiError } from '../lib/api'
import { defaults, hex, holder, makeApi, msg, ws } from '../test/apiMock'

import { marked } from './Search'
import { Shell } from './Shell'

const html = (text: string, words: string[]) => renderToStaticMarkup(<>{marked(text, words)}</>)

describe('marked', () => {
  it('marks whole words, the last also as the start of a word, in any case', () => {
    expect(html('The Budget and budgets', ['budget'])).toBe('The <mark>Budget</mark> and <mark>budgets</mark>')
    expect(html('budgets for the budget review', ['budget', 'rev'])).toBe('budgets for the <mark>budget</mark> <mark>review</mark>')
    expect(html('über Élan', ['élan'])).toBe('über <mark>Élan</mark>')
    expect(html('a+b (c)', ['c'])).toBe('a+b (<mark>c</mark>)')
    expect(html('nothing here', [])).toBe('nothing here')
  })
})

describe('search in the shell', () => {
  beforeEach(() => {
    holder.current = makeApi()
    const a = holder.current.api
    a.status.mockResolvedValue({ version: '1', dataDir: '/d', hasWorkspace: true, workspaces: [] })
    a.projects.list.mockResolvedValue([])
    a.workspaces.list.mockResolvedValue([ws()])
    a.channels.list.mockResolvedValue(defaults())
    a.messages.markRead.mockResolvedValue(undefined)
  })

  it('lists results and opens the channel at the chosen message, loading older pages to reach it', async () => {
    const a = holder.current.api
    // 210 messages: the found one is the oldest, a page back (PAGE is 200).
    const history = Array.from({ length: 210 }, (_, i) =>
      msg({ id: `m${i}`, text: i === 0 ? 'the budget review' : `note ${i}`, sentAt: 1_700_000_000_000 + i * 60_000 }),
    )
    a.messages.list.mockResolvedValue(history)
    a.messages.search.mockResolvedValue([{ channel: hex(0x10), channelName: 'general', message: history[0], words: ['budget'] }])
    render(<Shell />)
    await userEvent.type(await screen.findByRole('searchbox', { name: 'Search messages' }), 'budget{Enter}')
    expect(a.messages.search).toHaveBeenCalledWith(ws().id, 'budget', '')
    const results = await screen.findByRole('region', { name: 'Search results for budget' })
    expect(within(results).getByRole('heading').textContent).toBe('1 result for “budget”')
    const hit = within(results).getByRole('button', { name: /#general/ })
    expect(hit.querySelector('mark')?.textContent).toBe('budget')
    await userEvent.click(hit)
    // The older page holding it is fetched (jsdom lays nothing out, so the scroll itself is checked in Playwright).
    await screen.findByRole('list', { name: '210 messages loaded' })
    expect(a.messages.page.mock.calls.map((c) => c[2])).toEqual(['', 'm10'])
  })

  it('says why a query was refused and closes', async () => {
    const a = holder.current.api
    a.messages.list.mockResolvedValue([msg({ text: 'hello' })])
    a.messages.search.mockRejectedValue(
      new ApiError('search/bad_query', 'the search needs at least one word of letters or digits (at most 16 words)'),
    )
    render(<Shell />)
    await userEvent.type(await screen.findByRole('searchbox', { name: 'Search messages' }), '?!{Enter}')
    expect((await screen.findByRole('alert')).textContent).toMatch(/search\/bad_query/)
    await userEvent.click(screen.getByRole('button', { name: 'Close search' }))
    expect(await screen.findByText('hello')).toBeTruthy()
  })
})
