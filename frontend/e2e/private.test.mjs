// Issue 13 through the desktop UI against a real relay: Dana makes a private
// channel and adds Sam with the picker; Sam's app shows it by itself and Sam
// reads it; Dana starts a DM that both sides read; Sam pairs a second device
// ("Add a device", then "Join as an existing user" on another app), which
// shows the private channel and the DM and posts as Sam. Screenshots at
// 1280×800 and 800×600 under test-artifacts/.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { call, sizes, readyWorkspace, screenshots, fixture } from './harness.mjs'

const fx = fixture()

let relay, dana, sam, laptop, browser

before(async () => {
  relay = await fx.relay()
  dana = await fx.app()
  sam = await fx.app()
  laptop = await fx.app()
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

/** shots takes the screenshots of one step at each window size. */
const shots = (page, name, shown) => screenshots(page, `e2e-${name}`, shown)

test('a private channel, a DM and a paired second device', { timeout: 600000 }, async () => {
  const a = await browser.newPage()
  a.setDefaultTimeout(slow)
  await a.setViewportSize(sizes[0])
  await a.goto(dana.url)
  const ws = await readyWorkspace(a, relay)
  const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
  await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
  const b = await browser.newPage()
  b.setDefaultTimeout(slow)
  await b.setViewportSize(sizes[0])
  await b.goto(sam.url)
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor()
  // Sam's key packages are on the relay once Dana's people list shows Sam.
  await until('Sam listed', async () => (await call(dana, 'app.Workspaces.People', ws)).some((p) => p.name === 'Sam'))

  // Dana: a private channel, Sam added with the picker.
  await a.getByRole('button', { name: 'New channel' }).click()
  await a.getByRole('dialog', { name: 'New channel' }).getByLabel('Name').fill('plans')
  await a.getByRole('radio', { name: /Private/ }).check()
  await a.getByRole('button', { name: 'Create channel' }).click()
  await a.getByRole('heading', { level: 1, name: '#plans' }).waitFor()
  await a.getByRole('button', { name: 'Add people' }).click()
  const add = a.getByRole('dialog', { name: 'Add people to #plans' })
  await add.getByRole('checkbox', { name: /Sam/ }).check()
  await add.getByRole('button', { name: 'Add' }).click()
  // The dialog says what the add did (its status) and stays open until Done.
  await add.getByRole('status').waitFor()
  await add.getByRole('button', { name: 'Done' }).click()
  await add.waitFor({ state: 'detached' })
  await a.getByLabel('Message', { exact: true }).fill('the plan, for Sam')
  await a.keyboard.press('Enter')
  await a.getByRole('log', { name: 'Messages' }).getByText('the plan, for Sam').waitFor()
  await shots(a, 'private-channel-dana')

  // Sam's app shows #plans by itself; Sam reads it.
  await b.getByRole('button', { name: /^#plans/ }).click({ timeout: slow })
  await b.getByRole('log', { name: 'Messages' }).getByText('the plan, for Sam').waitFor()
  assert.match(await b.getByTestId('lock-state').textContent(), /Members add people/)
  await shots(b, 'private-channel-sam')

  // A DM: Dana writes, Sam reads and answers, Dana reads.
  await a.getByRole('button', { name: 'New message' }).click()
  const dm = a.getByRole('dialog', { name: 'New message' })
  await dm.getByRole('radio', { name: 'Sam' }).check()
  await dm.getByLabel('Message').fill('just between us')
  await dm.getByRole('button', { name: 'Send' }).click()
  await a.getByRole('log', { name: 'Messages' }).getByText('just between us').waitFor()
  await b.getByRole('list', { name: 'Direct messages' }).getByRole('button', { name: /Dana/ }).click({ timeout: slow })
  await b.getByRole('log', { name: 'Messages' }).getByText('just between us').waitFor()
  await b.getByLabel('Message', { exact: true }).fill('agreed')
  await b.keyboard.press('Enter')
  await a.getByRole('log', { name: 'Messages' }).getByText('agreed').waitFor()
  await shots(a, 'dm-dana')
  await shots(b, 'dm-sam')

  // Sam pairs a second device.
  await b.getByRole('button', { name: 'Add a device' }).click()
  const pd = b.getByRole('dialog', { name: 'Add a device' })
  await pd.getByRole('button', { name: 'Make a pairing link' }).click()
  const link = await pd.getByLabel('Pairing link').inputValue()
  assert.match(link, /^weald:\/\/pair\?/)
  await shots(b, 'add-a-device')
  await b.keyboard.press('Escape')
  const c = await browser.newPage()
  c.setDefaultTimeout(slow)
  await c.setViewportSize(sizes[0])
  await c.goto(laptop.url)
  await c.getByRole('button', { name: 'Join as an existing user' }).click()
  await c.getByLabel('Pairing link').fill(link)
  await shots(c, 'join-as-existing-user')
  await c.getByRole('button', { name: 'Join' }).click()
  await c.getByRole('heading', { level: 1, name: '#general' }).waitFor()
  await c.getByRole('button', { name: /^#plans/ }).click({ timeout: slow })
  await c.getByLabel('Message', { exact: true }).fill('from my laptop')
  await c.keyboard.press('Enter')
  const log = a.getByRole('log', { name: 'Messages' })
  await a.getByRole('button', { name: /^#plans/ }).click()
  await log.getByText('from my laptop').waitFor()
  await shots(a, 'paired-device-posted')
})
