// Agents by delegation through the desktop UI against a real relay: Dana
// creates a workspace in the app; an agent process (the weald CLI) makes its
// key and request; Dana pastes it into the Agents dialog, reads the approval
// sheet (name, fingerprint, channels with lock states, expiry) and approves;
// the agent connects, is added by Dana's app, reads #general and posts, and
// Dana sees its message under "ci bot (agent of Dana)" (spec/channels.md
// "Group policy"; docs/protocol/agents.md).
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { screenshot, run, repo, fixture } from './harness.mjs'

const fx = fixture()

let relay, dana, browser, weald
const botHome = mkdtempSync(path.join(tmpdir(), 'weald-e2e-bot-'))

before(async () => {
  relay = await fx.relay()
  weald = path.join(repo, 'build', 'bin', 'weald')
  await run('go', ['build', '-o', weald, './backend/cmd/weald'], { timeout: 300000 })
  dana = await fx.app()
  browser = await fx.browser()
})

const slow = 90000

/** bot runs the weald CLI as the agent (its own home, a file keyring) and resolves its JSON output. */
function bot(...args) {
  return new Promise((resolve, reject) => {
    execFile(
      weald,
      ['--home', botHome, '--json', ...args],
      { timeout: 60000, env: { ...process.env, WEALD_KEYRING: 'file' } },
      (err, stdout, stderr) => (err ? reject(new Error(`weald ${args.join(' ')}: ${err.message}\n${stderr}${stdout}`)) : resolve(JSON.parse(stdout))),
    )
  })
}

/** eventually retries f (a bot command) until it resolves, for up to 60 s. */
async function eventually(f) {
  const end = Date.now() + 60000
  for (;;) {
    try {
      return await f()
    } catch (e) {
      if (Date.now() > end) throw e
      await new Promise((r) => setTimeout(r, 1000))
    }
  }
}

async function confirmPhrase(page) {
  const phrase = page.getByRole('list', { name: 'Recovery phrase' })
  await phrase.waitFor({ timeout: slow })
  const words = await phrase.getByRole('listitem').allTextContents()
  await page.getByRole('button', { name: 'I have written them down' }).click()
  for (const input of await page.getByLabel(/^Word \d+$/).all()) {
    const n = Number((await input.getAttribute('id')).slice('word-'.length))
    await input.fill(words[n])
  }
  await page.getByRole('button', { name: 'Confirm' }).click()
}

test('an agent approved in the app reads and posts in its channel', { timeout: 360000 }, async () => {
  const a = await browser.newPage()
  a.setDefaultTimeout(20000)
  await a.goto(dana.url)
  await a.getByRole('button', { name: 'Create a workspace' }).click()
  await a.getByLabel('Workspace name').fill('Acme')
  await a.getByLabel('Your name').fill('Dana')
  await a.getByLabel('Relay address').fill(relay.url)
  await a.getByRole('button', { name: 'Create workspace' }).click()
  await confirmPhrase(a)
  const cmd = await a.getByTestId('provision-command').textContent({ timeout: slow })
  const m = /-workspace ([0-9a-f]{64}) -genesis ([0-9a-f]{64})/.exec(cmd)
  assert.ok(m, `provision command: ${cmd}`)
  await relay.provision(m[1], m[2])
  await a.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })

  // The agent's side.
  const init = await bot('--workspace', m[1], 'agent', 'init', '--relay', relay.url, '--name', 'ci bot', '--scope', 'general', '--expires', '8h')
  assert.match(init.request, /^weald-agent-request:/)

  // The approval sheet.
  await a.getByRole('button', { name: 'Agents' }).click()
  const dlg = a.getByRole('dialog', { name: 'Agents' })
  await dlg.getByText('No agents in this workspace.').waitFor()
  await dlg.getByLabel("An agent's request").fill(init.request)
  await dlg.getByRole('button', { name: 'Review request' }).click()
  const sheet = a.getByRole('dialog', { name: 'Approve an agent' })
  await sheet.getByText('ci bot', { exact: true }).waitFor()
  await sheet.getByText(init.fingerprint, { exact: true }).waitFor()
  assert.match(
    await sheet.getByRole('list', { name: 'Channels in scope' }).textContent(),
    /#general · Anyone in the workspace can join · Joiners see the history/,
  )
  console.log(`screenshot: ${await screenshot(a, 'e2e-agent-approval-sheet.png')}`)
  await sheet.getByRole('button', { name: 'Approve' }).click()
  await a.getByRole('dialog', { name: 'Agents' }).getByRole('status').getByText('Approved ci bot.').waitFor({ timeout: slow })
  assert.match(await a.getByRole('list', { name: 'Agents' }).textContent(), /ci bot · agent of Dana · #activity, #general · until/)
  console.log(`screenshot: ${await screenshot(a, 'e2e-agent-list.png')}`)
  await a.keyboard.press('Escape')

  // The agent connects (key packages); Dana's app adds it by itself; the agent reads and posts.
  await bot('sync')
  await a.getByLabel('Message', { exact: true }).fill('hello bot')
  await a.keyboard.press('Enter')
  await a.getByText('Sending…').waitFor({ state: 'detached', timeout: slow })
  const read = await eventually(async () => {
    await bot('sync')
    const r = await bot('read', 'general')
    if (!r.messages.some((x) => x.text === 'hello bot')) {
      // What the agent holds, so that a failure says whether it was never added or added and not reading.
      const st = await bot('status').catch((e) => e.message)
      throw new Error(`the agent reads ${JSON.stringify(r.messages)}; its status: ${JSON.stringify(st)}`)
    }
    return r
  })
  assert.ok(read.messages.length >= 1)
  await bot('send', 'general', 'bot reporting')
  const log = a.getByRole('log', { name: 'Messages' })
  await log.getByText('bot reporting').waitFor({ timeout: slow })
  await log.getByText('ci bot (agent of Dana)').first().waitFor({ timeout: slow })
  console.log(`screenshot: ${await screenshot(a, 'e2e-agent-posted.png')}`)
})
