// Real people's movement as real browsers deliver it. The eval's capture differences are simulated
// (a coarser timer, another pointer rate); here SapiMouse windows are played through the X server
// (XTest: the path a mouse's reports take to every window on the display) into headed Chromium,
// Firefox and WebKit (WebKitGTK, Safari's engine) on the demo page, the SDK records what each engine
// delivered (its coalescing, timestamps, frame timing), and GET /v1/session judges it. Each visit is
// compared with the same window scored as recorded, by the same (shipped) model: the change is the
// browser's. docs/scoring.md, "Real people through real browsers", has the table.
//   N=30 BROWSERS=chromium,firefox,webkit npx bun run ml/experiments/people-through-browsers.ts
// Needs Xvfb, Chromium, Firefox ESR and WebKitGTK (scripts/ci-browser.sh). SAVE=/tmp/dir keeps each
// visit (the window as recorded, the signals as stored); SECONDS sets the window length (10). RATE=500
// plays each window resampled to a 500 Hz mouse (capture.ts's spline through the recorded moves), as a
// fast mouse reports, so each engine's own coalescing decides what the page sees; the verdict is still
// compared with the window as SapiMouse recorded it.
// `… people-through-browsers.ts pack <dir>[=seconds] …` packs the visits SAVE kept into
// ml/data/browser/people.jsonl.gz, which `npm run eval` scores with models that never saw the person.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { extractFeatures } from '../../src/scoring/features'
import { scoreSession } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { CHROMIUM_ARGS, type Server, demoSessionId, findChromium, flushSdk, startServer } from '../../tests/e2e/support'
import { loadReal } from '../data/load'
import { resampleRate, window as windowOf } from '../training/capture'
import { createRng, deriveSeed } from '../synth/prng'
import { type Judged, type OpenPage, chromiumPages, judgedVisit } from './browser-bots'
import { findFirefox, firefoxPages } from './firefox-bots'
import { findWebKit, launchWebKit, startXvfb, webkitPages } from './webkit-bots'

const N = Number(process.env.N ?? 30)
const SECONDS = Number(process.env.SECONDS ?? 10)
const RATE = Number(process.env.RATE ?? 0)
const BROWSERS = (process.env.BROWSERS ?? 'chromium,firefox,webkit').split(',')
/** the largest SapiMouse screen is 2,386 × 1,155 px: windows fit, so the recorded positions are the page's */
const SCREEN = { width: 2560, height: 1440 }

type XEvent = [number, 'mm' | 'md' | 'mu', number, number]

/** a virtual display of the screen's size; its name */
async function screen(): Promise<{ display: string; close(): Promise<void> }> {
  const { display, xvfb } = await startXvfb(`${SCREEN.width}x${SCREEN.height}`)
  return {
    display,
    async close() {
      xvfb.kill()
      await xvfb.exited
    },
  }
}

/** plays events through XTest in a process of its own (xtest-replay.ts); how late they went out */
async function play(display: string, events: XEvent[]): Promise<{ lateP50: number; lateP99: number; lateMax: number }> {
  const child = Bun.spawn(['bun', 'run', join(import.meta.dir, 'xtest-replay.ts')], {
    env: { ...process.env, DISPLAY: display },
    stdin: new Blob([JSON.stringify({ events })]),
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = await new Response(child.stdout).text()
  if ((await child.exited) !== 0) throw new Error('xtest-replay failed')
  return JSON.parse(out)
}

type Open = { name: string; open: OpenPage; close(): Promise<void> }

async function launch(name: string, display: string): Promise<Open> {
  const env = { ...process.env, DISPLAY: display }
  if (name === 'chromium') {
    const path = findChromium()
    if (!path) throw new Error('Chromium is needed: bash scripts/ci-browser.sh')
    const { chromium } = await import('playwright-core')
    const args = [
      ...CHROMIUM_ARGS.filter((a) => a !== '--headless'),
      '--window-position=0,0',
      `--window-size=${SCREEN.width},${SCREEN.height}`,
    ]
    const browser = await chromium.launch({ executablePath: path, headless: false, args, env })
    return {
      name: `Chromium ${browser.version()}`,
      open: chromiumPages(browser, null),
      close: () => browser.close(),
    }
  }
  if (name === 'firefox') {
    const path = findFirefox()
    if (!path) throw new Error('Firefox is needed: apt-get install firefox-esr (scripts/ci-browser.sh)')
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: path,
      headless: false,
      defaultViewport: null,
      args: [`--width=${SCREEN.width}`, `--height=${SCREEN.height}`],
      env,
    })
    const version = await browser.version()
    return {
      name: `Firefox ${version.replace(/^firefox\//, '')}`,
      open: firefoxPages(browser),
      close: () => browser.close(),
    }
  }
  if (name === 'webkit') {
    const driver = findWebKit()
    if (!driver) throw new Error('WebKit is needed: apt-get install webkit2gtk-driver xvfb (scripts/ci-browser.sh)')
    process.env.DISPLAY = display
    const webkit = await launchWebKit(driver)
    return { name: 'WebKitGTK MiniBrowser', open: webkitPages(webkit, SCREEN), close: () => webkit.close() }
  }
  throw new Error(`no browser ${name}`)
}

