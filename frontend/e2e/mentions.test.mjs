// Issue 17 item 10, @mentions: through the real UI against the e2e build and
// a real relay, two people on two devices. Dana types "@Sa", picks Sam from
// the list with the keyboard and sends; Sam, reading another channel, gets a
// mention badge on #general (apart from the unread count), opens it, sees
// the mention highlighted under his name, and the badge goes. After Sam's app
// restarts the mention is still there (read from the local message index).
// Screenshots at 1280×800 and 800×600 under test-artifacts/.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, sizes, readyWorkspace, fixture } from './harness.mjs'

const fx = fixture()

let relay, dana, sam, browser

before(async () => {
  relay = await fx.relay()
  dana = await fx.app()
  sam = await fx.app()
  browser = await fx.browser()
})

const slow = 90000

async function until(what, ok) {
  const deadline = Date.now() + slow
  for (;;) {
    if (await ok()) return
    assert.ok(Date.now() < deadline, `never: ${what}`)
    await new Promise((r) => setTimeout(r, 300))
  }
}

test('Dana mentions Sam: autocomplete, a user-id mention, Sam gets a badge and the highlight', { timeout: 400000 }, async () => {
  const a = await browser.newPage()
  a.setDefaultTimeout(slow)
  await a.setViewportSize(sizes[0])
  await a.goto(dana.url)
  const ws = await readyWorkspace(a, relay)
  const general = (await call(dana, 'app.Workspaces.Channels', ws)).find((c) => c.defaultName === 'general').id
  const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
  await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
  // Sam's device is in #general once Dana's member list has it.
  await until('Sam in #general', async () =>
    (await call(dana, 'app.Workspaces.ChannelMembers', ws, general)).some((m) => m.name === 'Sam' && !m.pending),
  )

  // Sam reads #activity, not #general.
  const b = await browser.newPage()
  b.setDefaultTimeout(slow)
  await b.setViewportSize(sizes[0])
  await b.goto(sam.url)
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor()
  await b.getByRole('button', { name: /^#activity/ }).click()
  await b.getByRole('heading', { level: 1, name: '#activity' }).waitFor()

  // Dana: "@Sa" opens the list; Enter picks Sam.
  const box = a.getByLabel('Message', { exact: true })
  await box.click()
  await box.pressSequentially('@Sa')
  const list = a.getByRole('listbox', { name: 'People to mention' })
  await list.getByRole('option', { name: '@Sam' }).waitFor()
  assert.equal(await list.getByRole('option', { name: '@Sam' }).getAttribute('aria-selected'), 'true')
  await screenshot(a, 'e2e-mention-autocomplete-1280x800.png')
  await box.press('Enter')
  assert.equal(await box.inputValue(), '@Sam ')
  await box.pressSequentially('can you review the plan?')
  await box.press('Enter')
  const mine = a.getByRole('log', { name: 'Messages' }).locator('.mention', { hasText: '@Sam' })
  await mine.waitFor()

  // The message carries Sam's user id, not just text.
  const samUser = (await call(sam, 'app.Workspaces.WorkspaceMembers', ws)).find((m) => m.you).user
  await until('the mention reaches Sam', async () => {
    const p = await call(sam, 'app.Workspaces.MessagesBefore', ws, general, '', 5)
    const m = p.messages.find((x) => x.text === '@Sam can you review the plan?')
    return m && m.mentionsMe && m.mentions.length === 1 && m.mentions[0].user === samUser && m.mentions[0].start === 0 && m.mentions[0].end === 4
  })

  // Sam: a mention badge on #general, apart from the unread count.
  const badge = b.getByRole('button', { name: /^#general, 1 mention, 1 unread$/ })
  await badge.waitFor()
  assert.equal(await badge.locator('.mention-badge').textContent(), '@1')
  for (const size of sizes) {
    await b.setViewportSize(size)
    if (size.width < 900) await b.getByRole('button', { name: 'Show channels' }).click()
    await screenshot(b, `e2e-mention-badge-${size.name}.png`)
  }
  await b.setViewportSize(sizes[0])
  await badge.click()
  const hl = b.getByRole('log', { name: 'Messages' }).locator('.mention[data-you]', { hasText: '@Sam' })
  await hl.waitFor()
  assert.equal(await b.locator('li.message[data-mentions-me]').count(), 1)
  await screenshot(b, 'e2e-mention-highlight-1280x800.png')
  await b.setViewportSize(sizes[1])
  await screenshot(b, 'e2e-mention-highlight-800x600.png')
  await b.setViewportSize(sizes[0])
  // Read: the badge goes.
  await b.getByRole('button', { name: /^#general$/ }).waitFor()

  // Sam's app restarts: the mention is read back from the local index.
  sam.stop()
  await new Promise((r) => sam.proc.once('exit', r))
  sam = await fx.app({ home: sam.home })
  await b.goto(sam.url)
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor()
  await b.getByRole('log', { name: 'Messages' }).locator('.mention[data-you]', { hasText: '@Sam' }).waitFor()
})
