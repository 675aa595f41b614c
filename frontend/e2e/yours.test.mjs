// Issue 17 through the real UI, against the e2e build and a real relay:
// what is yours to change. Your display name (item 3's rename control) and
// your messages (item 10's edit and delete), seen by the other member; an
// invite revoked in the invite list (item 5) no longer joins; a tampered
// link is refused plainly, leaves nothing, and the right one then joins.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { call, confirmPhrase, screenshot, screenshots, sizes, startPair, twoMembers, fixture } from './harness.mjs'

const fx = fixture()

let pair, browser, a, b, ws

before(async () => {
  pair = await startPair(fx)
  ;({ browser } = pair)
})

const slow = 90000

test('Dana creates, Sam joins', { timeout: 240000 }, async () => {
  ;({ a, b, ws } = await twoMembers(pair))
})

test('rename: Dana changes her name in the sidebar; a bad one is refused plainly; Sam sees the new one', { timeout: 180000 }, async () => {
  assert.ok(ws, 'the first test set up the workspace')
  await a.getByLabel('Message', { exact: true }).fill('a message before the rename')
  await a.keyboard.press('Enter')
  const seen = b.getByRole('log', { name: 'Messages' }).locator('li.message', { hasText: 'a message before the rename' })
  await seen.locator('.author', { hasText: /^Dana$/ }).waitFor({ timeout: slow })

  await a.getByRole('button', { name: 'Your name: Dana. Change it' }).click()
  const dlg = a.getByRole('dialog', { name: 'Your name' })
  const field = dlg.getByLabel('Your name in Acme')
  assert.equal(await field.inputValue(), 'Dana')
  // Too long: a stable code and one plain sentence; nothing changes, focus stays in the field.
  await field.fill('D'.repeat(81))
  await dlg.getByRole('button', { name: 'Save' }).click()
  const alert = dlg.getByRole('alert')
  await alert.waitFor()
  assert.match(await alert.textContent(), /too long.*bad_request\/name$/)
  assert.equal(await field.evaluate((el) => el === document.activeElement), true, 'focus stays in the field')
  await screenshots(a, 'e2e-yours-rename-refused')
  await field.fill('Dana Scully')
  await dlg.getByRole('button', { name: 'Save' }).click()
  await dlg.waitFor({ state: 'detached' })
  await a.getByRole('button', { name: 'Your name: Dana Scully. Change it' }).waitFor({ timeout: slow })

  // Sam sees the new name on Dana's message, the one sent before the rename included.
  await seen.locator('.author', { hasText: /^Dana Scully$/ }).waitFor({ timeout: slow })
  await screenshots(b, 'e2e-yours-renamed-seen-by-sam')
})

test('edit and delete: Dana edits her message inline and deletes another; Sam sees both', { timeout: 180000 }, async () => {
  assert.ok(ws, 'the first test set up the workspace')
  const alog = a.getByRole('log', { name: 'Messages' })
  const blog = b.getByRole('log', { name: 'Messages' })
  for (const text of ['teh plan for friday', 'a message to take back']) {
    await a.getByLabel('Message', { exact: true }).fill(text)
    await a.keyboard.press('Enter')
    await blog.getByText(text).waitFor({ timeout: slow })
  }
  // Sam is offered no edit on Dana's message.
  const theirs = blog.locator('li.message', { hasText: 'teh plan for friday' })
  await theirs.hover()
  assert.equal(await theirs.getByRole('button', { name: 'Edit message' }).count(), 0, 'no edit on someone else’s message')

  // Edit: hover, Edit, Escape cancels; Edit again, Enter saves.
  const row = alog.locator('li.message', { hasText: 'teh plan for friday' })
  await row.hover()
  await row.getByRole('button', { name: 'Edit message' }).click()
  const field = alog.getByRole('textbox', { name: 'Edit message' })
  assert.equal(await field.inputValue(), 'teh plan for friday')
  await field.fill('this will not be kept')
  await a.keyboard.press('Escape')
  await field.waitFor({ state: 'detached' })
  await row.hover()
  await row.getByRole('button', { name: 'Edit message' }).click()
  await field.fill('the plan for friday')
  await screenshots(a, 'e2e-yours-editing')
  await a.keyboard.press('Enter')
  await alog.locator('li.message', { hasText: 'the plan for friday' }).getByText('(edited)').waitFor({ timeout: slow })

  // Delete, after confirming.
  const gone = alog.locator('li.message', { hasText: 'a message to take back' })
  await gone.hover()
  await gone.getByRole('button', { name: 'Delete message' }).click()
  const ask = gone.getByRole('group', { name: 'Delete this message?' })
  await screenshots(a, 'e2e-yours-delete-confirm')
  await ask.getByRole('button', { name: 'Delete', exact: true }).click()
  await alog.getByText('a message to take back').waitFor({ state: 'detached', timeout: slow })

  // Sam reads the edit, marked, and no longer the deleted message.
  await blog.locator('li.message', { hasText: 'the plan for friday' }).getByText('(edited)').waitFor({ timeout: slow })
  await blog.getByText('a message to take back').waitFor({ state: 'detached', timeout: slow })
  assert.equal(await blog.getByText('teh plan for friday').count(), 0, 'the old text is gone')
  await screenshots(b, 'e2e-yours-edit-delete-seen-by-sam')
})

