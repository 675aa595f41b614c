// Shared harness for the browser tests: starts the e2e build of the app (the
// real Go methods behind a JSON shim) and Debian's Chromium through
// playwright-core. Every wait has a deadline.
import { spawn } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { after } from 'node:test'
import { chromium } from 'playwright-core'

const here = path.dirname(fileURLToPath(import.meta.url))
export const repo = path.resolve(here, '..', '..')
export const artifacts = process.env.WEALD_ARTIFACTS ?? path.join(repo, 'test-artifacts')

/** startApp runs build/bin/weald-e2e with a fresh data directory and resolves its URL; env adds to its environment. */
export async function startApp({ home, env = {} } = {}) {
  const bin = process.env.WEALD_E2E_BIN ?? path.join(repo, 'build', 'bin', 'weald-e2e')
  home ??= mkdtempSync(path.join(tmpdir(), 'weald-e2e-home-'))
  const proc = spawn(bin, ['--listen', '127.0.0.1:0'], {
    env: { ...process.env, WEALD_HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  proc.stderr.on('data', (d) => (log += d))
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`weald-e2e did not start within 15 s; stderr:\n${log}`)), 15000)
    let out = ''
    proc.stdout.on('data', (d) => {
      out += d
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    proc.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`weald-e2e exited with ${code} (is ${bin} built? make test builds it); stderr:\n${log}`))
    })
  })
  return { kind: 'app', url, home, proc, log: () => log, stop: () => proc.kill('SIGTERM') }
}

/**
 * launchBrowser starts /usr/bin/chromium headless with a fresh profile
 * (playwright passes it as --user-data-dir) and returns its browser context.
 * Its newPage opens a window of its own, as each app has: tabs of one window
 * that are not in front draw one frame a second, so every action on such a
 * page (Playwright waits two frames for an element to be stable) took 2 s.
 */
export async function launchBrowser() {
  const profile = mkdtempSync(path.join(tmpdir(), 'weald-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.WEALD_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    timeout: 30000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    viewport: { width: 1200, height: 780 },
  })
  const cdp = await context.browser().newBrowserCDPSession()
  let opening = Promise.resolve()
  context.newPage = () => {
    // One at a time, so that the next page event is this window's.
    const open = opening.then(async () => {
      const [page] = await Promise.all([context.waitForEvent('page'), cdp.send('Target.createTarget', { url: 'about:blank', newWindow: true })])
      return page
    })
    opening = open.catch(() => {})
    return open
  }
  return context
}

/**
 * fixture registers the test file's after hook and returns starters: every relay, app and browser started through
 * them, or handed to track, is stopped by that hook, the newest first, whatever failed on the way (a test that
 * fails halfway leaves no process behind).
 */
export function fixture() {
  const running = []
  const track = (thing) => {
    running.push(thing)
    return thing
  }
  after(async () => {
    for (const thing of [...running].reverse()) await (thing.close ? thing.close() : thing.stop())
    // Each app's and relay's own log, for a story that failed in CI.
    const dir = path.join(artifacts, 'logs', 'e2e')
    mkdirSync(dir, { recursive: true })
    const story = path.basename(process.argv[1] ?? 'story', '.mjs')
    running.forEach((thing, i) => {
      if (thing.log) writeFileSync(path.join(dir, `${story}-${i}-${thing.kind}.log`), thing.log())
    })
  })
  return {
    track,
    /** relay starts a real weald-relay (startRelay's args and options). */
    relay: async (args, opts) => track(await startRelay(await buildRelay(), args, opts)),
    /** app starts the e2e build of the app (startApp's options). */
    app: async (opts) => track(await startApp(opts)),
    browser: async () => track(await launchBrowser()),
  }
}

