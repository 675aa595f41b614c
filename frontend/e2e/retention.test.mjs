// Issue 14: a channel's retention windows from the desktop, through the real
// UI against the e2e build and a real relay. #general holds three messages
// dated 40 days ago (posted with the e2e build's clock shifted back, as a
// device whose clock was behind would) and two from now. Dana, the only
// admin, opens Retention… on #general's row of the Encryption & health panel,
// sets the text window to 30 days, sees that the three are older than it (a
// number, with their bytes), saves, and the change is in force: the dialog
// says so and the panel's row and the binding show the new windows.
// Screenshots: test-artifacts/retention-settings.png (the impact before
// Save) and retention-settings-<size>.png at both window sizes.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, screenshots, call, sizes, readyWorkspace, fixture } from './harness.mjs'

const fx = fixture()

let relay, app, browser

before(async () => {
  relay = await fx.relay()
  app = await fx.app()
  browser = await fx.browser()
})

/** shiftClock moves every engine's clock of the e2e build back by hours (0: the real time). */
async function shiftClock(hours) {
  const r = await fetch(`${app.url}/__weald/clock`, { method: 'POST', body: JSON.stringify({ offsetHours: -hours }) })
  assert.equal(r.status, 204, await r.text())
}

/** sent waits until n messages of channel starting with prefix went out (Send queues; the engine stamps a message as it sends it). */
async function sent(ws, channel, prefix, n) {
  const deadline = Date.now() + 60000
  for (let i = 0; i < 600 && Date.now() < deadline; i++) {
    const ms = await call(app, 'app.Workspaces.Messages', ws, channel)
    if (ms.filter((m) => m.text.startsWith(prefix) && m.state === 'sent').length === n) return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(`${n} messages "${prefix}…" not sent within 60 s`)
}

test('an admin sees what a retention window would delete, saves it, and it is in force', { timeout: 300000 }, async () => {
  const page = await browser.newPage()
  page.setDefaultTimeout(20000)
  await page.setViewportSize(sizes[0])
  await page.goto(app.url)
  const ws = await readyWorkspace(page, relay)
  const general = (await call(app, 'app.Workspaces.Channels', ws)).find((c) => c.name === 'general').id

  await shiftClock(40 * 24)
  try {
    for (let i = 0; i < 3; i++) await call(app, 'app.Workspaces.Send', ws, general, `old note ${i}: ${'x'.repeat(100)}`)
    await sent(ws, general, 'old note', 3)
  } finally {
    await shiftClock(0)
  }
  for (let i = 0; i < 2; i++) await call(app, 'app.Workspaces.Send', ws, general, `new note ${i}`)
  await sent(ws, general, 'new note', 2)

  await page.getByRole('button', { name: 'Encryption & health' }).click()
  const panel = page.getByRole('dialog', { name: 'Encryption & health' })
  const row = panel.getByRole('row', { name: /#general/ })
  assert.match(await row.textContent(), /text unlimited, media 180 days \(defaults\)/)
  await row.getByRole('button', { name: 'Retention…' }).click()

  const dialog = page.getByRole('dialog', { name: 'Retention of #general' })
  await dialog.waitFor()
  assert.equal(await dialog.getByLabel('Current retention').textContent(), 'Text is kept without limit, media 180 days (the defaults).')
  const impact = dialog.getByRole('status', { name: 'Impact' })
  await impact.filter({ hasText: 'Text is kept without limit' }).waitFor()
  await dialog.getByLabel('Delete after').first().check()
  await dialog.getByLabel('Text messages: days').fill('30')
  await impact
    .filter({
      hasText:
        /^3 messages \(about \d+(\.\d)? (bytes|KB) of envelopes on the relay\) are older than 30 days\. The relay deletes them, text included, at the first compaction 30 days after the channel's next checkpoint, so people who join later do not read them; members keep their own copies\.$/,
    })
    .waitFor()
  assert.match(await dialog.textContent(), /Saving sets #general to keep text 30 days and media 180 days, for everyone in it\./)
  await screenshot(page, 'retention-settings.png')
  await screenshots(page, 'retention-settings', impact)

  await dialog.getByRole('button', { name: 'Save' }).click()
  const saved = dialog.getByRole('status', { name: 'Saved' })
  await saved.waitFor({ timeout: 60000 })
  assert.equal(await saved.textContent(), 'In force: #general keeps text 30 days and media 180 days.')
  await dialog.getByRole('button', { name: 'Done' }).click()

  await panel.waitFor()
  await panel
    .getByRole('row', { name: /#general/ })
    .filter({ hasText: 'text 30 days, media 180 days' })
    .waitFor()
  assert.doesNotMatch(await panel.getByRole('row', { name: /#general/ }).textContent(), /defaults/)
  const r = await call(app, 'app.Workspaces.ChannelRetention', ws, general)
  assert.deepEqual(r, { channel: 'general', textDays: 30, mediaDays: 180, defaultPolicy: false, admin: true })
  assert.equal((await call(app, 'app.Workspaces.EncryptionHealth', ws)).pending.length, 0, 'nothing waits for approval')
})
