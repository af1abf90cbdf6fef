import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { createUser } from '../../tenants/provision'
import { ingestGenerated, pct, type Result, stored, wilson } from './sessions'
import { atBothWidths, eventually, inBrowser, signIn, watchProblems } from './support'

// Issue 18 in Chromium against the real service: labels given on the session page, the accuracy
// figures with their intervals, the threshold simulator moving live, applying with confirmation,
// the history, the export download; a member sees it read-only. Every expected figure is recomputed
// here from the stored results (GET /v1/session) and the labels this test gave.

const JUDGED = new Set(['human_verified', 'suspicious', 'bot'])
/** The verdict a stored result would get at other thresholds (insufficient data and unscored stay as they are). */
const verdictAt = (r: Result, botBelow: number, humanAbove: number) =>
  !JUDGED.has(r.verdict) ? r.verdict : r.hcs >= humanAbove ? 'human_verified' : r.hcs >= botBelow ? 'suspicious' : 'bot'

function expectedRates(results: Result[], labels: Map<string, 'human' | 'bot'>, botBelow: number, humanAbove: number) {
  const judged = results.filter((r) => labels.has(r.session_id) && JUDGED.has(r.verdict))
  const humans = judged.filter((r) => labels.get(r.session_id) === 'human')
  const bots = judged.filter((r) => labels.get(r.session_id) === 'bot')
  const row = (what: string, k: number, n: number, of: string) => {
    const [low, high] = wilson(k, n)
    return [what, `${k} of ${n} ${of}${n === 1 ? '' : 's'}`, pct(k / n), `${pct(low)} – ${pct(high)}`]
  }
  return [
    row('Humans called bot', humans.filter((r) => verdictAt(r, botBelow, humanAbove) === 'bot').length, humans.length, 'labelled human'),
    row(
      'Humans called suspicious',
      humans.filter((r) => verdictAt(r, botBelow, humanAbove) === 'suspicious').length,
      humans.length,
      'labelled human'
    ),
    row(
      'Bots let through (called human)',
      bots.filter((r) => verdictAt(r, botBelow, humanAbove) === 'human_verified').length,
      bots.length,
      'labelled bot'
    ),
  ]
}

