// Issue 15, self-serve provisioning through the real UI: a relay in token
// mode, a relay link from `weald-relay token create`, and a workspace
// created with that link reaching #general with Send enabled, with no
// operator step on the way. The link's one use spent, the same link is
// refused in one sentence and nothing is left on the device.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, confirmPhrase, openCreateForm, fixture } from './harness.mjs'

const fx = fixture()

let relay, app, browser

before(async () => {
  relay = await fx.relay(['-provisioning', 'token'])
  app = await fx.app()
  browser = await fx.browser()
})

test('a relay in token mode, a token link, a workspace created with no operator step', { timeout: 180000 }, async () => {
  const link = await relay.tokenLink(1)
  assert.match(link, /^weald:\/\/relay\?/)
  const page = await openCreateForm(browser, app)
  await page.getByLabel('Relay address').fill(link)
  await page.getByRole('button', { name: 'Create workspace' }).click()
  await confirmPhrase(page, { timeout: 90000 })
  await page.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: 90000 })
  await page.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: 90000 })
  assert.equal(await page.getByTestId('provision-command').count(), 0, 'no operator step is shown')
  const list = await call(app, 'app.Workspaces.List')
  assert.equal(list.length, 1)
  assert.equal(list[0].ready, true)
  assert.equal(list[0].provision, null)
  // Connected, and the page says so: no stale "Not connected" line.
  await page.getByText('Not connected to the relay').waitFor({ state: 'detached', timeout: 20000 })
  await screenshot(page, 'provisioning-token-link.png')

  // The token had one use: the same link again is refused, and nothing is kept.
  await assert.rejects(call(app, 'app.Workspaces.Create', 'Other', 'Dana', link), /token_used_up/)
  assert.equal((await call(app, 'app.Workspaces.List')).length, 1, 'a refused link leaves nothing behind')
  await page.close()
})
