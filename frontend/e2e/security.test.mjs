// Issue 12, the desktop's Security view, against the e2e build of three app
// processes (Dana, Sam, Lee) and a real weald-relay. Lee joins by Sam's
// invite: Dana's window tells her in a notice, not a red security alert.
// Sam then makes Lee an admin: that stays a red security alert. Dana
// reviews both in the Security view, dismisses the alert (kept as
// acknowledged), and rotates her recovery phrase: the new words are shown
// once and three asked back, as at first run; Sam is told with a notice.
// Sam approves an agent; Dana revokes every certificate his device issued
// from the People list. Lee's phrase is spent on a new device (weald
// recover): Dana approves it from the approval request.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { call, confirmPhrase, readyWorkspace, run, repo, screenshots, fixture } from './harness.mjs'

const fx = fixture()

let relay, dana, sam, lee, browser, weald
const slow = 90000

before(async () => {
  relay = await fx.relay()
  weald = path.join(repo, 'build', 'bin', 'weald')
  await run('go', ['build', '-o', weald, './backend/cmd/weald'], { timeout: 300000 })
  dana = await fx.app()
  sam = await fx.app()
  lee = await fx.app()
  browser = await fx.browser()
})

/** shots takes the screenshots of one step at each window size. */
const shots = (page, name, shown) => screenshots(page, `e2e-security-${name}`, shown)

/** cli runs the weald CLI with its own home (a file keyring) and resolves its JSON output. */
function cli(home, ...args) {
  return new Promise((resolve, reject) => {
    execFile(
      weald,
      ['--home', home, '--json', ...args],
      { timeout: 120000, env: { ...process.env, WEALD_KEYRING: 'file' } },
      (err, stdout, stderr) => (err ? reject(new Error(`weald ${args.join(' ')}: ${err.message}\n${stderr}${stdout}`)) : resolve(JSON.parse(stdout))),
    )
  })
}

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

