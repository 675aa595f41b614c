// Issue 15, "Relay addresses as people type them": every form of a relay's
// address typed into the create form of the real UI, against a real relay in
// open mode. Each form that names the relay ends with a workspace the relay
// holds, connected to the address written the one way (ws://host:port/v1/ws);
// each form that cannot be a relay address is refused in the form with one
// sentence, and nothing is left on the device; an address where a web server
// that is not a Weald relay answers is reported as that.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { screenshot, call, openCreateForm, confirmPhrase, fixture } from './harness.mjs'

const fx = fixture()

let relay, app, browser

before(async () => {
  relay = await fx.relay(['-provisioning', 'open'])
  app = await fx.app()
  browser = await fx.browser()
})

/** waitFor polls check (an async boolean) every 200 ms until it holds or ms pass. */
async function waitFor(what, check, ms = 60000) {
  const end = Date.now() + ms
  for (let i = 0; Date.now() < end; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${what}: not within ${ms / 1000} s`)
}

test('every relay-address form as typed reaches the relay, or is refused in one sentence', { timeout: 300000 }, async () => {
  const port = relay.addr.split(':')[1]
  const canonical = `ws://127.0.0.1:${port}/v1/ws`
  const reaches = [
    ['host:port', `127.0.0.1:${port}`, canonical],
    ['localhost:port', `localhost:${port}`, `ws://localhost:${port}/v1/ws`],
    ['ws://host:port', `ws://127.0.0.1:${port}`, canonical],
    ['ws://host:port/v1/ws', `ws://127.0.0.1:${port}/v1/ws`, canonical],
    ['http://host:port', `http://127.0.0.1:${port}`, canonical],
    ['http://host:port/v1/ws/ with spaces around', `  HTTP://127.0.0.1:${port}/v1/ws/  `, canonical],
  ]
  for (const [i, [form, typed, want]] of reaches.entries()) {
    // A device of its own for each form: the first-run screen is where a
    // person types the address.
    const device = await fx.app()
    const name = `Form ${i + 1}`
    const page = await openCreateForm(browser, device, { name })
    await page.getByLabel('Relay address').fill(typed)
    await page.getByRole('button', { name: 'Create workspace' }).click()
    await page.getByRole('list', { name: 'Recovery phrase' }).waitFor({ timeout: 90000 })
    let ws
    await waitFor(`${form}: the workspace ready on the relay`, async () => {
      ws = (await call(device, 'app.Workspaces.List')).find((w) => w.name === name)
      return ws?.ready === true
    })
    assert.equal(ws.relay, want, `${form} (${JSON.stringify(typed)})`)
    assert.equal(ws.provision, null, `${form}: no operator step`)
    if (i === 0) await screenshot(page, 'address-host-port.png')
    await page.close()
    device.stop()
  }

  const refused = [
    ['another scheme', `ftp://127.0.0.1:${port}`, /must start with ws:\/\/, wss:\/\/, http:\/\/ or https:\/\//],
    ['a port out of range', '127.0.0.1:70000', /no valid port/],
    ['a query', `ws://127.0.0.1:${port}/v1/ws?x=1`, /has no user name, \? or #/],
    ['spaces inside', `127.0.0.1 :${port}`, /no spaces/],
  ]
  for (const [form, typed, sentence] of refused) {
    const page = await openCreateForm(browser, app, { name: 'Refused' })
    await page.getByLabel('Relay address').fill(typed)
    await page.getByRole('button', { name: 'Create workspace' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor({ timeout: 30000 })
    assert.match(await alert.textContent(), sentence, form)
    assert.equal(await page.getByRole('list', { name: 'Recovery phrase' }).count(), 0, `${form}: no workspace was made`)
    if (form === 'another scheme') await screenshot(page, 'address-refused.png')
    await page.close()
  }
  assert.equal((await call(app, 'app.Workspaces.List')).length, 0, 'a refused address leaves nothing behind')
})

test('an address where something else answers is reported as not a Weald relay', { timeout: 180000 }, async () => {
  const server = http.createServer((req, res) => res.writeHead(404).end('not here'))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const page = await openCreateForm(browser, app, { name: 'Elsewhere' })
    await page.getByLabel('Relay address').fill(`http://127.0.0.1:${server.address().port}`)
    await page.getByRole('button', { name: 'Create workspace' }).click()
    await confirmPhrase(page)
    const setup = page.getByRole('region', { name: 'Setting up Elsewhere' })
    const alert = setup.getByRole('alert')
    await alert.waitFor({ timeout: 90000 })
    assert.match(await alert.textContent(), /relay\/not_a_relay/)
    assert.equal(await setup.getByTestId('provision-command').count(), 0, 'no operator step for a server that is not a relay')
    await screenshot(page, 'address-not-a-relay.png')
    await page.close()
  } finally {
    server.close()
  }
})
