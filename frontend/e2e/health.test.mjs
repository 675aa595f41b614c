// Issue 14: the Encryption & health panel through the real UI, against the
// e2e build and a real relay with a small byte budget, at 1280×800 and
// 800×600, with screenshots under test-artifacts/: a workspace with one
// admin device and storage past 80 % of its budget shows both failures with
// their resolve actions, each channel's encryption state, and the storage
// chart against the budget; the badge on the panel's button; Compact now
// from the storage row clears it.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, sizes, readyWorkspace, inViewport, fixture } from './harness.mjs'

const fx = fixture()

let relay, app, browser

before(async () => {
  // 20,000 bytes: a new workspace holds about a third of it.
  process.env.WEALD_RELAY_MAX_LOG_GB = '0.00002'
  try {
    relay = await fx.relay()
  } finally {
    delete process.env.WEALD_RELAY_MAX_LOG_GB
  }
  app = await fx.app()
  browser = await fx.browser()
})

const slow = 90000

/** storageState runs the check now (a STATS reading each time) and resolves the storage finding's state. */
async function storageState(ws) {
  const h = await call(app, 'app.Workspaces.RunHealth', ws)
  return h.report.findings.find((f) => f.check === 'storage').state
}

test('the Encryption & health panel shows failing checks, channels and the storage chart', { timeout: 300000 }, async () => {
  const page = await browser.newPage()
  page.setDefaultTimeout(20000)
  await page.setViewportSize(sizes[0])
  await page.goto(app.url)
  const ws = await readyWorkspace(page, relay, { timeout: slow })
  const general = (await call(app, 'app.Workspaces.Channels', ws)).find((c) => c.name === 'general').id

  // Fill the log past 80 % of the budget, reading STATS as it grows.
  let state = await storageState(ws)
  for (let i = 0; i < 80 && state !== 'action'; i++) {
    await call(app, 'app.Workspaces.Send', ws, general, `note ${i}: ${'x'.repeat(200)}`)
    if (i % 4 === 3) state = await storageState(ws)
  }
  assert.equal(state, 'action', 'storage reached 80 % of the budget')

  for (const size of sizes) {
    await page.setViewportSize(size)
    const open = page.getByRole('button', { name: 'Encryption & health' })
    const menu = page.getByRole('button', { name: 'Show channels' })
    if (!(await open.isVisible()) && (await menu.isVisible())) await menu.click()
    await open.click()
    const panel = page.getByRole('dialog', { name: 'Encryption & health' })
    await panel.waitFor()
    await panel.getByRole('status').filter({ hasText: '2 checks need action.' }).waitFor()
    const findings = panel.getByRole('list', { name: 'Findings' }).getByRole('listitem')
    assert.equal(await findings.count(), 11)
    const admins = findings.filter({ hasText: 'Admin devices' })
    assert.match(
      await admins.textContent(),
      /Needs action.*1 admin device.*To resolve: Pair a second device, promote a second admin or register a recovery quorum/,
    )
    const storage = findings.filter({ hasText: 'Storage' })
    assert.match(await storage.textContent(), /Needs action.*of its 20\.0 KB budget \((8\d|9\d) %\).*To resolve: Compact now/)
    assert.match(await findings.filter({ hasText: 'Head attestations' }).textContent(), /Not checked/)
    const rows = panel.getByRole('table').getByRole('row')
    assert.equal(await rows.count(), 4, 'a header row and the three groups')
    assert.match(await panel.getByRole('row', { name: /#general/ }).textContent(), /1 person, 1 device.*text unlimited, media 180 days \(defaults\)/)
    const chart = panel.getByRole('figure', { name: 'Storage over time' })
    await chart.scrollIntoViewIfNeeded()
    assert.match(await chart.locator('figcaption').textContent(), /of the relay's 20\.0 KB budget \((8\d|9\d) %\), \d+ readings/)
    assert.ok((await chart.locator('.recharts-area-area').count()) >= 1, 'the usage area is drawn')
    assert.equal(await chart.locator('.recharts-reference-line').count(), 2, 'the budget and its 80 % mark')
    assert.ok(await inViewport(page, panel), `the panel fits the window at ${size.name}`)
    await screenshot(page, `e2e-health-panel-${size.name}.png`)
    await panel.getByRole('button', { name: 'Close', exact: true }).first().click()
    await panel.waitFor({ state: 'detached' })
  }

  // The panel's button carries a badge with the checks needing action.
  await page.setViewportSize(sizes[0])
  const button = page.getByRole('button', { name: 'Encryption & health' })
  await button.getByLabel('2 need action').waitFor()
  await screenshot(page, 'e2e-health-badge.png')

  // Dismissing the admin-devices row leaves storage as the one failure.
  await button.click()
  const panel = page.getByRole('dialog', { name: 'Encryption & health' })
  await panel.getByRole('button', { name: 'Dismiss' }).click()
  await panel.getByRole('status').filter({ hasText: '1 check needs action.' }).waitFor()
  assert.match(await panel.getByRole('listitem').filter({ hasText: 'Admin devices' }).textContent(), /Dismissed/)
  await screenshot(page, 'e2e-health-panel-dismissed.png')

  // Compact now, from the storage row, after saying what it deletes: the
  // relay's log falls below 80 % and nothing needs action; the badge goes.
  let asked = ''
  page.once('dialog', (d) => ((asked = d.message()), d.accept()))
  await panel.getByRole('listitem').filter({ hasText: 'Storage' }).getByRole('button', { name: 'Compact now' }).click()
  await panel.getByRole('status').filter({ hasText: 'Nothing needs action.' }).waitFor({ timeout: slow })
  assert.match(asked, /deletes from the relay every message envelope below it/)
  assert.match(await panel.getByRole('listitem').filter({ hasText: 'Storage' }).textContent(), /OK/)
  await screenshot(page, 'e2e-health-panel-compacted.png')
  await panel.getByRole('button', { name: 'Close', exact: true }).first().click()
  await panel.waitFor({ state: 'detached' })
  // The badge is read again when the panel closes, asynchronously: wait for it to go.
  await button.getByLabel(/need/).waitFor({ state: 'detached' })
})