/** ready waits until app has one ready workspace, as the page would show it. */
async function ready(app) {
  const end = Date.now() + slow
  for (;;) {
    const list = await call(app, 'app.Workspaces.List')
    if (list.length === 1 && list[0].ready) return list[0]
    if (Date.now() > end) throw new Error(`not ready: ${JSON.stringify(list)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

test(
  'a join by another admin’s invite is a notice, a role change a security alert; Dana reviews them and rotates her phrase',
  { timeout: 600000 },
  async () => {
    const a = await browser.newPage()
    a.setDefaultTimeout(30000)
    await a.setViewportSize({ width: 1280, height: 800 })
    await a.goto(dana.url)
    const ws = await readyWorkspace(a, relay, { name: 'Acme', you: 'Dana', timeout: slow })

    // Sam joins as an admin by Dana's invite; Lee joins by Sam's.
    const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'admin')
    await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
    await ready(sam)
    const inv2 = await call(sam, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
    const leeCreated = await call(lee, 'app.Workspaces.Join', inv2.link, 'Lee')
    await ready(lee)

    // Dana's window: a notice, polite and blue, naming both; no red alert.
    const notice = a.getByRole('status').filter({ hasText: "Lee joined, admitted by Sam's invite." })
    await notice.waitFor({ timeout: slow }).catch(async (e) => {
      // What the window showed instead, so that a failure says whether the banner never came or kept other words.
      const shown = await a.getByRole('status').allTextContents()
      throw new Error(`${e.message}\nthe window's status banners: ${JSON.stringify(shown)}`)
    })
    assert.equal((await notice.textContent()).trim(), "Acme: Lee joined, admitted by Sam's invite. Review OK")
    assert.equal(await a.getByRole('alert').filter({ hasText: 'Lee joined' }).count(), 0, 'a join by an admin’s invite raised a red alert')
    await shots(a, 'notice')

    // Sam makes Lee an admin: for Dana that stays a security alert, red, with the Security badge.
    const people = await call(sam, 'app.Workspaces.AdminMembers', ws)
    const leeUser = people.find((p) => p.name === 'Lee').user
    await call(sam, 'app.Workspaces.SetAdmin', ws, leeUser, true)
    const red = a.getByRole('alert').filter({ hasText: 'Sam made Lee an admin.' })
    await red.waitFor({ timeout: slow })
    assert.match(await red.textContent(), /^Security alert in Acme: Sam made Lee an admin\. Review Dismiss$/)
    await a
      .getByRole('button', { name: /^Security/ })
      .getByLabel('1 security alert to review')
      .waitFor()
    await shots(a, 'alert')

    // Review: the Security view lists both, in plain words, with who acted and when.
    await red.getByRole('button', { name: 'Review' }).click()
    await a.getByRole('heading', { name: 'Security of Acme' }).waitFor()
    const fresh = a.getByRole('list', { name: 'New alerts' })
    const joinRow = fresh.getByRole('listitem', { name: "Lee joined, admitted by Sam's invite." })
    const roleRow = fresh.getByRole('listitem', { name: 'Sam made Lee an admin.' })
    assert.match(await joinRow.textContent(), /^Notice Lee joined, admitted by Sam's invite\.By Lee, from device [0-9a-f]{8} · /)
    assert.match(await roleRow.textContent(), /^Security alert Sam made Lee an admin\.By Sam, from device [0-9a-f]{8} · /)
    await shots(a, 'view')

    // Dismiss the alert: it moves to Acknowledged, and the badge goes.
    await roleRow.getByRole('button', { name: 'Dismiss' }).click()
    const acked = a.getByRole('list', { name: 'Acknowledged alerts' }).getByRole('listitem', { name: 'Sam made Lee an admin.' })
    await acked.waitFor()
    assert.match(await acked.textContent(), /Dismissed on /)
    await a
      .getByRole('button', { name: /^Security/ })
      .getByLabel(/security alert/)
      .waitFor({ state: 'detached' })
    const kept = await call(dana, 'app.Workspaces.SecurityAlerts', ws)
    assert.equal(kept.find((x) => x.summary === 'Sam made Lee an admin.').outcome, 'dismissed')

    // Rotate the recovery phrase: asked first, the new words shown once, three asked back.
    await a.getByRole('button', { name: 'Rotate recovery phrase…' }).click()
    await a.getByRole('button', { name: 'Rotate now' }).click()
    await a.getByRole('heading', { name: 'Your new recovery phrase' }).waitFor({ timeout: slow })
    assert.equal(await a.getByRole('list', { name: 'New alerts' }).count(), 0, 'the alerts stay out of the way while the phrase is on screen')
    await shots(a, 'phrase')
    const words = await confirmPhrase(a)
    assert.equal(words.length, 24)
    const done = a.getByRole('status').filter({ hasText: 'Your new recovery phrase is confirmed' })
    await done.waitFor({ timeout: slow })
    assert.match(
      await done.textContent(),
      /^Your new recovery phrase is confirmed and the old one is revoked\. \d+ channels? ha(s|ve) a recovery copy for the new phrase\.$/,
    )
    const st = await call(dana, 'app.Workspaces.RecoveryState', ws)
    assert.deepEqual(st, { unfinished: false, unconfirmed: 0 })

    // Sam is told, as a notice.
    const end = Date.now() + slow
    for (;;) {
      const list = await call(sam, 'app.Workspaces.SecurityAlerts', ws)
      const n = list.find((x) => x.summary.startsWith('Dana replaced their recovery phrase'))
      if (n) {
        assert.equal(n.tone, 'notice')
        break
      }
      assert.ok(Date.now() < end, `Sam was not told of the rotation: ${JSON.stringify(list)}`)
      await new Promise((r) => setTimeout(r, 500))
    }
    await shots(a, 'rotated', done)

    // Sam approves an agent from his device; Dana is told with a notice. From the People list Dana revokes every
    // certificate Sam's device issued: the confirmation names how many, the result names them.
    const botHome = mkdtempSync(path.join(tmpdir(), 'weald-e2e-bot-'))
    const init = await cli(
      botHome,
      '--workspace',
      ws,
      'agent',
      'init',
      '--relay',
      relay.url,
      '--name',
      'ci bot',
      '--scope',
      'general',
      '--expires',
      '8h',
    )
    await call(sam, 'app.Workspaces.ApproveAgent', ws, init.request)
    await until('Dana told of the agent', async () =>
      (await call(dana, 'app.Workspaces.SecurityAlerts', ws)).find((x) => x.tone === 'notice' && /^Sam approved the agent “ci bot”/.test(x.summary)),
    )
    await a.getByRole('button', { name: 'People', exact: true }).click()
    const samRow = a.getByRole('listitem', { name: 'Sam' })
    const revokeAll = samRow.getByRole('button', { name: 'Revoke all certificates issued by this device (1)' })
    await revokeAll.waitFor({ timeout: slow })
    await revokeAll.click()
    const dlg = a.getByRole('dialog', { name: /^Revoke the agents of device [0-9a-f]{8}$/ })
    assert.match(
      await dlg.textContent(),
      /Revoke all certificates issued by Sam's device [0-9a-f]{8}: 1 agent, in one change of the membership log\./,
    )
    await shots(a, 'agents-confirm')
    await dlg.getByRole('button', { name: 'Revoke 1 agent' }).click()
    await dlg.getByRole('status').getByText('Revoked 1 agent: ci bot.').waitFor({ timeout: slow })
    await shots(a, 'agents-revoked')
    await dlg.getByRole('button', { name: 'Close', exact: true }).last().click()
    await samRow.getByRole('button', { name: /^Revoke all certificates/ }).waitFor({ state: 'detached' })

    // Somebody spends Lee's recovery phrase on a new device: for Dana, an approval request, red, with Approve.
    const leeNew = mkdtempSync(path.join(tmpdir(), 'weald-e2e-leenew-'))
    const phraseFile = path.join(leeNew, 'phrase.txt')
    writeFileSync(phraseFile, leeCreated.recoveryPhrase.join(' '))
    const rec = await cli(leeNew, 'recover', '--phrase-file', phraseFile, '--relay', relay.url, '--workspace', ws)
    const device = rec.recovery.device
    const req = await until('Dana’s approval request', async () =>
      (await call(dana, 'app.Workspaces.SecurityAlerts', ws)).find((x) => x.code === 'device/recovered' && x.approve),
    )
    assert.equal(req.tone, 'alert')
    assert.equal(`dev_${req.device}`, device, 'the request names the recovered device')
    await a.getByRole('button', { name: /^Security/ }).click()
    const reqRow = a.getByRole('list', { name: 'New alerts' }).getByRole('listitem', { name: req.summary })
    assert.match(
      await reqRow.textContent(),
      /^Security alert Lee's recovery phrase was used to add device dev_[0-9a-f]{8} for Lee; it is on probation until an admin approves it\./,
    )
    await shots(a, 'request', reqRow)
    await reqRow.getByRole('button', { name: /^Approve device [0-9a-f]{8}…$/ }).click()
    const approve = a.getByRole('dialog', { name: /^Approve Lee's device [0-9a-f]{8}$/ })
    assert.match(await approve.textContent(), /Approve it only if Lee told you they recovered a device/)
    await approve.getByRole('button', { name: 'Approve device' }).click()
    await approve
      .getByRole('status')
      .getByText(/^Device [0-9a-f]{8} is approved: its probation is over\.$/)
      .waitFor({ timeout: slow })
    await approve.getByRole('button', { name: 'Close', exact: true }).last().click()
    const approved = a.getByRole('list', { name: 'Acknowledged alerts' }).getByRole('listitem', { name: req.summary })
    await approved.waitFor({ timeout: slow })
    assert.match(await approved.textContent(), /Device approved on /)
    const after = await call(dana, 'app.Workspaces.AdminMembers', ws)
    const leeDev = after.find((p) => p.name === 'Lee').devices.find((d) => d.device === req.device)
    assert.equal(leeDev.probation, false)
    await shots(a, 'approved', approved)
  },
)
