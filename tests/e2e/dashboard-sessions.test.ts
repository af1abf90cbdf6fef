import { describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import { REASON_MEANINGS } from '../../src/scoring/reasons'
import { ingestGenerated, type Result, stored } from './sessions'
import { atBothWidths, demoSessionId, eventually, inBrowser, signIn, watchProblems } from './support'
import { storedBatches } from '../helpers/stored-signals'

// Issues 17 and 18 in Chromium against the real service: a session recorded by the browser SDK on
// the demo page shows up in the list and its detail draws its path; the list pages and filters;
// verdicts over time; labelling, the accuracy figures, the threshold simulator, applying, the
// history and the export. Expected figures are recomputed here from what the service stored.

const cells = (page: Page, selector: string) =>
  page.locator(`${selector} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')))

inBrowser((env) => {
  let demoSession = ''
  let generated: Result[] = []

  describe('sessions, verdicts and labels in the dashboard (Chromium)', () => {
    it('a session recorded by the SDK on the demo page is listed, explained and drawn to scale', async () => {
      const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } })
      const page = await context.newPage()
      const problems = watchProblems(page)
      try {
        // A person on the demo page: a known rectangle of moves, typing, a scroll, a click.
        await page.goto(`${env.server.url}/demo`)
        demoSession = await demoSessionId(page)
        await page.mouse.move(60, 80)
        for (const [x, y] of [
          [460, 120],
          [520, 420],
          [140, 380],
          [300, 200],
        ] as const)
          await page.mouse.move(x, y, { steps: 25 })
        await page.click('#demo-name')
        await page.keyboard.type('Sam 7', { delay: 90 })
        await page.hover('#scroll-area')
        await page.mouse.wheel(0, 120)
        await page.waitForTimeout(150)
        await page.click('#check')
        await page.waitForSelector('#result .verdict', { timeout: 20_000 })
        const result = await stored(env.server, demoSession)
        expect(result.signals).toBeGreaterThan(50)

        // The demo organization's owner signs in and finds it, newest first.
        await signIn(page, env.server, env.server.demo.email, env.server.demo.password)
        await page.getByRole('link', { name: 'Sessions' }).click()
        const link = page.getByRole('link', { name: `Session ${demoSession}` })
        await link.waitFor()
        const [first] = await cells(page, '#sessions-table')
        expect(first![0]).toBe(demoSession.slice(0, 8))
        expect(first![1]).toBe(result.hcs.toFixed(1))
        expect(first![2]).toBe(result.verdict.replace(/_/g, ' '))
        expect(first![3]).toBe(result.reasons.map((c) => REASON_MEANINGS[c]).join('; ') || '—')
        expect(first![4]).toBe(result.signals.toLocaleString('en-US'))
        await atBothWidths(page, 'dashboard-sessions')

        // One session explained.
        await link.click()
        await page.locator('#session-path svg').waitFor()
        const rows = await storedBatches(env.server.deps.db.sql, env.server.demo.org_id, demoSession)
        const signals = rows.flatMap((r) => r.signals ?? [])
        const pointer = signals.filter((s) => ['mm', 'md', 'mu', 'c'].includes(s.k))
        const xs = pointer.map((s) => s.x as number)
        const ys = pointer.map((s) => s.y as number)
        const svg = page.locator('#session-path svg')
        // To scale: the drawing spans exactly the stored positions' extent, in CSS px.
        expect(Number(await svg.getAttribute('data-width'))).toBe(Math.round(Math.max(...xs) - Math.min(...xs)))
        expect(Number(await svg.getAttribute('data-height'))).toBe(Math.round(Math.max(...ys) - Math.min(...ys)))
        // One scale on both axes: the drawn line's on-screen box has the stored extent's proportions.
        const line = (await svg.locator('polyline.path-pointer').boundingBox())!
        const ratio = (Math.max(...xs) - Math.min(...xs)) / (Math.max(...ys) - Math.min(...ys))
        expect(Math.abs(line.width / line.height / ratio - 1)).toBeLessThan(0.03)
        const drawn = (await svg.locator('polyline.path-pointer').getAttribute('points'))!.split(' ').length
        expect(drawn).toBeGreaterThan(20)
        expect(drawn).toBeLessThanOrEqual(Math.min(1000, pointer.length))
        expect(await svg.locator('title').textContent()).toBe('Pointer path, drawn to scale')
        expect(await svg.locator('desc').textContent()).toContain(`spanning ${Math.round(Math.max(...xs) - Math.min(...xs))} ×`)
        expect(await svg.getAttribute('role')).toBe('img')
        // The timeline: key events drawn as classes; the counts table counts every stored event.
        const keyDowns = signals.filter((s) => s.k === 'kd')
        expect(await page.locator('#session-timeline .tick-kd').count()).toBe(keyDowns.length)
        for (const title of await page.locator('#session-timeline .tick-kd title').allTextContents())
          expect(title).toMatch(/^key down \((char|digit|space|mod|back|enter|nav|other)\) at /)
        const counts = Object.fromEntries((await cells(page, '#event-counts')).map(([lane, text]) => [lane, text]))
        expect(counts['Keys (class)']).toContain(`key down ${keyDowns.length}`)
        expect(counts.Moves).toBe(`move ${signals.filter((s) => s.k === 'mm').length.toLocaleString('en-US')}`)
        expect(counts.Scrolls).toBe(`scroll ${signals.filter((s) => s.k === 's').length}`)
        // Reasons in words, with the model version.
        const reasonTexts = await page.locator('#session-reasons li strong').allTextContents()
        expect(reasonTexts).toEqual(result.reasons.map((c) => REASON_MEANINGS[c]!))
        expect(await page.textContent('#session-facts')).toContain(result.model_version)
        expect(JSON.stringify(await page.content())).not.toContain('Sam 7')
        await atBothWidths(page, 'dashboard-session')

        // Labelled bot with a note: shown at once, and stored (the REST result carries it).
        await page.getByLabel('Note (optional)').fill('our QA script')
        await page.getByRole('button', { name: 'Label as bot' }).click()
        await eventually(async () => (await page.textContent('#label-current'))?.startsWith('Labelled bot'), 'the label')
        expect(await page.textContent('#label-current')).toContain('our QA script')
        expect((await stored(env.server, demoSession)).label).toBe('bot')
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)

    it('pages by cursor, filters by verdict and label, and shows verdicts over time with their numbers', async () => {
      generated = await ingestGenerated(env.server, 27)
      const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      const problems = watchProblems(page)
      try {
        await signIn(page, env.server, env.server.demo.email, env.server.demo.password)
        const all = [...generated.map((g) => g.session_id), demoSession]
        // Overview: the last 7 days hold every session; the table's numbers are the service's.
        await page.getByRole('button', { name: '7 days' }).click()
        await eventually(
          async () => (await page.textContent('#stats-total')) === `${all.length} sessions in the last 7 days.`,
          'the 7-day total'
        )
        const days = await cells(page, '#days-table')
        expect(days).toHaveLength(7)
        expect(days.reduce((n, d) => n + Number(d[6]), 0)).toBe(all.length)
        const results = await Promise.all(all.map((id) => stored(env.server, id)))
        const today = days[days.length - 1]!
        const byVerdict = (v: string) => results.filter((r) => r.verdict === v).length
        expect(today.slice(1, 5).map(Number)).toEqual([
          byVerdict('human_verified'),
          byVerdict('suspicious'),
          byVerdict('bot'),
          byVerdict('insufficient_data'),
        ])
        const bands = await cells(page, '#hcs-table')
        expect(bands).toHaveLength(10)
        bands.forEach((band, i) => {
          const inBand = results.filter((r) => Math.min(9, Math.floor(r.hcs / 10)) === i).length
          expect([band[0], Number(band[1])]).toEqual([band[0]!, inBand])
        })
        expect(await page.locator('#chart-days svg rect').count()).toBeGreaterThan(0)
        expect(await page.locator('#chart-days svg title').first().textContent()).toBe('Sessions per day by verdict, last 7 days')
        await atBothWidths(page, 'dashboard-overview')

        // 28 sessions: 25, then the rest after "Load more", newest first, none twice.
        await page.getByRole('link', { name: 'Sessions' }).click()
        const rows = page.locator('#sessions-table tbody tr')
        await eventually(async () => (await rows.count()) === 25, 'the first page')
        await page.getByRole('button', { name: 'Load more sessions' }).click()
        await eventually(async () => (await rows.count()) === all.length, 'every session')
        const shown = await rows.evaluateAll((trs) =>
          trs.map((tr) => tr.querySelector('a')!.getAttribute('href')!.replace('#session/', ''))
        )
        expect(new Set(shown)).toEqual(new Set(all))
        expect(shown[shown.length - 1]).toBe(demoSession)
        expect(await page.getByRole('button', { name: 'Load more sessions' }).count()).toBe(0)

        // Filters: by label (only the demo session is labelled), then by verdict.
        await page.getByLabel('Label').selectOption('bot')
        await page.getByRole('button', { name: 'Show' }).click()
        await eventually(async () => (await rows.count()) === 1, 'the labelled session')
        expect(await rows.first().locator('a').getAttribute('href')).toBe(`#session/${demoSession}`)
        await page.getByLabel('Label').selectOption('')
        const verdict = results[0]!.verdict
        await page.getByLabel('Verdict').selectOption(verdict)
        await page.getByRole('button', { name: 'Show' }).click()
        await eventually(async () => (await rows.count()) === Math.min(25, byVerdict(verdict)), `the ${verdict} sessions`)
        expect(new Set(await page.locator('#sessions-table tbody .badge').allTextContents())).toEqual(new Set([verdict.replace(/_/g, ' ')]))
        // A day range that ends before today shows none.
        await page.getByLabel('Verdict').selectOption('')
        await page.getByLabel('To (UTC day, included)').fill('2020-01-01')
        await page.getByRole('button', { name: 'Show' }).click()
        await page.getByText('No sessions match.', { exact: false }).waitFor()
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)
  })
})
