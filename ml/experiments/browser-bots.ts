// Bot tools driven in a real browser, judged by the real service: the generator families of
// ml/generators play a library's points the way we assume Chrome and CDP deliver them; here the
// same libraries (and Playwright's own mouse) move Debian's Chromium on the demo page, the SDK
// records what the page really saw, and GET /v1/session judges it. It measures whether the
// simulated delivery holds, and what the service answers these tools as a customer's site meets
// them. Typing tools (Playwright's pressSequentially, a humanized typing loop) type into the page's
// fields the same way. docs/scoring.md, "Bot tools in a real browser", has the tables.
//   N=20 TOOLS=playwright_steps,ghost_cursor npx bun run ml/experiments/browser-bots.ts
// Needs Chromium (scripts/ci-browser.sh). SAVE=/tmp/dir keeps each session's stored signals; SEED_SALT=train
// draws other visits than the tables' (ml/data/browser/README.md); FROM=k starts at visit k.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Bezier } from 'bezier-js'
import { path as ghostPath } from 'ghost-cursor'
import { createCursor } from 'ghost-cursor-playwright'
import type { Browser, CDPSession, Page } from 'playwright-core'
import type { Signal } from '../../src/scoring/signals'
import { storedBatches } from '../../tests/helpers/stored-signals'
import { type Server, demoSessionId, findChromium, flushSdk, launchChromium, startServer } from '../../tests/e2e/support'
import { EASINGS, type EasingName } from '../generators/humanizer'
import { windMouseNpm } from '../generators/windmouse'
import { createRng, deriveSeed, type Rng } from '../synth/prng'

type Pt = { x: number; y: number }
export type BrowserTool = { name: string; what: string; run(page: Page, rng: Rng): Promise<void> }

/** the page size of every visit, in every browser */
export const VIEWPORT = { width: 1280, height: 720 }
const TARGETS = ['#demo-name', '#demo-notes', '#scroll-area', '#check']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function boxOf(page: Page, selector: string) {
  const b = await page.locator(selector).boundingBox()
  if (!b) throw new Error(`no box for ${selector}`)
  return b
}

/** the targets of one visit: fields and boxes of the demo page, now and then a random spot (hover only) */
async function plan(page: Page, rng: Rng): Promise<{ at: Pt; click: boolean; selector: string | null }[]> {
  const steps: { at: Pt; click: boolean; selector: string | null }[] = []
  for (let i = 0, n = rng.int(5, 8); i < n; i++) {
    if (rng.chance(0.25)) {
      steps.push({ at: { x: rng.uniform(40, 1200), y: rng.uniform(40, 680) }, click: false, selector: null })
      continue
    }
    const selector = rng.pick(TARGETS.slice(0, 3))
    const b = await boxOf(page, selector)
    const at = { x: b.x + b.width * rng.uniform(0.2, 0.8), y: b.y + Math.min(b.height, 120) * rng.uniform(0.2, 0.8) }
    steps.push({ at, click: selector !== '#scroll-area' || rng.chance(0.3), selector })
  }
  return steps
}

const wait = (rng: Rng) => sleep(rng.uniform(250, 1500))

/** at the target: Playwright's press and release (held holdMs), wheel ticks in the scroll box, the script's pause */
async function pressScrollWait(page: Page, rng: Rng, s: { click: boolean; selector: string | null }, holdMs = 0) {
  if (s.click) {
    await page.mouse.down()
    if (holdMs > 0) await sleep(holdMs)
    await page.mouse.up()
  }
  await maybeScroll(page, rng, s.selector)
  await wait(rng)
}

/** wheel ticks over the scroll box, as a script scrolls a region it hovers */
async function maybeScroll(page: Page, rng: Rng, selector: string | null) {
  if (selector !== '#scroll-area' || !rng.chance(0.6)) return
  for (let i = 0, n = rng.int(2, 6); i < n; i++) {
    await page.mouse.wheel(0, 100)
    await sleep(rng.uniform(30, 200))
  }
}

async function cdpMove(cdp: CDPSession, p: Pt & { timestamp?: number }) {
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: p.x, y: p.y, ...(p.timestamp ? { timestamp: p.timestamp } : {}) })
}
async function cdpClick(cdp: CDPSession, p: Pt) {
  await cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: p.x, y: p.y, button: 'left', clickCount: 1 })
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: p.x, y: p.y, button: 'left', clickCount: 1 })
}

