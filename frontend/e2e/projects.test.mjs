// Projects against the real backend: a folder added in the UI is watched by
// Go (backend/project with fsnotify), and editing its .weald on disk updates
// the page live through the shim's event stream, with no reload.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { screenshot, call, fixture } from './harness.mjs'

const fx = fixture()

const otherWorkspace = 'bb00000000000000000000000000000000000000000000000000000000000002'
let app, browser, relay

before(async () => {
  relay = await fx.relay()
  app = await fx.app()
  browser = await fx.browser()
  // Projects wait until a workspace exists: create one (its setup need not finish).
  await call(app, 'app.Workspaces.Create', 'Acme', 'Dana', relay.url)
})

/** saveAtomically writes the way editors do: a temporary file renamed over the old one. */
function saveAtomically(folder, content) {
  const tmp = path.join(folder, '.weald.swp')
  writeFileSync(tmp, content)
  renameSync(tmp, path.join(folder, '.weald'))
}

test('editing a watched .weald on disk updates the UI live', { timeout: 60000 }, async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'weald-project-'))
  writeFileSync(path.join(folder, '.weald'), JSON.stringify({ name: 'alpha' }))
  const page = await browser.newPage()
  page.setDefaultTimeout(10000)
  await page.goto(app.url)

  // Add the folder with the keyboard only.
  await page.getByRole('button', { name: 'Add a project folder' }).focus()
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog', { name: 'Add a project folder' })
  await dialog.getByLabel('Folder', { exact: true }).fill(folder)
  await page.keyboard.press('Enter')
  await dialog.waitFor({ state: 'detached' })

  const projects = page.getByRole('region', { name: 'Projects' })
  await projects.getByRole('button', { name: 'alpha' }).click()
  const view = page.getByRole('region', { name: 'Project alpha' })
  await view.getByText('Local only: not bound to a workspace').waitFor()

  // Change it on disk: the name and a workspace this device is not in.
  saveAtomically(folder, JSON.stringify({ name: 'beta', transport: 'relay', workspace: otherWorkspace, relay: 'ws://127.0.0.1:9' }))
  const beta = page.getByRole('region', { name: 'Project beta' })
  await beta.getByTestId('project-state').filter({ hasText: 'which you are not in' }).waitFor()
  await projects.getByRole('button', { name: 'beta' }).waitFor()
  await beta.getByRole('button', { name: 'Join with an invite' }).waitFor()
  const file = await screenshot(page, 'e2e-project-live.png')
  console.log(`screenshot: ${file}`)

  // A broken file is reported with its code, still live.
  writeFileSync(path.join(folder, '.weald'), '{"name":')
  await page.getByRole('alert').filter({ hasText: 'project/invalid' }).waitFor()

  // The offer to join leads to the invite form.
  saveAtomically(folder, JSON.stringify({ name: 'beta', transport: 'relay', workspace: otherWorkspace, relay: 'ws://127.0.0.1:9' }))
  await beta.getByRole('button', { name: 'Join with an invite' }).click()
  await page.getByLabel('Invite link').waitFor()

  // The folder is remembered by Go across a reload.
  await page.reload()
  await page.getByRole('region', { name: 'Projects' }).getByRole('button', { name: 'beta' }).waitFor()
  assert.equal(await page.getByRole('region', { name: 'Projects' }).getByRole('button').count(), 2) // beta and "+"
})

test('a folder that does not exist is refused in plain words', { timeout: 30000 }, async () => {
  const page = await browser.newPage()
  page.setDefaultTimeout(10000)
  await page.goto(app.url)
  await page.getByRole('button', { name: 'Add a project folder' }).click()
  await page.getByLabel('Folder', { exact: true }).fill('/no/such/weald/folder')
  await page.getByRole('button', { name: 'Add folder' }).click()
  const alert = page.getByRole('dialog').getByRole('alert')
  await alert.waitFor()
  assert.match(await alert.textContent(), /There is no folder at \/no\/such\/weald\/folder; check the path\. projects\/no_folder/)
})
