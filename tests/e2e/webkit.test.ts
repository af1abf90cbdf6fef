// The SDK in WebKit (Safari's engine): Debian's WebKitGTK MiniBrowser driven over W3C WebDriver in a
// virtual display visits the demo page, the SDK's batches reach the real service, and GET /v1/session
// judges what WebKit delivered. ml/experiments/webkit-bots.ts measures the rates.
import { describe, expect, it } from 'bun:test'
import { visitTool } from '../../ml/experiments/browser-bots'
import { findWebKit, launchWebKit, webkitPages } from '../../ml/experiments/webkit-bots'
import { withBrowser } from './support'

const warnWebKitMissing = () =>
  console.warn(
    "\n!!! WebKitGTK's WebDriver was not found (/usr/bin/WebKitWebDriver, MiniBrowser, Xvfb): the WebKit tests are SKIPPED.\n" +
      '!!! Install them with `apt-get install -y webkit2gtk-driver xvfb` (scripts/ci-browser.sh does this in CI).\n'
  )

withBrowser('webkit', findWebKit(), launchWebKit, warnWebKitMissing, (env) => {
  /** a tool's visit of the demo page in WebKit (the seeds of ml/experiments/browser-bots.ts), judged by the service */
  async function visit(name: string, seed: number) {
    const { status, result, signals } = await visitTool(env.server, webkitPages(env.browser), name, seed)
    expect(status).toBe(200)
    return { result, signals }
  }
  describe('the SDK in WebKit', () => {
    it('a scripted mouse is recorded as WebKit delivers it (whole milliseconds, no coalesced count over 1) and judged a bot', async () => {
      const { result, signals } = await visit('playwright_steps', 0)
      const moves = signals.filter((e) => e.k === 'mm')
      expect(moves.length).toBeGreaterThan(50)
      // WebKit rounds event times to the millisecond and has no getCoalescedEvents: n stays 1
      expect(signals.every((e) => Number.isInteger(e.t))).toBe(true)
      expect(moves.every((e) => (e.n ?? 1) === 1)).toBe(true)
      expect(signals.some((e) => e.k === 'md') && signals.some((e) => e.k === 'mu')).toBe(true)
      expect(result.verdict).toBe('bot')
      expect(result.reasons.some((r) => r.startsWith('pointer_'))).toBe(true)
    }, 120_000)

    it('a typing script, keys only, is a bot for a typing behaviour', async () => {
      const { result, signals } = await visit('playwright_type', 0)
      expect(signals.some((e) => e.k === 'mm')).toBe(false)
      expect(signals.filter((e) => e.k === 'kd').length).toBeGreaterThanOrEqual(8)
      expect(result.verdict).toBe('bot')
      expect(result.reasons.some((r) => r.startsWith('typing_'))).toBe(true)
    }, 120_000)
  })
})
