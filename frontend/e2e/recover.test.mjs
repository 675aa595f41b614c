// Issue 12, recovery onto a new device in the desktop app, against the e2e build of three app processes and a real
// weald-relay. Sam joins Dana's workspace and reads #general; then his only device is gone (its app stops). On a new
// app he chooses "Recover with your recovery phrase": a mistyped word is named with the word it probably is; with
// his 24 words and the workspace link Dana copies from her Security view, the new device is on probation and the
// status screen says it waits for an admin. Dana approves it from the approval request in her Security view; Sam's
// new app leaves the status screen by itself and shows #general with the history, and his old device is revoked.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, readyWorkspace, screenshots, fixture } from './harness.mjs'

const fx = fixture()

let relay, dana, sam, laptop, browser
const slow = 90000

before(async () => {
  relay = await fx.relay()
  dana = await fx.app()
  sam = await fx.app()
  laptop = await fx.app()
  browser = await fx.browser()
})

/** shots takes the screenshots of one step at each window size. */
const shots = (page, name, shown) => screenshots(page, `e2e-recover-${name}`, shown)

/** until retries f every half second until it resolves a truthy value, for up to 90 s. */
async function until(what, f) {
  const end = Date.now() + slow
  for (;;) {
    const v = await f()
    if (v) return v
    assert.ok(Date.now() < end, `${what}: not within 90 s`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

test('Sam recovers onto a new device with his phrase, Dana approves it, and it reads #general', { timeout: 600000 }, async () => {
  const a = await browser.newPage()
  a.setDefaultTimeout(30000)
  await a.setViewportSize({ width: 1280, height: 800 })
  await a.goto(dana.url)
  const ws = await readyWorkspace(a, relay, { name: 'Acme', you: 'Dana', timeout: slow })

  // Sam joins by Dana's invite and keeps his 24 words; #general has history.
  const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
  const joined = await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
  const words = joined.recoveryPhrase
  assert.equal(words.length, 24)
  await until('Sam ready', async () => (await call(sam, 'app.Workspaces.List'))[0]?.ready)
  const general = (await call(dana, 'app.Workspaces.Channels', ws)).find((c) => c.name === 'general').id
  await call(dana, 'app.Workspaces.Send', ws, general, 'The launch checklist is pinned in the wiki.')
  await call(sam, 'app.Workspaces.Send', ws, general, 'Got it, thanks.')
  // Sent from Sam's outbox before the device is lost: Dana reads it.
  await until('Dana reads Sam', async () => (await call(dana, 'app.Workspaces.Messages', ws, general)).some((m) => m.text === 'Got it, thanks.'))
  const old = await until('Sam’s device listed', async () =>
    (await call(dana, 'app.Workspaces.AdminMembers', ws)).find((p) => p.name === 'Sam' && p.devices.length === 1),
  )
  const oldDevice = old.devices[0].device

  // Sam's laptop is gone.
  sam.stop()

  // Dana copies the workspace link from her Security view (it holds no secret) and sends it to Sam.
  await a.getByRole('button', { name: /^Security/ }).click()
  const linkText = a.locator('code.workspace-link')
  const link = (await linkText.textContent()).trim()
  assert.match(link, new RegExp(`^weald://workspace\\?.*ws=${ws}`))
  assert.doesNotMatch(await a.getByRole('region', { name: 'Recovery phrase' }).textContent(), /weald recover/)
  await shots(a, 'link', linkText)

  // On a new app: the fourth way in.
  const b = await browser.newPage()
  b.setDefaultTimeout(30000)
  await b.setViewportSize({ width: 1280, height: 800 })
  await b.goto(laptop.url)
  await b.getByRole('button', { name: 'Recover with your recovery phrase' }).click()
  await b.getByRole('heading', { name: 'Recover with your recovery phrase' }).waitFor()
  // All 24 pasted into the first box, one of them mistyped: named, with the word it probably is.
  const typo = [...words]
  typo[6] = words[6].slice(0, 4) + 'zz'
  await b.getByLabel('Word 1', { exact: true }).fill(typo.join(' '))
  const problems = b.getByRole('list', { name: 'Words to check' })
  await problems.waitFor()
  assert.equal((await problems.textContent()).trim(), `Word 7, “${typo[6]}”, is not in the word list. Did you mean “${words[6]}”?`)
  assert.equal(await b.getByLabel('Word 7', { exact: true }).getAttribute('aria-invalid'), 'true')
  await b.getByLabel('Workspace link or relay address').fill(link)
  assert.equal(await b.getByRole('button', { name: 'Recover' }).isDisabled(), true)
  await shots(b, 'typo', problems)
  await b.getByLabel('Word 7', { exact: true }).fill(words[6])
  await b.getByText('All 24 words are valid.').waitFor()
  await shots(b, 'form')
  await b.getByRole('button', { name: 'Recover' }).click()

  // On probation: the status screen says what it waits for.
  const waiting = b.getByRole('heading', { name: /^Waiting for an admin/ })
  await waiting.waitFor({ timeout: slow })
  await b.getByRole('heading', { name: 'Waiting for an admin to approve this device' }).waitFor({ timeout: slow })
  const steps = b.getByRole('list', { name: 'Recovery' })
  assert.match(
    await steps.textContent(),
    /✓ Your recovery phrase added this device.*✓ The relay lets this device connect.*○ An admin approved this device/,
  )
  assert.equal(await b.getByRole('heading', { level: 1, name: '#general' }).count(), 0, 'the channel is not shown while on probation')
  const status = (await call(laptop, 'app.Workspaces.List'))[0]
  assert.equal(status.recovery.stage, 'approval')
  await shots(b, 'waiting')

  // Dana: the approval request, red, in her Security view; she approves.
  const req = await until('Dana’s approval request', async () =>
    (await call(dana, 'app.Workspaces.SecurityAlerts', ws)).find((x) => x.code === 'device/recovered' && x.approve),
  )
  assert.equal(req.device, status.recovery.device, 'the request names the recovered device')
  // At 800 px the sidebar is collapsed: its Security badge shows on the menu button.
  await a.setViewportSize({ width: 800, height: 600 })
  const menu = a.getByRole('button', { name: 'Show channels' })
  await menu.locator('.menu-badge').waitFor({ timeout: slow })
  assert.equal(await menu.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby')).textContent), '1 security alert to review')
  console.log(`screenshot: ${await screenshot(a, 'e2e-recover-badge-800.png')}`)
  await a.setViewportSize({ width: 1280, height: 800 })
  await a.getByRole('button', { name: /^Security/ }).click()
  const reqRow = a.getByRole('list', { name: 'New alerts' }).getByRole('listitem', { name: req.summary })
  await reqRow.waitFor({ timeout: slow })
  await reqRow.getByRole('button', { name: /^Approve device [0-9a-f]{8}…$/ }).click()
  const approve = a.getByRole('dialog', { name: /^Approve Sam's device [0-9a-f]{8}$/ })
  await shots(a, 'approve', approve)
  await approve.getByRole('button', { name: 'Approve device' }).click()
  await approve
    .getByRole('status')
    .getByText(/^Device [0-9a-f]{8} is approved: its probation is over\.$/)
    .waitFor({ timeout: slow })
  await approve.getByRole('button', { name: 'Close', exact: true }).last().click()

  // Sam's new app: the workspace by itself, #general with its history.
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  const pane = b.getByRole('main', { name: '#general' })
  await pane.getByText('The launch checklist is pinned in the wiki.').waitFor({ timeout: slow })
  await pane.getByText('Got it, thanks.').waitFor({ timeout: slow })
  assert.equal(await b.getByRole('heading', { name: /^Waiting for an admin/ }).count(), 0)
  await b.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
  // The last step revoked the old device.
  await until('the old device revoked', async () => {
    const p = (await call(dana, 'app.Workspaces.AdminMembers', ws)).find((x) => x.name === 'Sam')
    return p.devices.find((d) => d.device === oldDevice)?.revoked
  })
  assert.equal((await call(laptop, 'app.Workspaces.List'))[0].recovery.stage, 'done')
  // Its own approval, which it waited for, is told as a notice, not as a security alert.
  await b.getByRole('status').filter({ hasText: 'approved this device: its probation after your recovery is over.' }).waitFor({ timeout: slow })
  assert.equal(await b.getByRole('alert').filter({ hasText: 'approved' }).count(), 0)
  await shots(b, 'history')
})