test('invite revoke: Dana revokes a link in the invite list; the link then fails to join, saying why', { timeout: 240000 }, async () => {
  assert.ok(ws, 'the first test set up the workspace')
  await a.getByRole('button', { name: 'Invite people' }).click()
  const dlg = a.getByRole('dialog', { name: 'Invite people' })
  await dlg.getByRole('button', { name: 'Create link' }).click()
  const link = await dlg.getByLabel('Invite link').inputValue({ timeout: slow })
  assert.ok(link.length > 20, `link: ${link}`)
  const revoke = dlg.getByRole('button', { name: /^Revoke the member link by / })
  await revoke.waitFor({ timeout: slow })
  assert.equal(await revoke.count(), 1, 'one live link')
  await revoke.click()
  // A revoked link leaves the list of live ones.
  await revoke.waitFor({ state: 'detached', timeout: slow })
  await screenshots(a, 'e2e-yours-invite-revoked')
  await dlg.getByRole('button', { name: 'Done' }).click()

  const lee = await fx.app()
  try {
    const c = await browser.newPage()
    c.setDefaultTimeout(20000)
    await c.setViewportSize({ width: 1280, height: 800 })
    await c.goto(lee.url)
    await c.getByRole('button', { name: 'Join with an invite' }).click()
    await c.getByLabel('Invite link').fill(link)
    await c.getByLabel('Your name').fill('Lee')
    await c.getByRole('button', { name: 'Join', exact: true }).click()
    const alert = c.getByRole('alert')
    await alert.waitFor({ timeout: slow })
    console.log(`join with a revoked link: ${await alert.textContent()}`)
    assert.match(await alert.textContent(), /^This invite link has been revoked\. Ask the person who sent it for a new one\. auth\/revoked$/)
    await screenshots(c, 'e2e-yours-revoked-link-refused')
  } finally {
    lee.stop()
  }
})

test(
  'a tampered link is refused plainly at both sizes, leaves nothing on the device, and the right link then joins',
  { timeout: 300000 },
  async () => {
    assert.ok(ws, 'the first test set up the workspace')
    const inv = await call(pair.dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
    // One character of the link's secret changed, as app TestTamperedLinkLeavesNothingAndTheRightLinkWorks does.
    const i = inv.link.indexOf('s=') + 2
    const bad = inv.link.slice(0, i) + (inv.link[i] === 'A' ? 'B' : 'A') + inv.link.slice(i + 1)
    const kim = await fx.app()
    try {
      const c = await browser.newPage()
      c.setDefaultTimeout(20000)
      await c.goto(kim.url)
      await c.getByRole('button', { name: 'Join with an invite' }).click()
      await c.getByLabel('Your name').fill('Kim')
      for (const size of sizes) {
        await c.setViewportSize(size)
        await c.getByLabel('Invite link').fill(bad)
        await c.getByRole('button', { name: 'Join', exact: true }).click()
        const alert = c.getByRole('alert').filter({ hasText: /invite\/refused$/ })
        await alert.waitFor({ timeout: slow })
        console.log(`join with a tampered link at ${size.name}: ${await alert.textContent()}`)
        await c.getByRole('button', { name: 'Join', exact: true, disabled: false }).waitFor({ timeout: slow })
        await screenshot(c, `e2e-yours-tampered-link-${size.name}.png`)
        // No nameless workspace left retrying.
        assert.deepEqual(await call(kim, 'app.Workspaces.List'), [], `nothing on the device after the bad link at ${size.name}`)
      }
      await c.getByLabel('Invite link').fill(inv.link)
      await c.getByRole('button', { name: 'Join', exact: true }).click()
      await confirmPhrase(c)
      await c.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
      await c.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
    } finally {
      kim.stop()
    }
  },
)
