import { beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { ApiError, type PhraseCheck } from '../lib/api'
import { hex, holder, makeApi, ws } from '../test/apiMock'
import { FirstRun } from './FirstRun'
import { RecoverWithPhrase, RecoveryPanel } from './Recover'

// The phrase: w1 … w24. Go's check, stood in for: a word starting with x is not of the list (its suggestion drops
// the x, when what is left is a word); 24 known words whose first is not w1 fail the checksum.
const phrase = Array.from({ length: 24 }, (_, i) => `w${i + 1}`)
const goCheck = async (words: string[]): Promise<PhraseCheck> => {
  const out = words.map((w) => ({ known: w !== '' && !w.startsWith('x'), suggest: w.startsWith('xw') ? w.slice(1) : '' }))
  const known = out.every((w) => w.known)
  const sum = known && words[0] === 'w1'
  return {
    words: out,
    complete: sum,
    problem: known && !sum ? { code: 'identity/phrase_checksum', message: 'The checksum does not match.' } : null,
  }
}

beforeEach(() => {
  holder.current = makeApi()
  holder.current.api.workspaces.checkPhrase.mockImplementation(goCheck)
})

const box = (n: number) => screen.getByLabelText(`Word ${n}`) as HTMLInputElement
const recoverButton = () => screen.getByRole('button', { name: 'Recover' }) as HTMLButtonElement

/** paste puts text into a box as a paste would (one change event). */
const paste = (n: number, text: string) => fireEvent.change(box(n), { target: { value: text } })

describe('RecoverWithPhrase', () => {
  it('is the fourth way in at first run', async () => {
    render(<FirstRun onReady={vi.fn()} />)
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Create a workspace',
      'Join with an invite',
      'Join as an existing user',
      'Recover with your recovery phrase',
    ])
    await userEvent.click(screen.getByRole('button', { name: 'Recover with your recovery phrase' }))
    expect(screen.getByRole('heading', { name: 'Recover with your recovery phrase' })).toBeTruthy()
    expect(document.activeElement).toBe(box(1))
  })

  it('takes the 24 words pasted into the first box, or typed with a space to move on', async () => {
    render(<RecoverWithPhrase onRecovered={vi.fn()} onBack={vi.fn()} />)
    paste(1, `  ${phrase.join('  ').toUpperCase()}\n`)
    expect(phrase.map((_, i) => box(i + 1).value)).toEqual(phrase.map((w) => w.toUpperCase()))
    expect((await screen.findByRole('status')).textContent).toBe('All 24 words are valid.')
    await userEvent.clear(box(5))
    await userEvent.type(box(5), 'w5 ')
    expect(document.activeElement).toBe(box(6))
    expect(box(5).value).toBe('w5')
  })

  it('names each wrong word, with the word it probably is, and a swap as the whole phrase’s problem', async () => {
    render(<RecoverWithPhrase onRecovered={vi.fn()} onBack={vi.fn()} />)
    await userEvent.type(box(1), 'w1 xw2 w3 xq')
    // A word is judged once you leave it, not while you type it.
    expect(box(4).value).toBe('xq')
    const problems = await screen.findByRole('list', { name: 'Words to check' })
    expect(
      within(problems)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Word 2, “xw2”, is not in the word list. Did you mean “w2”?'])
    expect(box(2).getAttribute('aria-invalid')).toBe('true')
    expect(box(2).getAttribute('aria-describedby')).toBe('rw-bad-1')
    expect(box(4).getAttribute('aria-invalid')).toBeNull()
    await userEvent.tab()
    await vi.waitFor(() =>
      expect(
        within(screen.getByRole('list', { name: 'Words to check' }))
          .getAllByRole('listitem')
          .map((li) => li.textContent),
      ).toEqual([
        'Word 2, “xw2”, is not in the word list. Did you mean “w2”?',
        'Word 4, “xq”, is not in the word list. Check it against what you wrote down.',
      ]),
    )
    // Every word right but two swapped: the checksum's sentence, in plain words; Recover stays off.
    paste(1, [phrase[1], phrase[0], ...phrase.slice(2)].join(' '))
    await userEvent.type(screen.getByLabelText('Workspace link or relay address'), 'weald://workspace?v=1')
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Every word is in the list, but together they are not a recovery phrase: one word is wrong or two are swapped. Check them against what you wrote down, in order.',
    )
    expect(screen.queryByRole('list', { name: 'Words to check' })).toBeNull()
    expect(recoverButton().disabled).toBe(true)
    paste(1, phrase.join(' '))
    await screen.findByText('All 24 words are valid.')
    expect(recoverButton().disabled).toBe(false)
  })

  it('recovers with the workspace link, or a relay address and the workspace id, and says plainly a phrase nobody has', async () => {
    const a = holder.current.api
    const recovered = vi.fn()
    const link = `weald://workspace?v=1&relay=wss%3A%2F%2Frelay.example.org%2Fv1%2Fws&ws=${hex(1)}`
    a.workspaces.recover.mockRejectedValueOnce(new ApiError('recovery/unknown_phrase', 'this recovery phrase belongs to nobody'))
    a.workspaces.recover.mockResolvedValueOnce(
      ws({ ready: false, recovery: { stage: 'listing', device: hex(9), listed: false, probationEnds: 0, revokedOld: 0 } }),
    )
    render(<RecoverWithPhrase onRecovered={recovered} onBack={vi.fn()} />)
    paste(1, phrase.join(' '))
    const where = screen.getByLabelText('Workspace link or relay address')
    await userEvent.type(where, 'relay.example.org')
    // An address needs the id too.
    expect(recoverButton().disabled).toBe(true)
    await userEvent.type(screen.getByLabelText('Workspace id'), hex(1))
    await screen.findByText('All 24 words are valid.')
    await userEvent.click(recoverButton())
    expect(a.workspaces.recover).toHaveBeenCalledWith('relay.example.org', hex(1), phrase)
    expect((await screen.findByRole('alert')).textContent).toContain(
      'These words are a valid recovery phrase, but nobody in this workspace has it. Check the words, and that the link is the one of your workspace.',
    )
    expect(recovered).not.toHaveBeenCalled()
    expect(box(24).value).toBe('w24')

    await userEvent.clear(where)
    paste(1, phrase.join(' '))
    fireEvent.change(where, { target: { value: link } })
    expect(screen.queryByLabelText('Workspace id')).toBeNull()
    await screen.findByText('All 24 words are valid.')
    await userEvent.click(recoverButton())
    expect(a.workspaces.recover).toHaveBeenLastCalledWith(link, '', phrase)
    await vi.waitFor(() => expect(recovered).toHaveBeenCalled())
  })
})

