// Issue 12 from the admin's side, against the e2e build of three app
// processes (three people) and a real weald-relay: Dana removes Sam from the
// People list; the dialog says what will happen and what removal cannot do;
// the receipt appears and exports as JSON and a printable page. Sam's window
// says he was removed and does not get what is said after; Lee keeps
// chatting with Dana.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { screenshot, call, confirmPhrase, readyWorkspace, screenshots, fixture } from './harness.mjs'

const fx = fixture()

let relay, dana, sam, lee, browser
const slow = 90000
// Dana's home has a Downloads folder: the export goes there, not into a real home.
const danaHome = mkdtempSync(path.join(tmpdir(), 'weald-e2e-dana-'))
mkdirSync(path.join(danaHome, 'Downloads'))

before(async () => {
  relay = await fx.relay()
  dana = await fx.app({ env: { HOME: danaHome } })
  sam = await fx.app()
  lee = await fx.app()
  browser = await fx.browser()
})

async function join(app, link, name) {
  const p = await browser.newPage()
  p.setDefaultTimeout(20000)
  await p.goto(app.url)
  await p.getByRole('button', { name: 'Join with an invite' }).click()
  await p.getByLabel('Invite link').fill(link)
  await p.getByLabel('Your name').fill(name)
  await p.getByRole('button', { name: 'Join', exact: true }).click()
  await confirmPhrase(p)
  await p.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
  await p.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
  return p
}

async function say(page, text) {
  await page.getByLabel('Message', { exact: true }).fill(text)
  await page.keyboard.press('Enter')
  await page.getByRole('log', { name: 'Messages' }).getByText(text).waitFor({ timeout: slow })
}

const reads = (page, text) => page.getByRole('log', { name: 'Messages' }).getByText(text).waitFor({ timeout: slow })

/** shots takes the screenshots of one step at each window size. */
const shots = (page, name, shown) => screenshots(page, `e2e-removal-${name}`, shown)

test(
  'an admin removes a member from the People list; the receipt appears; the removed person is cut off; the others go on',
  { timeout: 600000 },
  async () => {
    const a = await browser.newPage()
    a.setDefaultTimeout(20000)
    await a.setViewportSize({ width: 1280, height: 800 })
    await a.goto(dana.url)
    const ws = await readyWorkspace(a, relay, { name: 'Acme', you: 'Dana', timeout: slow })
    const scopes = await call(dana, 'app.Workspaces.InviteScopes', ws)
    const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [scopes.find((s) => s.root).group], 24, 2, 'member')
    const s = await join(sam, inv.link, 'Sam')
    const l = await join(lee, inv.link, 'Lee')
    await say(a, 'before the removal')
    await reads(s, 'before the removal')
    await reads(l, 'before the removal')

    // The People list: everyone with role and devices; Dana, the only admin, cannot remove herself.
    await a.getByRole('button', { name: 'People', exact: true }).click()
    const people = a.getByRole('list', { name: 'People' })
    const samRow = people.getByRole('listitem', { name: 'Sam' })
    await samRow.waitFor({ timeout: slow })
    await people.getByRole('listitem', { name: 'Lee' }).waitFor({ timeout: slow })
    const danaRow = people.getByRole('listitem', { name: 'Dana' })
    assert.equal(await danaRow.getByRole('button', { name: /Remove Dana/ }).isDisabled(), true)
    await danaRow.getByText(/You are the only admin\. Promote someone first/).waitFor()
    assert.match(await samRow.textContent(), /Member.*Device [0-9a-f]{8}/)
    // Last seen per device, from what Dana's device saw: Sam named himself when he joined.
    await samRow.getByText(/· last seen [A-Z][a-z]{2} \d{1,2}, \d{4}/).waitFor()
    await shots(a, 'people')

    // Remove: the dialog says what will happen and what removal cannot do, before anything runs.
    await samRow.getByRole('button', { name: 'Remove Sam…' }).click()
    const dlg = a.getByRole('dialog', { name: 'Remove Sam from Acme' })
    const what = dlg.getByRole('list', { name: 'What the removal does' })
    await what.waitFor({ timeout: slow })
    const plan = await what.textContent()
    assert.match(plan, /Sam's 1 device is revoked: the relay disconnects it within seconds/)
    assert.match(plan, /The workspace and every channel they are in get new keys \([1-9]\d* groups?\)/)
    assert.match(plan, /Their recovery phrase stops working/)
    assert.equal(await dlg.getByTestId('removal-limit').textContent(), 'Removal cannot reach what Sam already decrypted onto their own devices.')
    await shots(a, 'dialog')
    await dlg.getByRole('button', { name: 'Remove Sam' }).click()

    // The receipt.
    const receipt = a.getByRole('dialog', { name: 'Removal receipt' }).getByTestId('receipt')
    await receipt.waitFor({ timeout: slow })
    assert.equal(await receipt.getByTestId('receipt-devices').textContent(), '1')
    assert.match(await receipt.getByTestId('receipt-groups').textContent(), /general \(epoch \d+\)/)
    const operation = await receipt.getByTestId('receipt-operation').textContent()
    assert.match(operation, /^[0-9a-f]{64}$/)
    await shots(a, 'receipt')

    // Exported as JSON and as a printable page, in Dana's Downloads folder.
    await receipt.getByRole('button', { name: 'Export (JSON and printable page)' }).click()
    const saved = await receipt.getByTestId('receipt-saved').textContent({ timeout: slow })
    const files = [...saved.matchAll(/(\/\S+?\.(json|html))/g)].map((m) => m[1])
    assert.equal(files.length, 2, saved)
    for (const f of files) assert.equal(path.dirname(f), path.join(danaHome, 'Downloads'))
    const json = JSON.parse(
      readFileSync(
        files.find((f) => f.endsWith('.json')),
        'utf8',
      ),
    )
    assert.equal(json.operation, operation)
    assert.equal(json.devices_revoked, 1)
    const printable = await browser.newPage()
    await printable.goto('file://' + files.find((f) => f.endsWith('.html')))
    await printable.getByRole('heading', { name: 'Removal receipt' }).waitFor()
    assert.match(await printable.textContent('body'), new RegExp(operation))
    console.log(`screenshot: ${await screenshot(printable, 'e2e-removal-printable-page.png')}`)
    await printable.close()
    await receipt.getByRole('button', { name: 'Done' }).click()

    // The People list shows Sam removed and the receipt.
    await samRow.getByText('Removed', { exact: true }).waitFor({ timeout: slow })
    await a
      .getByRole('list', { name: 'Removal receipts' })
      .getByText(/Sam · removed from the workspace/)
      .waitFor({ timeout: slow })

    // Dana and Lee keep chatting; Sam's window says he was removed and never gets it.
    await a.getByRole('button', { name: /^#general/ }).click()
    await say(a, 'after Sam left')
    await reads(l, 'after Sam left')
    await say(l, 'Lee is still here')
    await reads(a, 'Lee is still here')
    const banner = s.locator('[data-state="removed"]')
    await banner.waitFor({ timeout: slow })
    assert.match(await banner.textContent(), /You were removed from Acme by an admin\. This device can no longer read or send new messages here/)
    const samLog = s.getByRole('log', { name: 'Messages' })
    assert.equal(await samLog.getByText('after Sam left').count(), 0, 'Sam does not read what was said after his removal')
    assert.equal(await samLog.getByText('Lee is still here').count(), 0)
    await samLog.getByText('before the removal').waitFor() // what his device already had stays
    await shots(s, 'removed-person')
  },
)