const cells = (page: Page, selector: string) =>
  page.locator(`${selector} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')))

inBrowser((env) => {
  describe('labels, accuracy and thresholds in the dashboard (Chromium)', () => {
    it('labels sessions, shows the measured rates, simulates live, applies with confirmation, lists the history, exports', async () => {
      const results = await ingestGenerated(env.server, 24)
      // The two highest scores are labelled on the session page, one human and one bot; the rest over REST, alternately.
      const byScore = [...results].sort((a, b) => b.hcs - a.hcs)
      const labels = new Map<string, 'human' | 'bot'>()
      const viaPage: [Result, 'human' | 'bot'][] = [
        [byScore[0]!, 'human'],
        [byScore[1]!, 'bot'],
      ]
      for (const [i, r] of byScore.slice(2, 16).entries()) {
        const label = i % 2 ? 'bot' : 'human'
        const res = await fetch(`${env.server.url}/v1/session/${r.session_id}/label`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': env.server.demo.secret_key },
          body: JSON.stringify({ label }),
        })
        expect(res.status).toBe(200)
        labels.set(r.session_id, label)
      }

      const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
      const page = await context.newPage()
      const problems = watchProblems(page)
      const dialogs: string[] = []
      page.on('dialog', (d) => {
        dialogs.push(d.message())
        void d.accept()
      })
      try {
        await signIn(page, env.server, env.server.demo.email, env.server.demo.password)
        for (const [r, label] of viaPage) {
          await page.goto(`${env.server.url}/dashboard#session/${r.session_id}`)
          await page.getByRole('button', { name: `Label as ${label}` }).click()
          await eventually(async () => (await page.textContent('#label-current'))?.startsWith(`Labelled ${label}`), 'the label')
          expect(await page.getAttribute(`#label-form button[value="${label}"]`, 'aria-pressed')).toBe('true')
          expect((await stored(env.server, r.session_id)).label).toBe(label)
          labels.set(r.session_id, label)
        }

        // The measured rates at the current thresholds (30/70), with their intervals and what they rest on.
        await page.getByRole('link', { name: 'Accuracy' }).click()
        await page.locator('#rates-table').waitFor()
        expect(await cells(page, '#rates-table')).toEqual(expectedRates(results, labels, 30, 70))
        const humans = [...labels.values()].filter((l) => l === 'human').length
        expect(await page.textContent('#rates-basis')).toBe(
          `Based on ${humans} sessions labelled human and ${labels.size - humans} sessions labelled bot; thresholds: bot below 30, human verified from 70.`
        )

        // The simulator: a slider moved, the figures follow (debounced), recomputed here from the stored scores.
        await page.locator('#sim-figures table').first().waitFor()
        const botBelow = 10
        await page.locator('#sim-bot').fill(String(botBelow))
        await page.locator('#sim-human').focus()
        for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft')
        await eventually(
          async () =>
            (await page.getAttribute('#sim-figures', 'data-bot')) === String(botBelow) &&
            (await page.getAttribute('#sim-figures', 'data-human')) === '65',
          'the simulated figures'
        )
        expect(await page.textContent('#sim-bot-value')).toBe(String(botBelow))
        expect(await page.textContent('#sim-human-value')).toBe('65')
        expect(await cells(page, '#sim-rates')).toEqual(expectedRates(results, labels, botBelow, 65))
        const count = (v: string, at: (r: Result) => string) => String(results.filter((r) => at(r) === v).length)
        expect(await cells(page, '#sim-verdicts')).toEqual(
          (
            [
              ['human verified', 'human_verified'],
              ['suspicious', 'suspicious'],
              ['bot', 'bot'],
              ['insufficient data', 'insufficient_data'],
              ['not scored yet', 'unscored'],
            ] as const
          ).map(([words, v]) => [words, count(v, (r) => verdictAt(r, botBelow, 65)), count(v, (r) => r.verdict)])
        )
        await atBothWidths(page, 'dashboard-accuracy')

        // Apply, confirmed: the history says who changed what, and new verdicts use the new thresholds.
        await page.getByRole('button', { name: 'Apply these thresholds' }).click()
        await eventually(async () => (await page.locator('#history-table tbody tr').count()) === 1, 'the history row')
        expect(dialogs.at(-1)).toContain(`bot below ${botBelow}, human verified from 65`)
        const [change] = await cells(page, '#history-table')
        expect(change!.slice(1)).toEqual([env.server.demo.email, '30 / 70', `${botBelow} / 65`])
        await eventually(
          async () => (await page.textContent('#rates-basis'))?.includes(`bot below ${botBelow}, human verified from 65`),
          'the rates at the new thresholds'
        )
        expect(await page.isDisabled('#sim-apply')).toBe(true)
        const [later] = await ingestGenerated(env.server, 1)
        expect(later!.verdict).toBe(verdictAt(later!, botBelow, 65))

        // The export: every labelled session once, with its label and stored signals.
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Download the export' }).click(),
        ])
        expect(download.suggestedFilename()).toMatch(/^labelled-sessions-\d{4}-\d{2}-\d{2}\.ndjson$/)
        const lines = readFileSync((await download.path())!, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { session_id: string; label: string; signals: unknown[] })
        expect(new Map(lines.map((l) => [l.session_id, l.label]))).toEqual(labels)
        expect(lines).toHaveLength(labels.size)
        for (const l of lines) expect(l.signals.length).toBe(results.find((r) => r.session_id === l.session_id)!.signals)
        await eventually(
          async () => (await page.textContent('#messages')) === `Export downloaded: ${labels.size} labelled sessions.`,
          'the export message'
        )
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)

    it('a member sees the figures read-only: no sliders to move, no apply, no export', async () => {
      const email = `member-${crypto.randomUUID().slice(0, 8)}@example.test`
      const password = 'member-password-1'
      await createUser(env.server.deps.db.sql, { orgId: env.server.demo.org_id, email, password, role: 'member' })
      const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      const problems = watchProblems(page)
      try {
        await signIn(page, env.server, email, password)
        await page.getByRole('link', { name: 'Accuracy' }).click()
        await page.locator('#sim-figures table').first().waitFor()
        expect(await page.isDisabled('#sim-bot')).toBe(true)
        expect(await page.isDisabled('#sim-human')).toBe(true)
        expect(await page.locator('#sim-apply').count()).toBe(0)
        expect(await page.locator('#export-labels').count()).toBe(0)
        expect(await page.textContent('#simulator')).toContain('Read-only')
        await page.locator('#rates-table').waitFor()
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 60_000)
  })
})
