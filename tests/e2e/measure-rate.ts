/**
 * Measures how many ingest requests a page with the SDK makes per minute (README numbers):
 *   ./node_modules/.bin/bun tests/e2e/measure-rate.ts [seconds]
 * Two scripted 60 s visits to /demo in Chromium: a "typical" one (bursts of pointer movement,
 * typing, scrolling, pauses) and a worst case (the pointer never stops, ~60 moves/s). Not a test:
 * it prints numbers, it asserts nothing.
 */
import type { Page } from 'playwright-core'
import { demoSessionId, findChromium, launchChromium, startServer } from './support'

const seconds = Number(process.argv[2] ?? 60)
const chromiumPath = findChromium()
if (!chromiumPath) {
  console.error('Chromium is missing (apt-get install -y chromium)')
  process.exit(1)
}

async function wiggle(page: Page, ms: number, phase: number) {
  const end = Date.now() + ms
  let i = 0
  while (Date.now() < end) {
    i++
    const x = 400 + 250 * Math.sin((i + phase) / 23) + 30 * Math.sin(i / 5)
    const y = 400 + 180 * Math.cos((i + phase) / 31)
    await page.mouse.move(x, y)
    await page.waitForTimeout(16)
  }
}

async function typical(page: Page, until: number) {
  let round = 0
  while (Date.now() < until) {
    round++
    await wiggle(page, 1500, round * 40)
    await page.waitForTimeout(1000)
    await page.click('#demo-name')
    await page.keyboard.type('hello there ', { delay: 110 })
    await page.waitForTimeout(1500)
    await page.mouse.move(500, 560, { steps: 8 })
    for (let k = 0; k < 4; k++) {
      await page.mouse.wheel(0, 60 + 40 * k)
      await page.waitForTimeout(180)
    }
    await page.waitForTimeout(2000)
  }
}

async function visit(name: string, script: (page: Page, until: number) => Promise<void>) {
  const server = await startServer()
  const browser = await launchChromium(chromiumPath!)
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    await page.goto(`${server.url}/demo`)
    const sessionId = await demoSessionId(page)
    const start = server.requests.length
    const began = Date.now()
    await script(page, began + seconds * 1000)
    const during = server.requests.slice(start).filter((r) => r.path === '/v1/ingest').length
    const elapsed = (Date.now() - began) / 1000
    const before = server.requests.length
    await page.goto('about:blank')
    await Bun.sleep(1000)
    const leaving = server.requests.slice(before).filter((r) => r.path === '/v1/ingest').length
    const [row] = await server.deps.db.sql<{ signal_count: number; batch_count: number }[]>`
      select signal_count, batch_count from sessions where org_id = ${server.demo.org_id} and session_id = ${sessionId}`
    const perMin = (during / elapsed) * 60
    console.log(
      `${name.padEnd(10)} ${elapsed.toFixed(1)} s: ${during} ingest requests while on the page (${perMin.toFixed(1)}/min), ` +
        `+${leaving} beacon on leaving; ${row?.signal_count ?? 0} signals in ${row?.batch_count ?? 0} batches ` +
        `(${((row?.signal_count ?? 0) / elapsed).toFixed(1)} events/s)`
    )
  } finally {
    await browser.close()
    await server.close()
  }
}

await visit('typical', typical)
await visit('worst', (page, until) => wiggle(page, until - Date.now(), 0))
await visit('idle', (page, until) => page.waitForTimeout(until - Date.now()))
