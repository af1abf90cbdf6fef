// The SDK's feature vector against the real ingest path, without a browser: the batches a
// collector makes for a synthetic human (a multi-page visit with a network hiccup, more than
// FEATURE_WINDOW signals in all) go through POST /v1/ingest in the order they were handed to the
// network, and the service must never find the client's vector at odds with its own.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { FEATURE_WINDOW } from '../../src/scoring/features'
import type { Signal } from '../../src/scoring/signals'
import { humanSession } from '../../ml/synth/human'
import { createRng } from '../../ml/synth/prng'
import { createHarness, type Harness } from '../helpers/harness'
import { midMonth } from '../ingest/support'
import { collectorWith, fakeEnv, memoryStorage, ok } from './fake-env'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
}, 60_000)
afterAll(() => h.close())

/** Desktop visits of synthetic humans, one after the other with a pause between, until `min` signals. */
function visitSignals(min: number): Signal[][] {
  const pages: Signal[][] = []
  let total = 0
  let offset = 1000
  for (let seed = 1; total < min; seed++) {
    const page = humanSession(createRng(seed))
    if (!page.some((s) => s.k === 'mm')) continue
    const base = offset - page[0]!.t
    pages.push(page.map((s) => ({ ...s, t: s.t + base })))
    total += page.length
    offset = base + page.at(-1)!.t + 1500
  }
  return pages
}

describe('SDK feature vector through POST /v1/ingest', () => {
  it('a multi-page human session with a network outage never gets feature_mismatch', async () => {
    const fake = fakeEnv(h.clock.now().getTime())
    const storage = memoryStorage()
    /** bodies in the order the service receives them: accepted fetches and beacons */
    const delivered: string[] = []
    let posts = 0
    fake.env.post = async (_url, body) => {
      posts++
      // A short outage: the 4th to 8th requests fail (about 20 s), so events pile up (more than one batch) meanwhile.
      if (posts >= 4 && posts <= 8) return ok(503)
      delivered.push(body)
      return ok(202)
    }
    fake.env.beacon = (_url, body) => {
      delivered.push(body)
      return true
    }

    const pages = visitSignals(FEATURE_WINDOW + 1500)
    const recorded = pages.reduce((n, p) => n + p.length, 0)
    // The tab navigates in the middle: pages before it are one page load, the rest the next.
    const navigateAt = Math.ceil(pages.length / 2)
    let tab = collectorWith({}, { fake, storage })
    const start = tab.session.get().start
    for (let i = 0; i < pages.length; i++) {
      if (i === navigateAt) {
        tab.collector.stop() // pagehide: the rest goes by sendBeacon
        tab = collectorWith({}, { fake, storage })
        expect(tab.session.get().start).toBe(start)
      }
      for (const { t, ...fields } of pages[i]!) {
        await fake.advance(Math.max(0, start + t - fake.now))
        tab.collector.record(fields, start + t)
      }
    }
    await fake.advance(10_000)
    tab.collector.stop()
    expect(posts).toBeGreaterThan(8)

    const results: { status: number; reasons: string[]; signals: number }[] = []
    for (const body of delivered) {
      h.clock.current = new Date(JSON.parse(body).captured_at)
      const res = await h.json('POST', '/v1/ingest', {
        rawBody: body,
        headers: { 'content-type': 'application/json', 'x-api-key': h.a.secretKey },
      })
      results.push({ status: res.status, reasons: res.body.reasons, signals: res.body.signals })
    }
    expect(results.every((r) => r.status === 200)).toBe(true)
    expect(results.at(-1)!.signals).toBe(recorded)
    expect(recorded).toBeGreaterThan(FEATURE_WINDOW)
    const mismatched = results.flatMap((r, i) =>
      r.reasons.includes('feature_mismatch') ? [`batch ${i + 1} (${r.signals} signals stored)`] : []
    )
    expect(mismatched).toEqual([])
  }, 120_000)
})