const WORDS =
  'the of and to in is you that it was for on are as with they at be this from have or by one had not but what all were when we there can your which said if do will each about how up out them then she many some so these would other into more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know get through back much go good new write our me man too any day same right look think also around another came come work three word must because does part even place well'.split(
    ' '
  )

/** form text: words, a capital to start, now and then a number, a full stop */
function formText(rng: Rng, length: number): string {
  let out = ''
  while (out.length < length) {
    const word = rng.chance(0.04) ? String(rng.int(1, 2030)) : rng.pick(WORDS)
    out += out ? ` ${word}` : word[0]!.toUpperCase() + word.slice(1)
  }
  return `${out}.`
}

/** one to three of the demo page's text fields, each with its text */
function fieldsToType(rng: Rng) {
  return Array.from({ length: rng.int(1, 3) }, () => ({
    selector: rng.pick(['#demo-name', '#demo-notes']),
    text: formText(rng, rng.int(8, 60)),
  }))
}

/** a script's typing loop: each key held a random [hold], then a random [gap]; now and then a neighbouring key and Backspace */
async function typeLoop(page: Page, rng: Rng, text: string, hold: readonly [number, number], gap: readonly [number, number]) {
  const press = async (key: string) => {
    await page.keyboard.down(key)
    await sleep(rng.uniform(hold[0], hold[1]))
    await page.keyboard.up(key)
    await sleep(rng.uniform(gap[0], gap[1]))
  }
  for (const ch of text) {
    if (/[a-z]/.test(ch) && rng.chance(0.04)) {
      await press(String.fromCharCode(97 + ((ch.charCodeAt(0) - 97 + rng.pick([1, 25])) % 26)))
      await press('Backspace')
    }
    await press(ch)
  }
}

/** a humanized typing script's timing for one visit: uniform holds and gaps, as such loops draw them */
function loopTiming(rng: Rng) {
  const h = rng.uniform(10, 80)
  const g = rng.uniform(20, 150)
  return { hold: [h, h + rng.uniform(20, 100)] as const, gap: [g, g + rng.uniform(50, 300)] as const }
}

