// Issue 17 through the real UI, against the e2e build and a real relay:
// what is yours to change. Your display name (item 3's rename control) and
// your messages (item 10's edit and delete), seen by the other member; an
// invite revoked in the invite list (item 5) no longer joins.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startApp, launchBrowser, screenshot, buildRelay, startRelay, call, readyWorkspace } from './harness.mjs'

let relay, dana, sam, browser, a, b, ws

before(async () => {
  relay = await startRelay(await buildRelay())
  dana = await startApp()
  sam = await startApp()
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  dana?.stop()
  sam?.stop()
  relay?.stop()
})

const slow = 90000

test('Dana creates, Sam joins', { timeout: 240000 }, async () => {
  a = await browser.newPage()
  a.setDefaultTimeout(20000)
  await a.setViewportSize({ width: 1280, height: 800 })
  await a.goto(dana.url)
  ws = await readyWorkspace(a, relay)
  const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
  await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
  b = await browser.newPage()
  b.setDefaultTimeout(20000)
  await b.setViewportSize({ width: 1280, height: 800 })
  await b.goto(sam.url)
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  await b.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
})

test('rename: Dana changes her name in the sidebar; a bad one is refused plainly; Sam sees the new one', { timeout: 180000 }, async () => {
  assert.ok(ws, 'the first test set up the workspace')
  await a.getByLabel('Message', { exact: true }).fill('a message before the rename')
  await a.keyboard.press('Enter')
  const seen = b.getByRole('log', { name: 'Messages' }).locator('li.message', { hasText: 'a message before the rename' })
  await seen.locator('.author', { hasText: /^Dana$/ }).waitFor({ timeout: slow })

  await a.getByRole('button', { name: 'Your name: Dana. Change it' }).click()
  const dlg = a.getByRole('dialog', { name: 'Your name' })
  const field = dlg.getByLabel('Your name in Acme')
  assert.equal(await field.inputValue(), 'Dana')
  // Too long: a stable code and one plain sentence; nothing changes, focus stays in the field.
  await field.fill('D'.repeat(81))
  await dlg.getByRole('button', { name: 'Save' }).click()
  const alert = dlg.getByRole('alert')
  await alert.waitFor()
  assert.match(await alert.textContent(), /too long.*bad_request\/name$/)
  assert.equal(await field.evaluate((el) => el === document.activeElement), true, 'focus stays in the field')
  await screenshot(a, 'e2e-yours-rename-refused-1280x800.png')
  await field.fill('Dana Scully')
  await dlg.getByRole('button', { name: 'Save' }).click()
  await dlg.waitFor({ state: 'detached' })
  await a.getByRole('button', { name: 'Your name: Dana Scully. Change it' }).waitFor({ timeout: slow })

  // Sam sees the new name on Dana's message, the one sent before the rename included.
  await seen.locator('.author', { hasText: /^Dana Scully$/ }).waitFor({ timeout: slow })
  await screenshot(b, 'e2e-yours-renamed-seen-by-sam-1280x800.png')
})
