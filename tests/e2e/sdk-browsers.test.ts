// The SDK in the browsers besides Chromium: Debian's Firefox ESR (Puppeteer over WebDriver BiDi) and
// WebKitGTK, Safari's engine (WebKitWebDriver in a virtual display), visit the demo page, the SDK's batches
// reach the real service, and GET /v1/session judges what each browser delivered (its own clock and move
// delivery, not Chromium's). ml/experiments/firefox-bots.ts and webkit-bots.ts measure the rates.
import { describe, expect, it } from 'bun:test'
import { type OpenPage, visitTool } from '../../ml/experiments/browser-bots'
import { findFirefox, firefoxPages, launchFirefox } from '../../ml/experiments/firefox-bots'
import { findWebKit, launchWebKit, webkitPages } from '../../ml/experiments/webkit-bots'
import { withBrowser } from './support'

const warnMissing = (what: string, install: string) => () =>
  console.warn(
    `\n!!! ${what} was not found: its SDK tests are SKIPPED.\n` +
      `!!! Install it with \`apt-get install -y ${install}\` (scripts/ci-browser.sh does this in CI).\n`
  )

/** the same two visits in one browser: what its page delivered, and the service's verdict on it */
function sdkSuite<B extends { close(): Promise<unknown> }>(
  name: string,
  found: string | null,
  launch: (executable: string) => Promise<B>,
  pages: (browser: B) => OpenPage,
  warn: () => void
) {
  withBrowser(name, found, launch, warn, (env) => {
    /** a tool's visit of the demo page (the seeds of ml/experiments/browser-bots.ts), judged by the service */
    async function visit(tool: string, seed: number) {
      const { status, result, signals } = await visitTool(env.server, pages(env.browser), tool, seed)
      expect(status).toBe(200)
      return { result, signals }
    }
    describe(`the SDK in ${name}`, () => {
      it('a scripted mouse is recorded as the browser delivers it (each move its own event, whole milliseconds) and judged a bot', async () => {
        const { result, signals } = await visit('playwright_steps', 1)
        const moves = signals.filter((e) => e.k === 'mm')
        expect(moves.length).toBeGreaterThan(50)
        // both round event times to the millisecond and hand the page no coalesced moves (n stays 1),
        // Chromium's headless moves are coalesced per frame
        expect(signals.every((e) => Number.isInteger(e.t))).toBe(true)
        expect(moves.every((e) => (e.n ?? 1) === 1)).toBe(true)
        expect(signals.some((e) => e.k === 'md') && signals.some((e) => e.k === 'mu')).toBe(true)
        expect(result.verdict).toBe('bot')
        // named for its moves: their path (pointer_*), or how Firefox delivered them, which varies with the
        // machine's load: back to back (event_burst), or each stroke over in less than 60 ms, too short for
        // the trees (pointer_flash_strokes; CI once met a visit that had nothing else: insufficient_data)
        expect(result.reasons.some((r) => r.startsWith('pointer_') || r === 'event_burst')).toBe(true)
      }, 120_000)

      it('a typing script with a delay, keys only, is a bot for a typing behaviour', async () => {
        const { result, signals } = await visit('playwright_type', 0)
        expect(signals.some((e) => e.k === 'mm')).toBe(false)
        expect(signals.filter((e) => e.k === 'kd').length).toBeGreaterThanOrEqual(8)
        expect(result.verdict).toBe('bot')
        expect(result.reasons.some((r) => r.startsWith('typing_'))).toBe(true)
      }, 120_000)
    })
  })
}

sdkSuite(
  'Firefox',
  findFirefox(),
  launchFirefox,
  firefoxPages,
  warnMissing('Firefox (/usr/bin/firefox-esr or FIREFOX_PATH)', 'firefox-esr')
)
sdkSuite(
  'WebKit',
  findWebKit(),
  launchWebKit,
  webkitPages,
  warnMissing('WebKitGTK (/usr/bin/WebKitWebDriver, its MiniBrowser, Xvfb)', 'webkit2gtk-driver xvfb')
)
