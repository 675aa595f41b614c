// Issue 17 item 6 through the real UI, against the e2e build: a relay that
// does not answer is reported as unreachable (not as "ask the operator to
// provision"), and the stuck setup can be abandoned, which removes the
// workspace from this device. At 1280×800 and 800×600.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { screenshots, confirmPhrase, sizes, call, fixture } from './harness.mjs'

const fx = fixture()

let app, browser, deadAddr

before(async () => {
  // A loopback port nothing listens on: taken, then released.
  deadAddr = await new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(`127.0.0.1:${port}`))
    })
  })
  app = await fx.app()
  browser = await fx.browser()
})

test('an unreachable relay is reported as such, and the stuck setup is removed from this device', { timeout: 240000 }, async () => {
  const page = await browser.newPage()
  page.setDefaultTimeout(20000)
  await page.setViewportSize(sizes[0])
  await page.goto(app.url)
  await page.getByRole('button', { name: 'Create a workspace' }).click()
  await page.getByLabel('Workspace name').fill('Nowhere')
  await page.getByLabel('Your name').fill('Dana')
  await page.getByLabel('Relay address').fill(`ws://${deadAddr}/v1/ws`)
  await page.getByRole('button', { name: 'Create workspace' }).click()
  await confirmPhrase(page)
  const setup = page.getByRole('region', { name: 'Setting up Nowhere' })
  const alert = setup.getByRole('alert')
  await alert.waitFor({ timeout: 90000 })
  assert.match(await alert.textContent(), /relay\/unreachable Weald keeps trying\.$/)
  assert.equal(await setup.getByTestId('provision-command').count(), 0, 'no provisioning offered for a relay that did not answer')
  await screenshots(page, 'e2e-setup-unreachable')
  await setup.getByRole('button', { name: 'Remove from this device' }).click()
  const ask = page.getByRole('region', { name: 'Remove this workspace' })
  assert.match(await ask.textContent(), /the relay deletes it too; otherwise nothing changes on the relay/)
  await screenshots(page, 'e2e-setup-remove-ask')
  await ask.getByRole('button', { name: 'Remove', exact: true }).click()
  await setup.waitFor({ state: 'detached', timeout: 30000 })
  await page.getByRole('button', { name: 'Create a workspace' }).waitFor({ timeout: 30000 })
  assert.equal((await call(app, 'app.Workspaces.List')).length, 0, 'the workspace left this device')
})
