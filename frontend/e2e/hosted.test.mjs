// Issue 15, "Host on this computer" through the real UI: the app runs the
// relay itself, so the test starts no relay process, only the apps (and
// the browser). Dana's app hosts and reaches #general with Send enabled; a
// second instance joins with an invite and reads her message; after Dana's
// app restarts, its relay is back and a new message reaches the second one.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, confirmPhrase, openCreateForm, fixture } from './harness.mjs'

const fx = fixture()

let dana, sam, browser
const slow = 90000

before(async () => {
  dana = await fx.app()
  sam = await fx.app()
  browser = await fx.browser()
})

async function sendAndSee(page, text) {
  await page.getByLabel('Message', { exact: true }).fill(text)
  await page.keyboard.press('Enter')
  await page.getByRole('log', { name: 'Messages' }).getByText(text).waitFor({ timeout: slow })
}

test('Host on this computer reaches #general with Send enabled; a second instance joins it with an invite', { timeout: 300000 }, async () => {
  const a = await openCreateForm(browser, dana)
  await a.getByRole('radio', { name: 'Host on this computer' }).check()
  await a.getByText('only this computer can reach it', { exact: false }).waitFor()
  await screenshot(a, 'hosted-create-form.png')
  await a.getByRole('button', { name: 'Create workspace' }).click()
  await confirmPhrase(a, { timeout: slow })
  await a.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  await a.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
  assert.equal(await a.getByTestId('provision-command').count(), 0, 'no operator step')
  const [w] = await call(dana, 'app.Workspaces.List')
  assert.match(w.relay, /^ws:\/\/127\.0\.0\.1:\d+\/v1\/ws$/, 'the relay is on this computer')
  await sendAndSee(a, 'hello from the hosted relay')
  // Connected, and the page says so: no stale "Not connected" line.
  await a.getByText('Not connected to the relay').waitFor({ state: 'detached', timeout: 20000 })
  await screenshot(a, 'hosted-general.png')

  const inv = await call(dana, 'app.Workspaces.CreateInvite', w.id, [], 24, 1, 'member')
  const b = await browser.newPage()
  b.setDefaultTimeout(30000)
  await b.goto(sam.url)
  await b.getByRole('button', { name: 'Join with an invite' }).click()
  await b.getByLabel('Invite link').fill(inv.link)
  await b.getByLabel('Your name').fill('Sam')
  await b.getByRole('button', { name: 'Join', exact: true }).click()
  await confirmPhrase(b, { timeout: slow })
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  await b.getByRole('log', { name: 'Messages' }).getByText('hello from the hosted relay').waitFor({ timeout: slow })
  await b.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
  await b.getByText('Not connected to the relay').waitFor({ state: 'detached', timeout: 20000 })
  await screenshot(b, 'hosted-joined.png')

  // The relay restarts with the app: same home, same address.
  dana.stop()
  await new Promise((r) => dana.proc.once('exit', r))
  dana = await fx.app({ home: dana.home })
  await a.goto(dana.url)
  await a.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  const [again] = await call(dana, 'app.Workspaces.List')
  assert.equal(again.relay, w.relay)
  await sendAndSee(a, 'after the restart')
  await b.getByRole('log', { name: 'Messages' }).getByText('after the restart').waitFor({ timeout: slow })
})
