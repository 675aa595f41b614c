import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshot, fixture } from './harness.mjs'

const fx = fixture()

let app, browser

before(async () => {
  app = await fx.app()
  browser = await fx.browser()
})

test('the shell renders backend state from App.Status', { timeout: 60000 }, async () => {
  const page = await browser.newPage()
  page.setDefaultTimeout(10000)
  await page.goto(app.url)
  // The data directory is only known to Go: seeing it proves the page reached the real method.
  await page.getByRole('button', { name: 'About' }).click()
  await page.getByRole('dialog', { name: 'About Weald' }).getByTestId('data-dir').filter({ hasText: app.home }).waitFor()
  assert.match(await page.getByTestId('about-version').textContent(), /^v\d+\.\d+\.\d+(-\d+-g[0-9a-f]{12})?(-dirty)?$/)
  await page.getByRole('button', { name: 'Done' }).click()
  // The footer has the release (no commit hash); About has the whole version.
  assert.match(await page.getByTestId('version').textContent(), /^v\d+\.\d+\.\d+(-\d+)?(-dirty)?$/)
  assert.equal(await page.getByRole('navigation', { name: 'Workspace' }).isVisible(), true)
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Welcome to Weald')
  assert.equal(await page.getByRole('button', { name: 'Create a workspace' }).isVisible(), true)
  assert.equal(await page.getByRole('button', { name: 'Join with an invite' }).isVisible(), true)
  // No composer before there is a workspace to send in.
  assert.equal(await page.getByRole('button', { name: 'Send' }).count(), 0)
  const file = await screenshot(page, 'e2e-shell.png')
  console.log(`screenshot: ${file}`)
  assert.match(app.log(), /frontend connected: first bound call App.Status/)
})

test('an unknown method is refused with a code, not a crash', { timeout: 30000 }, async () => {
  const r = await fetch(`${app.url}/__weald/call`, {
    method: 'POST',
    body: JSON.stringify({ method: 'app.App.Nope', args: [] }),
  })
  assert.equal(r.status, 404)
  assert.equal((await r.json()).error.code, 'shim/unknown_method')
})