export const BROWSER_TOOLS: readonly BrowserTool[] = [
  {
    name: 'playwright_steps',
    what: "Playwright's page.mouse.move(x, y, { steps: 5–40 }) to each target, page.mouse.down/up",
    async run(page, rng) {
      const at = { x: rng.uniform(100, 1100), y: rng.uniform(100, 600) }
      await page.mouse.move(at.x, at.y)
      for (const s of await plan(page, rng)) {
        await page.mouse.move(s.at.x, s.at.y, { steps: rng.int(5, 40) })
        await pressScrollWait(page, rng, s)
      }
    },
  },
  {
    name: 'ghost_cursor',
    what: "ghost-cursor@1.4.2's path() (its own points), each point one awaited CDP Input.dispatchMouseEvent as GhostCursor.tracePath sends it; press and release by CDP",
    async run(page, rng) {
      const cdp = await page.context().newCDPSession(page)
      let at = { x: rng.uniform(100, 1100), y: rng.uniform(100, 600) }
      await cdpMove(cdp, at)
      for (const s of await plan(page, rng)) {
        for (const v of ghostPath(at, s.at)) await cdpMove(cdp, v)
        at = s.at
        if (s.click) await cdpClick(cdp, at)
        await maybeScroll(page, rng, s.selector)
        await sleep(rng.uniform(0, 2000))
      }
      await cdp.detach()
    },
  },
  {
    name: 'ghost_cursor_playwright',
    what: "ghost-cursor-playwright@2.1.0's own Cursor on the page: cursor.actions.click({ target }) or move, its defaults",
    async run(page, rng) {
      const cursor = await createCursor(page)
      for (const s of await plan(page, rng)) {
        if (s.click) await cursor.actions.click({ target: s.at, waitBetweenClick: [20, 50] })
        else await cursor.actions.move(s.at)
        await maybeScroll(page, rng, s.selector)
        await wait(rng)
      }
    },
  },
  {
    name: 'windmouse_npm',
    what: "windmouse@1.0.5's points (settings as its README draws them), each awaited page.mouse.move after the step's wait",
    async run(page, rng) {
      let at = { x: Math.round(rng.uniform(100, 1100)), y: Math.round(rng.uniform(100, 600)) }
      await page.mouse.move(at.x, at.y)
      for (const s of await plan(page, rng)) {
        const end = { x: Math.round(s.at.x), y: Math.round(s.at.y) }
        const points = windMouseNpm(() => rng.next(), {
          startX: at.x,
          startY: at.y,
          endX: end.x,
          endY: end.y,
          gravity: rng.int(1, 10),
          wind: rng.int(1, 10),
          minWait: 2,
          maxWait: rng.int(1, 5),
          maxStep: rng.int(1, 3),
          targetArea: rng.int(1, 10),
        })
        let waited = 0
        for (const [x, y, w] of points) {
          if (w > waited) await sleep(w - waited)
          waited = w
          await page.mouse.move(x, y)
        }
        at = end
        await pressScrollWait(page, rng, s)
      }
    },
  },
  {
    name: 'humanizer_bezier',
    what: 'a cubic Bézier (bezier-js) with random control points, an easing over 0.5–2 s, a setTimeout loop sending 1–4 points per 16 ms frame by page.mouse.move',
    async run(page, rng) {
      const easing = EASINGS[rng.pick(Object.keys(EASINGS).filter((n) => n !== 'linear') as EasingName[])]
      const perFrame = rng.int(1, 4)
      let at = { x: rng.uniform(100, 1100), y: rng.uniform(100, 600) }
      await page.mouse.move(at.x, at.y)
      for (const s of await plan(page, rng)) {
        const dx = s.at.x - at.x
        const dy = s.at.y - at.y
        const len = Math.hypot(dx, dy) || 1
        const side = rng.chance(0.5) ? 1 : -1
        const c = (f: number) => ({
          x: at.x + dx * f - (dy / len) * side * rng.uniform(0.05, 0.4) * len,
          y: at.y + dy * f + (dx / len) * side * rng.uniform(0.05, 0.4) * len,
        })
        const curve = new Bezier(at, c(rng.uniform(0.15, 0.45)), c(rng.uniform(0.55, 0.85)), s.at)
        const duration = rng.uniform(500, 2000)
        const start = performance.now()
        for (;;) {
          const u = Math.min(1, (performance.now() - start) / duration)
          for (let i = 0; i < perFrame; i++) {
            const p = curve.get(easing(Math.min(1, u + (i * 16) / perFrame / duration)))
            // kept inside the page: a curve bulging past its edge is refused by Firefox's BiDi
            await page.mouse.move(Math.min(VIEWPORT.width - 1, Math.max(0, p.x)), Math.min(VIEWPORT.height - 1, Math.max(0, p.y)))
          }
          if (u >= 1) break
          await sleep(16)
        }
        at = s.at
        await pressScrollWait(page, rng, s, s.click ? rng.uniform(40, 160) : 0)
      }
    },
  },
  {
    name: 'playwright_click',
    what: "Playwright's locator.click() on each target (one move to the element, then press and release), page.mouse.wheel in the box",
    async run(page, rng) {
      for (const s of await plan(page, rng)) {
        if (s.selector) await page.locator(s.selector).click({ position: { x: 10, y: 10 } })
        else await page.mouse.move(s.at.x, s.at.y)
        await maybeScroll(page, rng, s.selector)
        await wait(rng)
      }
    },
  },
  {
    name: 'playwright_type',
    what: "Playwright's locator.pressSequentially(text, { delay }) (Puppeteer's page.type): the field focused by script, each key down, delay, up; 1–3 fields",
    async run(page, rng) {
      const delay = rng.pick([0, 10, 25, 50, 100, 150])
      for (const f of fieldsToType(rng)) {
        await page.locator(f.selector).pressSequentially(f.text, { delay })
        await wait(rng)
      }
    },
  },
  {
    name: 'typing_loop_keys',
    what: 'a humanized typing loop (keyboard.down, a uniform hold, keyboard.up, a uniform gap; 4 % typos with Backspace), the field focused by script: keys only',
    async run(page, rng) {
      const { hold, gap } = loopTiming(rng)
      for (const f of fieldsToType(rng)) {
        await page.locator(f.selector).focus()
        await typeLoop(page, rng, f.text, hold, gap)
        await wait(rng)
      }
    },
  },
  {
    name: 'typing_loop_cursor',
    what: "ghost-cursor-playwright's Cursor clicks each field, then the humanized typing loop of typing_loop_keys",
    async run(page, rng) {
      const { hold, gap } = loopTiming(rng)
      const cursor = await createCursor(page)
      for (const f of fieldsToType(rng)) {
        const b = await boxOf(page, f.selector)
        const at = { x: b.x + b.width * rng.uniform(0.2, 0.8), y: b.y + Math.min(b.height, 60) * rng.uniform(0.2, 0.8) }
        await cursor.actions.click({ target: at, waitBetweenClick: [20, 50] })
        await sleep(rng.uniform(100, 600))
        await typeLoop(page, rng, f.text, hold, gap)
        await wait(rng)
      }
    },
  },
  {
    name: 'wheel_reader',
    what: 'a reading script: page.mouse.wheel(0, 100) a tick at a time, 80–700 ms apart, now and then a pause of 1–4 s; the pointer never moves, no key',
    async run(page, rng) {
      for (let i = 0, n = rng.int(8, 40); i < n; i++) {
        await page.mouse.wheel(0, rng.chance(0.1) ? -100 : 100)
        await sleep(rng.chance(0.15) ? rng.uniform(1000, 4000) : rng.uniform(80, 700))
      }
    },
  },
]

