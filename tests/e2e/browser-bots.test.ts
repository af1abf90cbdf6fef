// Bot tools moving Chromium's cursor on the demo page, recorded by the real SDK and judged by the
// real service (GET /v1/session with the secret key): the browser's own delivery of their moves,
// not our model of it (ml/experiments/browser-bots.ts measures the rates; docs/scoring.md has them).
import { describe, expect, it } from 'bun:test'
import { chromiumPages, visitTool } from '../../ml/experiments/browser-bots'
import { sessionEvidenceOf } from '../../src/scoring/evidence'
import { MODEL } from '../../src/scoring/service'
import { sessionFeatures } from '../../src/scoring/session-features'
import { inBrowser } from './support'

inBrowser((env) => {
  /** a tool's visit of the demo page (the seeds of ml/experiments/browser-bots.ts), judged by the service */
  async function visit(name: string, seed: number) {
    const { status, result, signals } = await visitTool(env.server, chromiumPages(env.browser), name, seed)
    expect(status).toBe(200)
    return { result, signals }
  }

  describe('bot tools in a real browser', () => {
    it("Playwright's page.mouse.move with steps is judged a bot, for a behaviour it names", async () => {
      const { result, signals } = await visit('playwright_steps', 1)
      expect(result.signals).toBeGreaterThan(50)
      // Chromium hands an awaited move to the page at its next frame: one pointermove per point (visit.ts, `awaited`)
      expect(signals.filter((e) => e.k === 'mm').every((e) => (e.n ?? 1) === 1)).toBe(true)
      expect(result.verdict).toBe('bot')
      expect(result.reasons.some((r) => r.startsWith('pointer_'))).toBe(true)
    }, 90_000)

    it("Playwright's locator.click() (one move onto the element, then the press) is a bot even when its wheel ticks look natural", async () => {
      // seed 2 passed as human_verified on its wheel ticks before the rule (m4-2026.11.16)
      const { result, signals } = await visit('playwright_click', 2)
      expect(result.verdict).toBe('bot')
      const presses = sessionFeatures(signals).presses
      expect(presses.afterJump).toBeGreaterThanOrEqual(3)
      expect(presses.afterJump).toBeGreaterThanOrEqual(0.6 * presses.all)
      const clicks = sessionEvidenceOf(MODEL, sessionFeatures(signals)).filter((e) => e.modality === 'clicks')
      expect(clicks.flatMap((e) => e.codes)).toContain('click_after_jump')
    }, 90_000)

    it("Playwright's pressSequentially with a delay, keys only (the field focused by script), is a bot for a typing behaviour", async () => {
      const { result, signals } = await visit('playwright_type', 0)
      // the page saw keys and nothing else: judged on what it has
      expect(signals.some((e) => e.k === 'mm' || e.k === 'md')).toBe(false)
      expect(signals.filter((e) => e.k === 'kd').length).toBeGreaterThanOrEqual(8)
      expect(result.verdict).toBe('bot')
      expect(result.reasons.some((r) => r.startsWith('typing_'))).toBe(true)
    }, 90_000)

    it('a reading script that only turns the wheel is not verified as a person (insufficient_data), nor flagged', async () => {
      const { result, signals } = await visit('wheel_reader', 0)
      expect(signals.filter((e) => e.k === 's').length).toBeGreaterThanOrEqual(8)
      expect(signals.some((e) => e.k === 'mm' || e.k === 'kd')).toBe(false)
      expect(result.verdict).toBe('insufficient_data')
      expect(result.hcs).toBe(50)
    }, 90_000)
  })
})