export async function screenshot(page, name) {
  mkdirSync(artifacts, { recursive: true })
  const file = path.join(artifacts, name)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

/** run executes a command with a deadline and resolves its stdout. */
export function run(cmd, args, { timeout = 180000, cwd = repo } = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => (out += d))
    p.stderr.on('data', (d) => (err += d))
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`${cmd} ${args.join(' ')} did not finish within ${timeout / 1000} s`))
    }, timeout)
    p.on('exit', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve(out)
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${err}${out}`))
    })
  })
}

/**
 * buildRelay builds backend/cmd/weald-relay into build/bin (go build caches: fast when nothing changed),
 * or resolves WEALD_RELAY_BIN when set: .ci/test.sh builds the relay once for the stories it runs side by side.
 */
export async function buildRelay() {
  if (process.env.WEALD_RELAY_BIN) return process.env.WEALD_RELAY_BIN
  const bin = path.join(repo, 'build', 'bin', 'weald-relay')
  await run('go', ['build', '-o', bin, './backend/cmd/weald-relay'], { timeout: 300000 })
  return bin
}

/**
 * startRelay runs a real weald-relay on a free loopback port with its own SQLite data directory; args add serving
 * flags; dataDir and listen start it again on the data and address of one stopped (down).
 */
export async function startRelay(bin, args = [], { dataDir = mkdtempSync(path.join(tmpdir(), 'weald-relay-')), listen = '127.0.0.1:0' } = {}) {
  const proc = spawn(bin, ['-listen', listen, '-data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((resolve) => proc.once('exit', resolve))
  let log = ''
  proc.stderr.on('data', (d) => (log += d))
  const addr = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`weald-relay did not start within 20 s:\n${log}`)), 20000)
    let out = ''
    proc.stdout.on('data', (d) => {
      out += d
      log += d
      const m = /listening on (127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    proc.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`weald-relay exited with ${code}:\n${log}`))
    })
  })
  return {
    kind: 'relay',
    addr,
    url: `ws://${addr}/v1/ws`,
    dataDir,
    log: () => log,
    /** provision is the operator's step: record a workspace and its genesis key. */
    provision: (workspace, genesis) =>
      run(bin, ['provision', '-workspace', workspace, '-genesis', genesis, '-data-dir', dataDir], { timeout: 30000 }),
    /** tokenLink is the operator's `weald-relay token create`: a relay link carrying this relay's address and a token. */
    tokenLink: async (uses = 1) =>
      (await run(bin, ['token', 'create', '-uses', String(uses), '-relay', `ws://${addr}`, '-data-dir', dataDir], { timeout: 30000 })).trim(),
    stop: () => proc.kill('SIGTERM'),
    /** down stops the relay and waits for it to exit; up() starts it again on the same address and data (a new relay object). */
    down: async () => {
      proc.kill('SIGTERM')
      await exited
      return { up: () => startRelay(bin, args, { dataDir, listen: addr }) }
    },
  }
}

/** The two window sizes the UI is tested at (issue 17). */
export const sizes = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '800x600', width: 800, height: 600 },
]

/** call invokes a bound Go method of a running e2e app, as the page does, and resolves its result. */
export async function call(app, method, ...args) {
  const r = await fetch(`${app.url}/__weald/call`, { method: 'POST', body: JSON.stringify({ method, args }) })
  const body = await r.json()
  if (body.error) throw new Error(typeof body.error === 'string' ? body.error : JSON.stringify(body.error))
  return body.result
}

/**
 * confirmPhrase reads the recovery phrase shown once and types three of its
 * words back, as a new user does; it resolves the 24 words.
 */
export async function confirmPhrase(page, { timeout = 90000 } = {}) {
  const phrase = page.getByRole('list', { name: 'Recovery phrase' })
  await phrase.waitFor({ timeout })
  const words = await phrase.getByRole('listitem').allTextContents()
  await page.getByRole('button', { name: 'I have written them down' }).click()
  for (const input of await page.getByLabel(/^Word \d+$/).all()) {
    const n = Number((await input.getAttribute('id')).slice('word-'.length))
    await input.fill(words[n])
  }
  await page.getByRole('button', { name: 'Confirm' }).click()
  return words
}