/** where the page's (0, 0) is on the screen, and the viewport's size: two moves seen by the page */
async function calibrate(page: Page, display: string) {
  await page.evaluate(() => {
    const w = window as unknown as { seen?: { x: number; y: number } }
    addEventListener('mousemove', (e) => {
      const m = e as MouseEvent
      w.seen = { x: m.clientX, y: m.clientY }
    })
  }, null)
  await play(display, [
    [0, 'mm', 600, 500],
    [60, 'mm', 640, 520],
  ])
  await Bun.sleep(100)
  const seen = (await page.evaluate(() => {
    const w = window as unknown as { seen?: { x: number; y: number } }
    return { seen: w.seen ?? null, width: innerWidth, height: innerHeight }
  }, null)) as { seen: { x: number; y: number } | null; width: number; height: number }
  if (!seen.seen) throw new Error('the page saw no move: is the window on the display?')
  return { dx: 640 - seen.seen.x, dy: 520 - seen.seen.y, width: seen.width, height: seen.height }
}

/** SapiMouse windows of SECONDS, one per 60 s window spread over the people, that fit a viewport */
function windows(width: number, height: number): { user: string; signals: Signal[] }[] {
  const sessions = loadReal('sapimouse')
  const out: { user: string; signals: Signal[] }[] = []
  const step = Math.max(1, Math.floor(sessions.length / N))
  for (let i = 0; out.length < N && i < sessions.length * 4; i++) {
    const s = sessions[(i * step + Math.floor(i / N)) % sessions.length]
    const w = windowOf(createRng(deriveSeed(20261130, 'people-through-browsers', i)), s.signals, SECONDS)
    const fits = w.every((e) => e.x === undefined || (e.x >= 0 && e.y! >= 0 && e.x < width - 1 && e.y! < height - 1))
    if (fits && w.some((e) => e.k === 'mm')) out.push({ user: s.user, signals: w })
  }
  return out
}

const asEvents = (signals: readonly Signal[], dx: number, dy: number): XEvent[] =>
  signals.filter((s) => s.k === 'mm' || s.k === 'md' || s.k === 'mu').map((s) => [s.t, s.k as XEvent[1], (s.x ?? 0) + dx, (s.y ?? 0) + dy])

async function visit(server: Server, b: Open, display: string, w: { user: string; signals: Signal[] }) {
  const { page, close } = await b.open()
  let sessionId: string
  let late: Awaited<ReturnType<typeof play>>
  try {
    await page.goto('data:text/html,<body style="margin:0">calibrating</body>')
    const at = await calibrate(page, display)
    await page.goto(`${server.url}/demo`)
    sessionId = await demoSessionId(page)
    // a transparent layer over the page: the recorded presses land on nothing (no link, no field)
    await page.evaluate(() => {
      const layer = document.createElement('div')
      layer.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:transparent'
      document.body.append(layer)
    }, null)
    late = await play(display, asEvents(RATE > 0 ? resampleRate(w.signals, RATE) : w.signals, at.dx, at.dy))
    await Bun.sleep(200)
    await flushSdk(page, server.demo.public_key)
  } finally {
    await close()
  }
  const { result: judged, signals: stored } = await judgedVisit(server, sessionId)
  return { judged, stored, late }
}

const pct = (k: number, n: number) => `${((100 * k) / Math.max(1, n)).toFixed(1)} %`
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? 0

