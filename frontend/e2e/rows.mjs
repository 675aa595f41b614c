// Helpers for the message list's rows in the browser tests (issue 17 item 2):
// that no two rows overlap, and serving another build of the frontend
// against the same app so that a benchmark compares two builds in one run.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import assert from 'node:assert/strict'

/**
 * rowsOverlap returns, for the rows of the message list in the DOM, every
 * pair whose boxes overlap and every row whose content reaches outside its
 * own box (by more than half a pixel), as text; [] when the rows are apart.
 */
export function rowsOverlap(page) {
  return page.evaluate(() => {
    const out = []
    const name = (li) => `${li.dataset.index}:${li.className}:"${(li.textContent ?? '').slice(0, 40)}"`
    const lis = [...document.querySelectorAll('ol.message-list.virtual > li')]
      .map((li) => ({ li, r: li.getBoundingClientRect() }))
      .sort((a, b) => a.r.top - b.r.top)
    for (let i = 1; i < lis.length; i++) {
      const a = lis[i - 1]
      const b = lis[i]
      if (a.r.bottom > b.r.top + 0.5) out.push(`${name(a.li)} ends at ${a.r.bottom} below the start of ${name(b.li)} at ${b.r.top}`)
    }
    for (const { li, r } of lis) {
      for (const c of li.querySelectorAll('*')) {
        const cr = c.getBoundingClientRect()
        if (cr.height === 0 || getComputedStyle(c).position === 'absolute') continue
        if (cr.top < r.top - 0.5 || cr.bottom > r.bottom + 0.5)
          out.push(`${name(li)}: a ${c.tagName.toLowerCase()} reaches outside it (${cr.top}–${cr.bottom} in ${r.top}–${r.bottom})`)
      }
    }
    return out
  })
}

/**
 * assertRowsApart waits up to two seconds for the rows to settle (a row
 * measured in the frame after it is drawn) and fails with the overlaps if
 * they do not come apart.
 */
export async function assertRowsApart(page, where) {
  const deadline = Date.now() + 2000
  let found = await rowsOverlap(page)
  while (found.length > 0 && Date.now() < deadline) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    found = await rowsOverlap(page)
  }
  assert.deepEqual(found, [], `rows overlap ${where}`)
}

/**
 * serveFrontend makes page load the frontend from dir (a `vite build`
 * output) instead of the one built into the app, the shim's script
 * included as the app includes it; the app's calls and events go through.
 */
export async function serveFrontend(page, app, dir) {
  const types = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.svg': 'image/svg+xml', '.png': 'image/png' }
  await page.route(`${app.url}/**`, async (route) => {
    const p = new URL(route.request().url()).pathname
    if (p.startsWith('/__weald/')) return route.continue()
    const rel = p === '/' ? 'index.html' : p.slice(1)
    const file = path.join(dir, rel)
    if (!file.startsWith(path.resolve(dir)) || !existsSync(file)) return route.continue()
    let body = readFileSync(file)
    if (rel === 'index.html') body = Buffer.from(String(body).replace('<head>', '<head><script src="/__weald/shim.js"></script>'))
    return route.fulfill({ body, contentType: types[path.extname(file)] ?? 'application/octet-stream' })
  })
}