/** openCreateForm opens app's first run on a new page and fills the create form's two names; it resolves the page. */
export async function openCreateForm(browser, app, { name = 'Acme', you = 'Dana' } = {}) {
  const page = await browser.newPage()
  page.setDefaultTimeout(30000)
  await page.goto(app.url)
  await page.getByRole('button', { name: 'Create a workspace' }).click()
  await page.getByLabel('Workspace name').fill(name)
  await page.getByLabel('Your name').fill(you)
  return page
}

/**
 * readyWorkspace creates a workspace through the UI on page, has the relay's
 * operator provision it, and waits for #general with Send enabled; it
 * resolves the workspace id.
 */
export async function readyWorkspace(page, relay, { name = 'Acme', you = 'Dana', timeout = 90000 } = {}) {
  await page.getByRole('button', { name: 'Create a workspace' }).click()
  await page.getByLabel('Workspace name').fill(name)
  await page.getByLabel('Your name').fill(you)
  await page.getByLabel('Relay address').fill(relay.url)
  await page.getByRole('button', { name: 'Create workspace' }).click()
  await confirmPhrase(page, { timeout })
  const cmd = await page.getByTestId('provision-command').textContent({ timeout })
  const m = /-workspace ([0-9a-f]{64}) -genesis ([0-9a-f]{64})/.exec(cmd)
  if (!m) throw new Error(`no provision command in ${cmd}`)
  await relay.provision(m[1], m[2])
  await page.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout })
  await page.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout })
  return m[1]
}

/** inViewport says whether locator's box lies wholly inside the page's window. */
export async function inViewport(page, locator) {
  const box = await locator.boundingBox()
  const vp = page.viewportSize()
  return !!box && box.y >= 0 && box.x >= 0 && box.y + box.height <= vp.height + 0.5 && box.x + box.width <= vp.width + 0.5
}

/**
 * settlesInViewport polls until locator's box lies wholly inside the window (every 100 ms, up to timeout ms) and
 * says whether it did: a virtual list measures a new row, and swaps a pending row for the sent one, over a few
 * frames, so one look in the middle of that says nothing about where the row ends up.
 */
export async function settlesInViewport(page, locator, timeout = 10000) {
  const end = Date.now() + timeout
  for (let i = 0; i < 1000 && Date.now() < end; i++) {
    if (await inViewport(page, locator)) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return inViewport(page, locator)
}

/**
 * startPair starts, through the file's fixture fx, what a two-person story needs: a real relay, Dana's and Sam's apps
 * and a browser.
 */
export async function startPair(fx) {
  return { relay: await fx.relay(), dana: await fx.app(), sam: await fx.app(), browser: await fx.browser() }
}

/**
 * twoMembers: Dana creates a workspace through the UI (provisioned by the relay's operator), invites Sam with a
 * link he joins as "Sam", and both pages end on #general ready to send. Resolves { a, b, ws }: Dana's and Sam's pages
 * and the workspace id.
 */
export async function twoMembers({ relay, dana, sam, browser }, { size = sizes[0], timeout = 90000 } = {}) {
  const open = async (app) => {
    const page = await browser.newPage()
    page.setDefaultTimeout(20000)
    await page.setViewportSize({ width: size.width, height: size.height })
    await page.goto(app.url)
    return page
  }
  const a = await open(dana)
  const ws = await readyWorkspace(a, relay)
  const inv = await call(dana, 'app.Workspaces.CreateInvite', ws, [], 24, 1, 'member')
  await call(sam, 'app.Workspaces.Join', inv.link, 'Sam')
  const b = await open(sam)
  await b.getByRole('heading', { level: 1, name: '#general' }).waitFor({ timeout })
  await b.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout })
  return { a, b, ws }
}

/**
 * screenshots takes `${name}-${size}.png` of page at each of sizes (what is shown, if given, scrolled into view as a
 * reader would), logs each path, then leaves the page at the first size.
 */
export async function screenshots(page, name, shown) {
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height })
    if (shown) await shown.scrollIntoViewIfNeeded()
    console.log(`screenshot: ${await screenshot(page, `${name}-${size.name}.png`)}`)
  }
  await page.setViewportSize({ width: sizes[0].width, height: sizes[0].height })
}
