// The SDK in Firefox: Debian's Firefox ESR driven by Puppeteer over WebDriver BiDi visits the demo page,
// the SDK's batches reach the real service, and GET /v1/session judges what Firefox delivered (its own
// clock and move delivery, not Chromium's). ml/experiments/firefox-bots.ts measures the rates.
import { describe, expect, it } from 'bun:test'
import { visitTool } from '../../ml/experiments/browser-bots'
import { findFirefox, firefoxPages, launchFirefox } from '../../ml/experiments/firefox-bots'
import { withBrowser } from './support'

const warnFirefoxMissing = () =>
  console.warn(
    '\n!!! Firefox was not found (/usr/bin/firefox-esr): the Firefox tests are SKIPPED.\n' +
      '!!! Install it with `apt-get install -y firefox-esr` (scripts/ci-browser.sh does this in CI) or set FIREFOX_PATH.\n'
  )

withBrowser('firefox', findFirefox(), launchFirefox, warnFirefoxMissing, (env) => {
  /** a tool's visit of the demo page in Firefox (the seeds of ml/experiments/browser-bots.ts), judged by the service */
  async function visit(name: string, seed: number) {
    const { status, result, signals } = await visitTool(env.server, firefoxPages(env.browser), name, seed)
    expect(status).toBe(200)
    return { result, signals }
  }
  describe('the SDK in Firefox', () => {
    it('a scripted mouse is recorded as Firefox delivers it (each move its own event, whole milliseconds) and judged a bot', async () => {
      const { result, signals } = await visit('playwright_steps', 1)
      const moves = signals.filter((e) => e.k === 'mm')
      expect(moves.length).toBeGreaterThan(50)
      // Firefox rounds event times to the millisecond (privacy.reduceTimerPrecision) and dispatches each
      // awaited move at once: no coalescing, a few ms apart
      expect(signals.every((e) => Number.isInteger(e.t))).toBe(true)
      expect(moves.every((e) => (e.n ?? 1) === 1)).toBe(true)
      expect(signals.some((e) => e.k === 'md') && signals.some((e) => e.k === 'mu')).toBe(true)
      expect(result.verdict).toBe('bot')
      expect(result.reasons.some((r) => r.startsWith('pointer_'))).toBe(true)
    }, 90_000)

    it("Puppeteer's page.type with a delay, keys only, is a bot for a typing behaviour", async () => {
      const { result, signals } = await visit('playwright_type', 0)
      expect(signals.some((e) => e.k === 'mm')).toBe(false)
      expect(signals.filter((e) => e.k === 'kd').length).toBeGreaterThanOrEqual(8)
      expect(result.verdict).toBe('bot')
      expect(result.reasons.some((r) => r.startsWith('typing_'))).toBe(true)
    }, 90_000)
  })
})
