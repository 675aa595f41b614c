// Issue 17 item 4 through the real UI, against the e2e build and a real
// relay that is stopped and started again: Dana's window says it is not
// connected; an edit, a delete and a new message made offline wait on her
// device, shown on their messages (also after switching channels), and go
// out by themselves once the relay is back; the offline line clears; Sam
// then reads the edited text and the new message and no longer the deleted
// one. Screenshots at 1280×800 and 800×600.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshots, startPair, twoMembers, fixture } from './harness.mjs'

const fx = fixture()

let pair, a, b, ws

before(async () => {
  pair = await startPair(fx)
})

const slow = 90000

test('Dana creates, Sam joins', { timeout: 240000 }, async () => {
  ;({ a, b, ws } = await twoMembers(pair))
})

test('offline: an edit and a delete wait on the message and go out on reconnect; Sam sees them', { timeout: 300000 }, async () => {
  assert.ok(ws, 'the first test set up the workspace')
  const alog = a.getByRole('log', { name: 'Messages' })
  const blog = b.getByRole('log', { name: 'Messages' })
  for (const text of ['lunch at noon, at teh usual place', 'a message to take back offline']) {
    await a.getByLabel('Message', { exact: true }).fill(text)
    await a.keyboard.press('Enter')
    await blog.getByText(text).waitFor({ timeout: slow })
  }

  const down = await pair.relay.down()
  // The line says what waits: what Dana sends, edits or deletes (each goes through the outbox below).
  await a
    .getByRole('status')
    .filter({ hasText: 'Not connected to the relay' })
    .filter({ hasText: 'Messages you send, edit or delete wait on this device and go out by themselves once connected.' })
    .waitFor({ timeout: slow })

  const row = alog.locator('li.message', { hasText: 'lunch at noon' })
  await row.hover()
  await row.getByRole('button', { name: 'Edit message' }).click()
  await alog.getByRole('textbox', { name: 'Edit message' }).fill('lunch at noon, at the usual place')
  await a.keyboard.press('Enter')
  const edited = alog.locator('li.message', { hasText: 'lunch at noon, at the usual place' })
  await edited.getByText('Edit waiting to send…').waitFor()

  const gone = alog.locator('li.message', { hasText: 'a message to take back offline' })
  await gone.hover()
  await gone.getByRole('button', { name: 'Delete message' }).click()
  await gone.getByRole('group', { name: 'Delete this message?' }).getByRole('button', { name: 'Delete', exact: true }).click()
  await gone.getByText('Deleting…').waitFor()

  // A message typed offline waits too, and stays when Dana looks at another channel and comes back.
  await a.getByLabel('Message', { exact: true }).fill('typed while offline')
  await a.keyboard.press('Enter')
  const queued = alog.locator('li.message', { hasText: 'typed while offline' })
  await queued.getByText('Sending…').waitFor()
  await a.getByRole('button', { name: /^#activity/ }).click()
  await a.getByRole('heading', { level: 1, name: '#activity' }).waitFor()
  await a.getByRole('button', { name: /^#general/ }).click()
  await a.getByRole('heading', { level: 1, name: '#general' }).waitFor()
  await queued.getByText('Sending…').waitFor()
  await edited.getByText('Edit waiting to send…').waitFor()
  await screenshots(a, 'e2e-offline-edit-delete-waiting')
  // Offline, Sam still reads the old text.
  await blog.getByText('lunch at noon, at teh usual place').waitFor()

  pair.relay = fx.track(await down.up())
  await edited.getByText('Edit waiting to send…').waitFor({ state: 'detached', timeout: slow })
  await edited.getByText('(edited)').waitFor({ timeout: slow })
  await gone.waitFor({ state: 'detached', timeout: slow })
  await queued.getByText('Sending…').waitFor({ state: 'detached', timeout: slow })
  await a.getByRole('status').filter({ hasText: 'Not connected to the relay' }).waitFor({ state: 'detached', timeout: slow })

  const seen = blog.locator('li.message', { hasText: 'lunch at noon, at the usual place' })
  await seen.getByText('(edited)').waitFor({ timeout: slow })
  await blog.getByText('a message to take back offline').waitFor({ state: 'detached', timeout: slow })
  await blog.getByText('typed while offline').waitFor({ timeout: slow })
  assert.equal(await blog.getByText('lunch at noon, at teh usual place').count(), 0, 'the old text is gone for Sam')
  await screenshots(b, 'e2e-offline-edit-seen-by-sam')
})