const recovering = (stage: 'listing' | 'approval' | 'wait' | 'finishing', p = {}) =>
  ws({
    ready: false,
    recovery: { stage, device: 'abcdef0123' + hex(0).slice(10), listed: stage !== 'listing', probationEnds: 0, revokedOld: 0, ...p },
  })

describe('RecoveryPanel', () => {
  it('says what it waits for, step by step, and checks again at once on Check now', async () => {
    const a = holder.current.api
    a.workspaces.resumeRecovery.mockResolvedValue(recovering('approval'))
    render(<RecoveryPanel ws={recovering('listing')} />)
    expect(screen.getByRole('heading', { name: 'Waiting for an admin' })).toBeTruthy()
    expect(screen.getByText(/their Security view asks them to approve device/).textContent).toContain('abcdef01')
    expect(
      within(screen.getByRole('list', { name: 'Recovery' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '✓ Your recovery phrase added this device',
      '○ The relay lets this device connect',
      '○ An admin approved this device',
      '○ Your old devices are revoked and this one is in your channels',
    ])
    await userEvent.click(screen.getByRole('button', { name: 'Check now' }))
    expect(a.workspaces.resumeRecovery).toHaveBeenCalledWith(hex(1))
  })

  it('offers the workspace while an admin approves, once it reads the channels', async () => {
    const open = vi.fn()
    const { rerender } = render(<RecoveryPanel ws={recovering('approval')} onOpen={open} />)
    expect(screen.getByRole('heading', { name: 'Waiting for an admin to approve this device' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: /while you wait/ })).toBeNull()
    rerender(<RecoveryPanel ws={{ ...recovering('approval'), ready: true }} onOpen={open} />)
    await userEvent.click(screen.getByRole('button', { name: 'Open Acme while you wait' }))
    expect(open).toHaveBeenCalled()
  })

  it('tells the only admin until when the wait lasts and why', () => {
    const end = new Date(2026, 11, 6, 9, 30).getTime()
    render(<RecoveryPanel ws={recovering('wait', { probationEnds: end, listed: false })} />)
    expect(screen.getByRole('heading').textContent).toMatch(/^Waiting until .*6.*9.*30/)
    expect(screen.getByText(/You were the only admin of Acme/).textContent).toContain('can revoke this one meanwhile')
    expect(screen.getByRole('list', { name: 'Recovery' }).textContent).toContain('The 72-hour wait is over')
  })

  it('shows a problem of the run in plain words', () => {
    render(<RecoveryPanel ws={{ ...recovering('listing'), problem: { code: 'relay/unreachable', message: 'x' } }} />)
    expect(screen.getByRole('alert').textContent).toBe(
      'Weald cannot reach the relay. Check your internet connection, then try again. relay/unreachable Weald keeps trying.',
    )
  })
})
