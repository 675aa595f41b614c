// Issue 17 item 10, search: through the real UI against the e2e build and a
// real relay, at 1280×800 and 800×600, with screenshots under
// test-artifacts/. A search finds a message more than a page back in the
// history; choosing the result opens the channel scrolled to it, highlighted.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, call, sizes, readyWorkspace, inViewport, fixture } from './harness.mjs'

const fx = fixture()

let relay, app, browser

before(async () => {
  relay = await fx.relay()
  app = await fx.app()
  browser = await fx.browser()
})

const N = 230 // more than one page (200) of history

test('search finds an old message and opens #general at it, highlighted', { timeout: 300000 }, async () => {
  const page = await browser.newPage()
  page.setDefaultTimeout(90000)
  await page.setViewportSize(sizes[0])
  await page.goto(app.url)
  const ws = await readyWorkspace(page, relay)
  const general = (await call(app, 'app.Workspaces.Channels', ws)).find((c) => c.name === 'general').id
  await call(app, 'app.Workspaces.Send', ws, general, 'The quarterly budget review moves to Thursday')
  for (let i = 1; i < N; i++) await call(app, 'app.Workspaces.Send', ws, general, `routine note ${i}`)
  // Every message went out (the outbox drains by itself).
  const deadline = Date.now() + 120000
  for (;;) {
    const p = await call(app, 'app.Workspaces.MessagesBefore', ws, general, '', 1)
    if (p.messages[0]?.text === `routine note ${N - 1}` && p.messages[0].state === 'sent') break
    assert.ok(Date.now() < deadline, 'the outbox did not drain')
    await new Promise((r) => setTimeout(r, 500))
  }
  for (const size of sizes) {
    await page.setViewportSize(size)
    await page.goto(app.url)
    await page.getByRole('heading', { level: 1, name: '#general' }).waitFor()
    await page.getByText(`routine note ${N - 1}`).waitFor()
    const box = page.getByRole('searchbox', { name: 'Search messages' })
    await box.fill('quarterly budg')
    await box.press('Enter')
    const results = page.getByRole('region', { name: 'Search results for quarterly budg' })
    await results.getByRole('heading', { name: '1 result for “quarterly budg”' }).waitFor()
    const hit = results.getByRole('button', { name: /#general/ })
    assert.deepEqual(await hit.locator('mark').allTextContents(), ['quarterly', 'budget'])
    await screenshot(page, `e2e-search-results-${size.name}.png`)
    await hit.click()
    const row = page.locator('li.message[data-highlighted]')
    await row.getByText('The quarterly budget review moves to Thursday').waitFor()
    // Wait for the scroll to settle, then the highlighted row is in the window.
    await page.waitForTimeout(300)
    assert.ok(await inViewport(page, row), `highlighted row outside the ${size.name} window`)
    assert.match(await page.locator('ol.virtual').getAttribute('aria-label'), /^(2[3-9]\d|[3-9]\d\d) messages loaded$/)
    await screenshot(page, `e2e-search-opened-${size.name}.png`)
  }
  // A query without a word says so with its code.
  const box = page.getByRole('searchbox', { name: 'Search messages' })
  await box.fill('?!')
  await box.press('Enter')
  await page.getByText('search/bad_query').waitFor()
  await page.getByRole('button', { name: 'Close search' }).click()
})
