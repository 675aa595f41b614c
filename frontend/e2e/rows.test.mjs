// Issue 17 item 2 through the real UI, against the e2e build: the rows of
// a long channel never overlap, whatever their heights — join notices
// ("Sam joined"), one-line and wrapping messages, grouped runs and day
// separators — at 1280×800 and 800×600, on opening and while scrolling up
// through older pages. (A join notice once overlapped the message under
// it: its row had a margin the list's measurement does not count.)
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, readyWorkspace, sizes, fixture } from './harness.mjs'
import { assertRowsApart, serveFrontend } from './rows.mjs'

const fx = fixture()

let relay, app, browser, ws, chan

before(async () => {
  relay = await fx.relay()
  app = await fx.app()
  browser = await fx.browser()
})

const N = 1000

for (const size of sizes) {
  test(`rows never overlap at ${size.name}`, { timeout: 240000 }, async () => {
    const page = await browser.newPage()
    page.setDefaultTimeout(90000)
    // WEALD_E2E_DIST: another frontend build against the same app (to show this test fails on an old one).
    if (process.env.WEALD_E2E_DIST) await serveFrontend(page, app, process.env.WEALD_E2E_DIST)
    await page.setViewportSize(size)
    await page.goto(app.url)
    if (!ws) {
      ws = await readyWorkspace(page, relay)
      chan = await call(app, 'app.Workspaces.CreateChannel', ws, 'rows', 'parent')
      const r = await fetch(`${app.url}/__weald/seed`, {
        method: 'POST',
        body: JSON.stringify({ workspace: ws, channel: chan.id, n: N, mixed: true }),
      })
      assert.equal(r.status, 204)
    }
    const nav = page.getByRole('button', { name: /^#rows/ })
    // At 800 px the sidebar is collapsed behind its menu button. Either shows once the page has the channel.
    const menu = page.getByRole('button', { name: 'Show channels' })
    await nav.or(menu).first().waitFor()
    if (!(await nav.isVisible())) await menu.click()
    await nav.click()
    const log = page.getByRole('log', { name: 'Messages' })
    await log.getByText(`Seeded message ${N} of ${N}`).waitFor()
    const joined = log.locator('li.notice')
    assert.ok((await joined.count()) > 0, 'join notices are on screen')
    await assertRowsApart(page, `on opening #rows at ${size.name}`)
    await screenshot(page, `e2e-rows-joined-${size.name}.png`)

    // Up through the history: older pages arrive on the way.
    await log.hover()
    for (let i = 1; i <= 12; i++) {
      await page.mouse.wheel(0, -700)
      await page.waitForTimeout(50)
      await assertRowsApart(page, `after ${i} steps up at ${size.name}`)
    }
    const held = await page.locator('ol.virtual').getAttribute('aria-label')
    assert.ok(Number(held.split(' ')[0]) > 200, `older pages loaded while scrolling up (${held})`)
    await screenshot(page, `e2e-rows-scrolled-${size.name}.png`)
    await page.close()
  })
}
