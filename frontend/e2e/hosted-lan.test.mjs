// Issue 15, "Host on this computer" with "Let computers on my network
// join", through the real UI: the relay inside Dana's app listens beyond
// loopback; the invite dialog shows the address to give teammates (this
// machine's own network address, not 127.0.0.1), and a second app joins
// with the link from that dialog, so it reaches the relay by that address.
// The address is one of this machine's interfaces: no traffic leaves it.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import os from 'node:os'
import { fixture, screenshot, call, confirmPhrase, openCreateForm } from './harness.mjs'

const slow = 90000
// The first non-loopback IPv4 address, as the app picks it (hostrelay.LANAddress).
const lanIP = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.'))?.address

const fx = fixture()
let dana, sam, browser
before(async () => {
  if (!lanIP) return
  dana = await fx.app()
  sam = await fx.app()
  browser = await fx.browser()
})

test(
  'a LAN-hosted workspace shows its network address, and a second app joins by it',
  { timeout: 300000, skip: !lanIP && 'no non-loopback IPv4 address' },
  async () => {
    const a = await openCreateForm(browser, dana)
    await a.getByRole('radio', { name: 'Host on this computer' }).check()
    await a.getByRole('checkbox', { name: 'Let computers on my network join' }).check()
    await a.getByText('invite links carry this computer’s network address', { exact: false }).waitFor()
    await a.getByRole('button', { name: 'Create workspace' }).click()
    await confirmPhrase(a, { timeout: slow })
    await a.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
    await a.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: slow })
    await a.getByLabel('Message', { exact: true }).fill('hello over the network')
    await a.keyboard.press('Enter')
    await a.getByRole('log', { name: 'Messages' }).getByText('hello over the network').waitFor({ timeout: slow })

    await a.getByRole('button', { name: 'Invite people' }).click()
    const dlg = a.getByRole('dialog', { name: 'Invite people' })
    await dlg.getByRole('button', { name: 'Create link' }).click()
    const link = await dlg.getByLabel('Invite link').inputValue({ timeout: slow })
    const shown = await dlg.getByTestId('invite-relay').textContent()
    assert.match(shown, new RegExp(`^ws://${lanIP.replaceAll('.', '\\.')}:\\d+/v1/ws$`), 'the shown address is this machine’s network address')
    assert.ok(link.includes(encodeURIComponent(shown)), 'the link carries the shown address')
    await screenshot(a, 'hosted-lan-invite.png')

    const b = await browser.newPage()
    b.setDefaultTimeout(30000)
    await b.goto(sam.url)
    await b.getByRole('button', { name: 'Join with an invite' }).click()
    await b.getByLabel('Invite link').fill(link)
    await b.getByLabel('Your name').fill('Sam')
    await b.getByRole('button', { name: 'Join', exact: true }).click()
    await confirmPhrase(b, { timeout: slow })
    await b.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout: slow })
    await b.getByRole('log', { name: 'Messages' }).getByText('hello over the network').waitFor({ timeout: slow })
    const [w] = await call(sam, 'app.Workspaces.List')
    assert.equal(w.relay, shown, 'the second app dials the shown address')
    await screenshot(b, 'hosted-lan-joined.png')
  },
)