async function main() {
  const x = await screen()
  const save = process.env.SAVE
  if (save) mkdirSync(save, { recursive: true })
  console.log(
    `| browser | windows | as recorded: bot / suspicious / verified | through the browser: bot / suspicious / verified / insufficient | verdict class changed | median hcs, recorded → browser | moves per window, recorded → delivered | median gap between moves | replay lateness p99 |`
  )
  console.log('|---|---:|---|---|---:|---|---|---|---:|')
  try {
    for (const name of BROWSERS) {
      // a fresh service (database, demo organization) per browser: the same windows played into another
      // browser are, to one organization's cross-session store, the same strokes again (replayed_strokes)
      const server = await startServer()
      const b = await launch(name, x.display)
      try {
        // the viewport once, on a first page (every visit's window has the same size)
        const probe = await b.open()
        await probe.page.goto('data:text/html,<body style="margin:0">calibrating</body>')
        const size = await calibrate(probe.page, x.display)
        await probe.close()
        const chosen = windows(size.width, size.height)
        const rows: { recorded: Judged; browser: Judged; movesIn: number; movesOut: number; gaps: number[]; lateP99: number }[] = []
        for (let i = 0; i < chosen.length; i++) {
          const w = chosen[i]!
          const recorded = scoreSession({ signals: w.signals, clientFeatures: extractFeatures(w.signals) }) as unknown as Judged
          const { judged, stored, late } = await visit(server, b, x.display, w)
          const mm = stored.filter((s) => s.k === 'mm')
          const gaps: number[] = []
          for (let j = 1; j < mm.length; j++) if (mm[j]!.t - mm[j - 1]!.t < 100) gaps.push(mm[j]!.t - mm[j - 1]!.t)
          rows.push({
            recorded,
            browser: judged,
            movesIn: w.signals.filter((s) => s.k === 'mm').length,
            movesOut: mm.length,
            gaps,
            lateP99: late.lateP99,
          })
          if (save)
            writeFileSync(
              join(save, `${name}${RATE ? `-${RATE}hz` : ''}-${i}.json`),
              JSON.stringify({ browser: b.name, user: w.user, recorded: w.signals, stored, judged, late })
            )
          if (process.env.VERBOSE)
            console.error(
              name,
              i,
              w.user,
              recorded.verdict,
              recorded.hcs,
              '→',
              judged.verdict,
              judged.hcs,
              judged.reasons.join(' '),
              mm.length
            )
        }
        const n = rows.length
        const count = (k: 'recorded' | 'browser', v: string) => rows.filter((r) => r[k].verdict === v).length
        console.log(
          `| ${b.name}${RATE ? `, a ${RATE} Hz mouse` : ''} | ${n} | ${pct(count('recorded', 'bot'), n)} / ${pct(count('recorded', 'suspicious'), n)} / ${pct(count('recorded', 'human_verified'), n)} | ${pct(count('browser', 'bot'), n)} / ${pct(count('browser', 'suspicious'), n)} / ${pct(count('browser', 'human_verified'), n)} / ${pct(count('browser', 'insufficient_data'), n)} | ${pct(rows.filter((r) => r.recorded.verdict !== r.browser.verdict).length, n)} | ${median(rows.map((r) => r.recorded.hcs)).toFixed(1)} → ${median(rows.map((r) => r.browser.hcs)).toFixed(1)} | ${median(rows.map((r) => r.movesIn))} → ${median(rows.map((r) => r.movesOut))} | ${median(rows.flatMap((r) => r.gaps)).toFixed(2)} ms | ${Math.max(...rows.map((r) => r.lateP99)).toFixed(2)} ms |`
        )
      } finally {
        await b.close()
        await server.close()
      }
    }
  } finally {
    await x.close()
  }
}

/**
 * The visits SAVE kept, as ml/data/browser/people.jsonl.gz: each argument a SAVE folder and the window
 * length its run used (`dir=60`; 10 when not given), in folder, browser, rate and visit order.
 */
function pack(folders: readonly string[]) {
  const lines: string[] = []
  for (const arg of folders) {
    const [dir = '', seconds = '10'] = arg.split('=')
    const visits = readdirSync(dir)
      .map((f) => /^(chromium|firefox|webkit)(?:-(\d+)hz)?-(\d+)\.json$/.exec(f))
      .filter((m) => m !== null)
      .map((m) => ({ file: m[0], key: m[1]!, rate: Number(m[2] ?? 0), visit: Number(m[3]) }))
      .sort((a, b) => a.key.localeCompare(b.key) || a.rate - b.rate || a.visit - b.visit)
    for (const v of visits) {
      const saved = JSON.parse(readFileSync(join(dir, v.file), 'utf8')) as {
        browser: string
        user: string
        recorded: Signal[]
        stored: Signal[]
      }
      lines.push(
        JSON.stringify({
          // the first run named Firefox by its version string (firefox/153.8.0)
          browser: saved.browser.replace(/^Firefox firefox\//, 'Firefox '),
          rate: v.rate,
          seconds: Number(seconds),
          visit: v.visit,
          user: saved.user,
          recorded: saved.recorded,
          signals: saved.stored,
        })
      )
    }
  }
  writeFileSync(new URL('../data/browser/people.jsonl.gz', import.meta.url), gzipSync(`${lines.join('\n')}\n`, { level: 9 }))
  console.log(`${lines.length} visits packed`)
}

if (import.meta.main) {
  if (process.argv[2] === 'pack') pack(process.argv.slice(3))
  else await main()
}
