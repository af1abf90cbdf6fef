import { describe, expect, it } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { signalFindings } from '../../src/scoring/integrity'
import { REASON_MEANINGS } from '../../src/scoring/reasons'
import { sessionFeatures } from '../../src/scoring/session-features'
import { atBothWidths, demoSessionId, eventually, flushSdk, inBrowser } from './support'
import { storedBatches } from '../helpers/stored-signals'

inBrowser((env) => {
  /** A human-ish hand: a curved path in small steps with uneven pauses. */
  async function curve(page: Page, from: [number, number], to: [number, number], bend: number) {
    const [x0, y0] = from
    const [x1, y1] = to
    const cx = (x0 + x1) / 2 + bend
    const cy = (y0 + y1) / 2 - bend
    const points = 12
    for (let i = 1; i <= points; i++) {
      const t = i / points
      const x = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t ** 2 * x1
      const y = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t ** 2 * y1
      await page.mouse.move(x, y, { steps: 3 + (i % 4) })
      if (i % 5 === 0) await page.waitForTimeout(60 + ((i * 37) % 90))
    }
  }

  async function centre(page: Page, selector: string): Promise<[number, number]> {
    const box = (await page.locator(selector).boundingBox())!
    return [box.x + box.width * 0.45, box.y + box.height * 0.55]
  }

  /** a fresh context on the demo page, once the SDK has shown its session id */
  async function openDemo(): Promise<{ context: BrowserContext; page: Page; sessionId: string }> {
    const context = await env.browser.newContext()
    const page = await context.newPage()
    await page.goto(`${env.server.url}/demo`)
    return { context, page, sessionId: await demoSessionId(page) }
  }

  const flush = (page: Page) => flushSdk(page, env.server.demo.public_key)

  /** every signal the service stored for a session of the demo organization */
  const storedSignals = async (sessionId: string) =>
    (await storedBatches(env.server.deps.db.sql, env.server.demo.org_id, sessionId)).flatMap((r) => r.signals ?? [])

  describe('demo page in Chromium', () => {
    it('collects every modality, flushes with fetch and with sendBeacon, and shows the verdict', async () => {
      const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text())
      })
      page.on('pageerror', (e) => problems.push(String(e)))
      const typed = 'Hello Demo 42'
      try {
        await page.goto(`${env.server.url}/demo`)
        const sessionId = await demoSessionId(page)
        const started = Date.now()

        await page.mouse.move(40, 40)
        const field = await centre(page, '#demo-name')
        await curve(page, [40, 40], field, 120)
        await page.waitForTimeout(150)
        await page.mouse.down()
        await page.waitForTimeout(90)
        await page.mouse.up()
        await page.keyboard.type(typed, { delay: 70 })
        await page.keyboard.press('Backspace')
        await page.keyboard.down('Shift')
        await page.keyboard.press('A')
        await page.keyboard.up('Shift')

        const area = await centre(page, '#scroll-area')
        await curve(page, field, area, -80)
        for (const dy of [100, 120, 60, 140]) {
          await page.mouse.wheel(0, dy)
          await page.waitForTimeout(120)
        }

        const check = await centre(page, '#check')
        await curve(page, area, check, 60)
        await page.waitForTimeout(200)
        await page.mouse.down()
        await page.waitForTimeout(110)
        await page.mouse.up()
        // The button flushes with fetch, then asks this server (not the page) for the verdict.
        await page.waitForSelector('#result .verdict', { timeout: 20_000 })
        const verdict = (await page.textContent('#result .verdict'))!
        expect(verdict).toMatch(/Verdict: (human verified|suspicious|bot|insufficient data)/)
        expect(await page.textContent('#result')).toMatch(/Signals\d+ in \d+ batch/)

        // Reasons in words: one line per code, each with the catalog's meaning.
        const codes = await page.locator('#demo-reasons li code').allTextContents()
        expect(codes.length).toBeGreaterThan(0)
        const items = await page.locator('#demo-reasons li').allTextContents()
        expect(items).toEqual(codes.map((code) => `${REASON_MEANINGS[code]} ${code}`))
        await atBothWidths(page, 'demo')

        const sql = env.server.deps.db.sql
        const batchesBefore = (await storedBatches(sql, env.server.demo.org_id, sessionId)).length
        expect(batchesBefore).toBeGreaterThan(0)

        // More typing, then leave the page: pagehide must hand the rest to sendBeacon.
        await page.click('#demo-notes')
        await page.keyboard.type('fine', { delay: 60 })
        const elapsedMs = Date.now() - started
        await page.goto('about:blank')

        const rows = await eventually(async () => {
          const r = await storedBatches(sql, env.server.demo.org_id, sessionId)
          return r.length > batchesBefore && r
        }, 'the beacon batch')

        const [session] = await sql<{ sdk_type: string; batch_count: number; signal_count: number }[]>`
          select sdk_type, batch_count, signal_count from sessions where org_id = ${env.server.demo.org_id} and session_id = ${sessionId}`
        expect(session!.sdk_type).toBe('web')

        const signals = rows.flatMap((r) => r.signals ?? [])
        const kinds = new Set<string>(signals.map((s) => s.k))
        for (const kind of ['mm', 'md', 'mu', 'c', 'kd', 'ku', 's']) expect([kind, kinds.has(kind)]).toEqual([kind, true])
        // Key classes only: the typed text never reaches the service.
        expect(new Set(signals.filter((s) => s.k === 'kd').map((s) => s.kc))).toEqual(new Set(['char', 'space', 'digit', 'back', 'mod']))
        expect(JSON.stringify(signals)).not.toContain('Hello')
        expect(signals.every((s) => s.tr === undefined)).toBe(true)
        const clicks = signals.filter((s) => s.k === 'c')
        for (const c of clicks) {
          expect(Math.abs(c.ox as number)).toBeLessThanOrEqual(1)
          expect(Math.abs(c.oy as number)).toBeLessThanOrEqual(1)
        }
        const moves = signals.filter((s) => s.k === 'mm')
        expect(moves.every((m) => typeof m.n === 'number')).toBe(true)
        const times = signals.map((s) => s.t as number)
        expect(times).toEqual([...times].sort((a, b) => a - b))
        expect(signals.filter((s) => s.k === 's').map((s) => s.dy)).toEqual([100, 120, 60, 140])

        // Transport: JSON + X-API-Key for fetch flushes, ?key= + text/plain for the beacon, nothing else.
        const ingest = env.server.requests.filter((r) => r.path === '/v1/ingest')
        const fetches = ingest.filter((r) => r.hasApiKey)
        const beacons = ingest.filter((r) => !r.hasApiKey)
        expect(fetches.length).toBeGreaterThan(0)
        expect(fetches.every((r) => r.contentType.startsWith('application/json') && r.search === '')).toBe(true)
        expect(beacons.length).toBeGreaterThan(0)
        expect(beacons.every((r) => r.contentType.startsWith('text/plain') && r.search === `?key=${env.server.demo.public_key}`)).toBe(true)
        expect(ingest.length).toBe(rows.length)
        // The flush policy bounds the request count: one per 5 s tick, per 200 events, plus the explicit flush and the exit.
        expect(ingest.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / 5000) + Math.ceil(signals.length / 200) + 2)
        console.log(`demo e2e: ${signals.length} signals in ${ingest.length} ingest requests over ${(elapsedMs / 1000).toFixed(1)} s`)

        // Nothing the page did broke the CSP or threw.
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)

    it('the SDK never throws into the page and keeps one session per tab across reloads', async () => {
      const context = await env.browser.newContext()
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(String(e)))
      try {
        await page.goto(`${env.server.url}/demo`)
        const first = await demoSessionId(page)
        const outcome = await page.evaluate(() => {
          const w = window as unknown as { BSS: { init(o: unknown): { sessionId: string } } }
          const bad = [undefined, null, {}, { publicKey: 'svc_live_sk_' + 'a'.repeat(40) }, { publicKey: 42 }].map(
            (o) => w.BSS.init(o).sessionId
          )
          // Synthetic events: recorded as untrusted, never an exception.
          window.dispatchEvent(new PointerEvent('pointermove', { clientX: 5, clientY: 5 }))
          window.dispatchEvent(new KeyboardEvent('keydown', { key: 'x' }))
          window.dispatchEvent(new WheelEvent('wheel', { deltaY: 3, deltaMode: 1 }))
          window.dispatchEvent(new TouchEvent('touchstart'))
          return bad
        })
        expect(outcome).toEqual(['', '', '', '', ''])
        await flush(page)
        const rows = await storedBatches(env.server.deps.db.sql, env.server.demo.org_id, first)
        const untrusted = rows
          .flatMap((r) => r.signals ?? [])
          .filter((s) => s.tr === false)
          .map((s) => s.k)
        expect(untrusted.sort()).toEqual(['kd', 'mm', 's', 'ts'])
        await page.reload()
        expect(await demoSessionId(page)).toBe(first)
        const other = await context.newPage()
        await other.goto(`${env.server.url}/demo`)
        expect(await demoSessionId(other)).not.toBe(first)
        expect(errors).toEqual([])
      } finally {
        await context.close()
      }
    }, 60_000)

    it('records a pen once: its pointer events, not the touch events the browser also fires for it', async () => {
      // Safari (Apple Pencil) and Chrome on Android (a stylus) fire pointer events and touch events for one
      // pen contact, the pointer event first. Recorded twice, a person with a pen scored as a bot
      // (event_burst). Synthetic events in that order; Chromium has no touchType (the unit tests cover it).
      const { context, page, sessionId } = await openDemo()
      try {
        await page.evaluate(() => {
          const target = document.body
          const pointer = (type: string, pointerType: string, x: number) =>
            window.dispatchEvent(new PointerEvent(type, { pointerType, clientX: x, clientY: 100, bubbles: true }))
          const touch = (type: string, identifier: number, x: number) => {
            const t = new Touch({ identifier, target, clientX: x, clientY: 100, radiusX: 4, radiusY: 6, force: 0.3 })
            window.dispatchEvent(new TouchEvent(type, { changedTouches: [t], touches: type === 'touchend' ? [] : [t], bubbles: true }))
          }
          // a pen: hovering, then down, drawn along, up
          pointer('pointermove', 'pen', 90)
          pointer('pointerdown', 'pen', 100)
          touch('touchstart', 5, 100)
          for (const x of [110, 120, 130]) {
            pointer('pointermove', 'pen', x)
            touch('touchmove', 5, x)
          }
          pointer('pointerup', 'pen', 130)
          touch('touchend', 5, 130)
          // then a finger: its touch events, not its pointer events
          pointer('pointerdown', 'touch', 300)
          touch('touchstart', 6, 300)
          pointer('pointermove', 'touch', 310)
          touch('touchmove', 6, 310)
          pointer('pointerup', 'touch', 310)
          touch('touchend', 6, 310)
        })
        await flush(page)
        const synthetic = (await storedSignals(sessionId)).filter((s) => s.tr === false)
        expect(synthetic.map((s) => `${s.k}@${s.x}`)).toEqual([
          'mm@90',
          'md@100',
          'mm@110',
          'mm@120',
          'mm@130',
          'mu@130',
          'ts@300',
          'tm@310',
          'te@310',
        ])
      } finally {
        await context.close()
      }
    }, 60_000)

    it("a password manager's fill reaches the service as one burst of untrusted keys, which the scorer leaves out", async () => {
      // What Proton Pass's autofill dispatches on each field (keydown, input, keyup, keypress; bubbling).
      const { context, page, sessionId } = await openDemo()
      try {
        await page.evaluate(() => {
          for (const id of ['demo-name', 'demo-notes']) {
            const input = document.getElementById(id) as HTMLInputElement
            input.value = 'filled'
            for (const event of [
              new KeyboardEvent('keydown', { bubbles: true }),
              new InputEvent('input', { data: 'filled', bubbles: true }),
              new KeyboardEvent('keyup', { bubbles: true }),
              new KeyboardEvent('keypress', { bubbles: true }),
            ])
              input.dispatchEvent(event)
          }
        })
        await flush(page)
        const signals = await storedSignals(sessionId)
        const filled = signals.filter((s) => s.tr === false)
        expect(filled.map((s) => `${s.k}:${s.kc}`)).toEqual(['kd:other', 'ku:other', 'kd:other', 'ku:other'])
        // each field's keydown and keyup are stamped within the scorer's burst (5 ms of each other); the
        // second field comes after the first one's handlers ran, 9.6 ms after it once on a loaded machine
        expect(filled[1]!.t - filled[0]!.t).toBeLessThan(5)
        expect(filled[3]!.t - filled[2]!.t).toBeLessThan(5)
        expect(sessionFeatures(signals).keyboard).toBeNull()
        expect(signalFindings(signals)).toEqual([])
      } finally {
        await context.close()
      }
    }, 60_000)

    it("a fill on a heavy page (keyups stamped after the page's keydown handlers) is still left out", async () => {
      // What Bitwarden's autofill dispatches on each field (its fill actions run on timers 20 ms apart): click and focus, then
      // keydown, keypress and keyup (each created as it is dispatched), the value, the three keys again,
      // input, change and blur. The page's keydown handler takes 8 ms, so each keyup is stamped ≥ 8 ms after
      // its keydown (Event.timeStamp is the creation time): outside the 5 ms burst.
      const { context, page, sessionId } = await openDemo()
      try {
        await page.evaluate(async () => {
          const busy = () => {
            const until = performance.now() + 8
            while (performance.now() < until);
          }
          const keys = (input: HTMLInputElement) => {
            for (const type of ['keydown', 'keypress', 'keyup']) input.dispatchEvent(new KeyboardEvent(type, { bubbles: true }))
          }
          const fields = ['demo-name', 'demo-notes'].map((id) => document.getElementById(id) as HTMLInputElement)
          for (const input of fields) input.addEventListener('keydown', busy)
          await Promise.all(
            fields.map(
              (input, i) =>
                new Promise<void>((done) =>
                  setTimeout(() => {
                    input.click()
                    input.focus()
                    keys(input)
                    input.value = 'filled'
                    keys(input)
                    for (const type of ['input', 'change']) input.dispatchEvent(new Event(type, { bubbles: true }))
                    input.blur()
                    done()
                  }, 20 * i)
                )
            )
          )
        })
        await flush(page)
        const signals = await storedSignals(sessionId)
        const filled = signals.filter((s) => s.tr === false && (s.k === 'kd' || s.k === 'ku'))
        expect(filled.map((s) => `${s.k}:${s.kc}`)).toEqual(Array(4).fill(['kd:other', 'ku:other']).flat())
        // the risk this covers: each keyup ≥ 8 ms after its keydown, as the browser stamped it
        for (const i of [0, 2, 4, 6]) expect(filled[i + 1]!.t - filled[i]!.t).toBeGreaterThanOrEqual(7.5)
        expect(sessionFeatures(signals).keyboard).toBeNull()
        expect(signalFindings(signals)).toEqual([])
      } finally {
        await context.close()
      }
    }, 60_000)

    it('a cursor stepped along the keypad’s eight directions (Mouse Keys) is judged suspicious at worst, and says why', async () => {
      // What Mouse Keys does while a keypad key is held: one trusted move per timer tick (here ~20 ms,
      // CDP's own round trip added) along that axis or diagonal, the step growing to a top speed; a
      // pause between keys. The page sees it as it would see the system's cursor moves.
      const { context, page, sessionId } = await openDemo()
      try {
        const runs: [number, number, number][] = [
          [1, 0, 26],
          [0, 1, 18],
          [1, 1, 14],
          [-1, 0, 22],
          [0, -1, 14],
          [-1, -1, 10],
          [1, 0, 18],
          [0, 1, 12],
        ]
        let [x, y] = [120, 120]
        await page.mouse.move(x, y)
        for (const [i, [dx, dy, ticks]] of runs.entries()) {
          await page.waitForTimeout(420)
          for (let tick = 1; tick <= ticks; tick++) {
            const step = Math.min(12, 2 + tick)
            x += dx * step
            y += dy * step
            await page.mouse.move(x, y)
            await page.waitForTimeout(20)
          }
          if (i % 3 === 2) {
            await page.mouse.down()
            await page.mouse.up()
          }
        }
        await flush(page)
        const signals = await storedSignals(sessionId)
        const compass = sessionFeatures(signals).pointerCompass
        expect(compass.runs).toBeGreaterThanOrEqual(6)
        expect(compass.share).toBeGreaterThan(0.85)
        const res = await fetch(`${env.server.url}/demo/result/${sessionId}`)
        const result = (await res.json()) as { verdict: string; hcs: number; reasons: string[] }
        expect(result.verdict).not.toBe('bot')
        expect(result.hcs).toBeGreaterThanOrEqual(30)
        if (result.verdict !== 'human_verified') expect(result.reasons).toContain('pointer_mouse_keys')
      } finally {
        await context.close()
      }
    }, 60_000)

    it('a popup opened with window.open (a copy of the opener’s sessionStorage) gets a session of its own', async () => {
      // Before, the opener and the popup wrote one session: two hands at once, and vectors neither could
      // match (feature_mismatch: a bot). A duplicated tab copies sessionStorage the same way.
      const { context, page, sessionId: opener } = await openDemo()
      try {
        const [popup] = await Promise.all([
          context.waitForEvent('page'),
          page.evaluate(() => {
            window.open('/demo')
          }),
        ])
        const idOf = (p: Page, key: string) =>
          p.evaluate(
            (k) => (window as unknown as { BSS: { init(o: unknown): { sessionId: string } } }).BSS.init({ publicKey: k }).sessionId,
            key
          )
        const key = env.server.demo.public_key
        // the copy is seen at load (the SDK found the opener's session in storage) and left within moments
        expect(await demoSessionId(popup)).toBe(opener)
        await eventually(async () => ((await idOf(popup, key)) !== opener ? true : undefined), 'the popup’s own session')
        const own = await idOf(popup, key)
        expect(own).toMatch(/^[0-9a-f-]{36}$/)
        expect(await idOf(page, key)).toBe(opener)
        // each tab's events go to its own session
        for (const [p, x] of [
          [page, 11],
          [popup, 22],
        ] as const) {
          await p.evaluate(
            async ([k, px]) => {
              window.dispatchEvent(new PointerEvent('pointermove', { clientX: px, clientY: px }))
              await (window as unknown as { BSS: { init(o: unknown): { flush(): Promise<void> } } }).BSS.init({ publicKey: k }).flush()
            },
            [key, x] as const
          )
        }
        const marks = async (id: string) =>
          (await storedBatches(env.server.deps.db.sql, env.server.demo.org_id, id))
            .flatMap((r) => r.signals ?? [])
            .filter((s) => s.tr === false)
        expect((await marks(opener)).map((s) => s.x)).toEqual([11])
        expect((await marks(own)).map((s) => s.x)).toEqual([22])
        // a reload keeps the tab's session: its old page is gone, nobody answers
        await popup.reload()
        await demoSessionId(popup)
        await Bun.sleep(300)
        expect(await idOf(popup, key)).toBe(own)
      } finally {
        await context.close()
      }
    }, 60_000)

    it('a page on another origin loads /sdk/v1.js with CORS and sends with fetch and sendBeacon', async () => {
      // A customer's page: another origin (localhost vs 127.0.0.1) embedding the SDK with a CORS script tag.
      const host = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        fetch: () =>
          new Response(
            `<!doctype html><title>shop</title><script src="${env.server.url}/sdk/v1.js" crossorigin="anonymous"></script><h1>shop</h1>`,
            {
              headers: { 'content-type': 'text/html' },
            }
          ),
      })
      const context = await env.browser.newContext()
      const page = await context.newPage()
      try {
        await page.goto(`http://localhost:${host.port}/`)
        const sessionId = await page.evaluate(
          ([key, endpoint]) => {
            const w = window as unknown as { BSS: { init(o: unknown): { sessionId: string } }; bss?: unknown }
            const client = w.BSS.init({ publicKey: key, endpoint })
            w.bss = client
            return client.sessionId
          },
          [env.server.demo.public_key, env.server.url]
        )
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/)
        await curve(page, [10, 10], [300, 200], 50)
        const stats = await page.evaluate(async () => {
          const client = (window as unknown as { bss: { flush(): Promise<void>; stats(): Record<string, number> } }).bss
          await client.flush()
          return client.stats()
        })
        expect(stats).toMatchObject({ dropped: 0, failures: 0, buffered: 0 })
        expect(stats.sent).toBeGreaterThan(0)
        const seen = env.server.requests.length
        await page.mouse.move(20, 30, { steps: 5 })
        await page.goto('about:blank')
        const beacon = await eventually(
          async () => env.server.requests.slice(seen).find((r) => r.path === '/v1/ingest' && r.search.startsWith('?key=')),
          'the cross-origin beacon'
        )
        expect(beacon.contentType).toStartWith('text/plain')
        const sql = env.server.deps.db.sql
        const batches = await eventually(async () => {
          const [row] = await sql<{ batch_count: number }[]>`
            select batch_count from sessions where org_id = ${env.server.demo.org_id} and session_id = ${sessionId}`
          return row && row.batch_count >= 2 && row.batch_count
        }, 'the cross-origin batches')
        expect(batches).toBeGreaterThanOrEqual(2)
      } finally {
        await context.close()
        host.stop(true)
      }
    }, 60_000)
  })
})