/**
 * A stand-in for the CDP session the ghost-cursor tool opens, in a browser without CDP: its moves,
 * presses and releases become the page's own awaited mouse calls, as a port of the tool would send them.
 */
export function cdpOverMouse(
  browserName: string,
  mouse: { move(x: number, y: number): Promise<unknown>; down(): Promise<unknown>; up(): Promise<unknown> }
) {
  return {
    async send(method: string, o: { type: string; x: number; y: number }) {
      if (method !== 'Input.dispatchMouseEvent') throw new Error(`no ${method} in ${browserName}`)
      if (o.type === 'mouseMoved') await mouse.move(o.x, o.y)
      else if (o.type === 'mousePressed') await mouse.down()
      else if (o.type === 'mouseReleased') await mouse.up()
    },
    detach: async () => {},
  }
}

/** SEED_SALT draws visits of other seeds (training recordings, ml/data/browser) than the tables' (no salt) */
const SEED_SALT = process.env.SEED_SALT ? `:${process.env.SEED_SALT}` : ''
/** the random stream of a tool's i-th visit: the same visits for every model */
export const visitRng = (name: string, i: number) => createRng(deriveSeed(20261127, `browser:${name}${SEED_SALT}`, i))

export type Judged = { verdict: string; hcs: number; reasons: string[]; signals: number }

/** a fresh page in its own browser context, and how to close that context */
export type OpenPage = () => Promise<{ page: Page; close(): Promise<void> }>

/** Chromium's pages through Playwright, a fresh context (cookies, storage) a visit */
export const chromiumPages =
  (browser: Browser, viewport: { width: number; height: number } | null = VIEWPORT): OpenPage =>
  async () => {
    // null: the page is the window's size (a headed window)
    const context = await browser.newContext({ viewport })
    return { page: await context.newPage(), close: () => context.close() }
  }

/**
 * One visit of the demo page by a tool in a fresh browser context: the SDK's batches flushed, then what
 * GET /v1/session answered (its HTTP status and body) and every signal the service stored.
 */
export async function recordVisit(server: Server, open: OpenPage, tool: BrowserTool, rng: Rng) {
  const { page, close } = await open()
  let sessionId: string
  try {
    await page.goto(`${server.url}/demo`)
    sessionId = await demoSessionId(page)
    await tool.run(page, rng)
    await flushSdk(page, server.demo.public_key)
  } finally {
    await close()
  }
  return judgedVisit(server, sessionId)
}

/** what GET /v1/session answered for a visit's session (its HTTP status and body), and every signal the service stored */
export async function judgedVisit(server: Server, sessionId: string) {
  const res = await fetch(`${server.url}/v1/session/${sessionId}`, { headers: { 'x-api-key': server.demo.secret_key } })
  const result = (await res.json()) as Judged
  const signals: Signal[] = (await storedBatches(server.deps.db.sql, server.demo.org_id, sessionId)).flatMap((b) => b.signals ?? [])
  return { status: res.status, result, signals }
}

