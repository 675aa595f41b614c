// Issue 14, spec/lifecycle.md "Interaction with open history", through the
// desktop UI against a real relay: Dana writes in #general and compacts it
// now (the Encryption & health panel's action), so the relay drops its
// history below a checkpoint; Sam, invited afterwards, reads that history
// from the checkpoint's snapshot, and the channel's member list says
// "History verified from DATE" and what that means. Dana's own list, whose
// history she verified in full, says nothing of it. Screenshots at
// 1280×800 and 800×600 under test-artifacts/.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { screenshots, call, sizes, readyWorkspace, startPair, fixture } from './harness.mjs'

const fx = fixture()

let pair

before(async () => {
  pair = await startPair(fx)
})

const slow = 90000

async function open(app) {
  const page = await pair.browser.newPage()
  page.setDefaultTimeout(20000)
  await page.setViewportSize(sizes[0])
  await page.goto(app.url)
  return page
}

/** members opens the open channel's member list on page and resolves the dialog once its list is drawn. */
async function members(page) {
  await page.getByRole('button', { name: 'Members' }).click()
  const dialog = page.getByRole('dialog', { name: 'Members of #general' })
  await dialog.getByRole('list', { name: 'Members' }).waitFor()
  return dialog
}

test('a person joining after #general was compacted sees "History verified from" in its member list', { timeout: 300000 }, async () => {
  const { relay, dana, sam } = pair
  const a = await open(dana)
  const ws = await readyWorkspace(a, relay, { timeout: slow })
  const general = (await call(dana, 'app.Workspaces.Channels', ws)).find((c) => c.name === 'general').id
  for (let i = 0; i < 5; i++) await call(dana, 'app.Workspaces.Send', ws, general, `before the compaction ${i}`)
  await call(dana, 'app.Workspaces.ResolveHealth', ws, 'compact_now')

  const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
  await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
  const b = await open(sam)
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  // What came before the compaction is read from the checkpoint's snapshot.
  await b.getByText('before the compaction 4').waitFor({ timeout: slow })
  const list = await members(b)
  assert.match(await list.getByRole('list', { name: 'Members' }).textContent(), /Dana.*Sam/)
  const note = list.getByRole('note')
  await note.waitFor()
  assert.match(
    await note.textContent(),
    /^History verified from \w+ \d+, \d{4}\. What came before was compacted on the relay before this device joined: it was read from a signed checkpoint/,
  )
  await screenshots(b, 'e2e-members-history-verified')
  await list.getByRole('button', { name: 'Close', exact: true }).first().click()
  // The checkpoints verified and the author chains continue across the drop: no alert says otherwise.
  const alerts = (await call(sam, 'app.Workspaces.SecurityAlerts', ws)).filter((x) => /^retention\/|^relay\//.test(x.code))
  assert.deepEqual(alerts, [])

  // Dana verified the whole history herself: her list says nothing of it.
  const own = await members(a)
  assert.equal(await own.getByRole('note').count(), 0)
})