/** a tool's visit by name, with the seed the tables were measured with: recordVisit's answer */
export function visitTool(server: Server, open: OpenPage, name: string, seed: number) {
  const tool = BROWSER_TOOLS.find((t) => t.name === name)
  if (!tool) throw new Error(`no browser tool ${name}`)
  return recordVisit(server, open, tool, visitRng(name, seed))
}

/**
 * The experiments' command line: the real service and one browser for every visit, the tools named in
 * TOOLS (default all of `tools`), N visits each (20), SAVE a folder for each visit's signals.
 */
export async function measureFromEnv(tools: readonly BrowserTool[], launch: () => Promise<{ open: OpenPage; close(): Promise<void> }>) {
  const names = process.env.TOOLS?.split(',') ?? tools.map((t) => t.name)
  const server = await startServer()
  const browser = await launch()
  try {
    const chosen = tools.filter((t) => names.includes(t.name))
    await measureTools(server, browser.open, chosen, Number(process.env.N ?? 20), process.env.SAVE)
  } finally {
    await browser.close()
    await server.close()
  }
}

/** each tool's visits judged, with what the page saw of its moves and keys: one table row a tool */
async function measureTools(server: Server, open: OpenPage, tools: readonly BrowserTool[], n: number, save?: string) {
  if (save) mkdirSync(save, { recursive: true })
  for (const tool of tools) {
    const results: Judged[] = []
    const moves = { events: 0, coalesced: 0, gaps: [] as number[] }
    const keys = { presses: 0, holds: [] as number[], flights: [] as number[] }
    // FROM: the first visit's index (to go on after an interrupted run)
    for (let i = Number(process.env.FROM ?? 0); i < n; i++) {
      const { result: judged, signals } = await recordVisit(server, open, tool, visitRng(tool.name, i))
      results.push(judged)
      const mm = signals.filter((s) => s.k === 'mm')
      moves.events += mm.length
      moves.coalesced += mm.filter((s) => (s.n ?? 1) > 1).length
      for (let j = 1; j < mm.length; j++) if (mm[j].t - mm[j - 1].t < 100) moves.gaps.push(mm[j].t - mm[j - 1].t)
      const kd = signals.filter((s) => s.k === 'kd')
      keys.presses += kd.length
      for (let j = 1; j < kd.length; j++) if (kd[j].t - kd[j - 1].t < 1000) keys.flights.push(kd[j].t - kd[j - 1].t)
      for (const d of kd) {
        const up = signals.find((s) => s.k === 'ku' && s.kc === d.kc && s.t >= d.t)
        if (up) keys.holds.push(up.t - d.t)
      }
      if (save) writeFileSync(join(save, `${tool.name}-${i}.json`), JSON.stringify({ tool: tool.name, judged, signals }))
      if (process.env.VERBOSE) console.log(tool.name, i, judged.verdict, judged.hcs, judged.reasons.join(' '), mm.length)
    }
    const share = (v: string) => `${((100 * results.filter((r) => r.verdict === v).length) / results.length).toFixed(1)} %`
    const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1] ?? 0
    const reasons = new Map<string, number>()
    for (const r of results) if (r.verdict !== 'human_verified') for (const c of r.reasons) reasons.set(c, (reasons.get(c) ?? 0) + 1)
    const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 3)
    console.log(
      `| ${tool.name} | ${results.length} | ${share('bot')} | ${share('suspicious')} | ${share('human_verified')} | ${share('insufficient_data')} | ${median(results.map((r) => r.hcs))} | ${top.map(([c, k]) => `${c} ${Math.round((100 * k) / results.length)}%`).join(', ')} | ${(moves.events / results.length).toFixed(0)} | ${((100 * moves.coalesced) / Math.max(1, moves.events)).toFixed(1)} % | ${median(moves.gaps).toFixed(2)} ms | ${(keys.presses / results.length).toFixed(0)} keys, hold ${median(keys.holds).toFixed(1)} ms, down-to-down ${median(keys.flights).toFixed(1)} ms |`
    )
  }
}

async function main() {
  const chromium = findChromium()
  if (!chromium) throw new Error('Chromium is needed: bash scripts/ci-browser.sh')
  await measureFromEnv(BROWSER_TOOLS, async () => {
    const browser = await launchChromium(chromium)
    return { open: chromiumPages(browser), close: () => browser.close() }
  })
}

if (import.meta.main) await main()
