// The SDK's feature vector against the real ingest path, without a browser: the batches a
// collector makes for a synthetic human (a multi-page visit with a network hiccup, more than
// FEATURE_WINDOW signals in all) go through POST /v1/ingest in the order they were handed to the
// network, and the service must never find the client's vector at odds with its own.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { FEATURE_WINDOW } from '../../src/scoring/features'
import type { Signal } from '../../src/scoring/signals'
import { loadReal } from '../../ml/data/load'
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

  it('a beacon lost (or refused) as a page closes: later batches are not called a mismatch', async () => {
    // sendBeacon has no answer, so the SDK counts a lost beacon's signals as sent and every later vector
    // covers signals the service never stored. With fewer than FEATURE_WINDOW stored, the service sees
    // the client counted more events than it holds and does not judge the vector (integrity.ts). Real
    // people (SapiMouse windows), each a visit of two page loads whose first one's last batch is lost.
    const people = loadReal('sapimouse').filter((w, i) => i % 9 === 0 && w.signals.length < 3000 && w.signals.length > 800)
    expect(people.length).toBeGreaterThan(20)
    let lostSignals = 0
    let after = 0
    const mismatched: string[] = []
    for (const person of people) {
      const fake = fakeEnv(h.clock.now().getTime())
      const storage = memoryStorage()
      const delivered: string[] = []
      let lostAt = -1
      fake.env.post = async (_url, body) => {
        delivered.push(body)
        return ok(202)
      }
      fake.env.beacon = (_url, body) => {
        lostSignals += JSON.parse(body).signals.length
        if (lostAt < 0) lostAt = delivered.length
        return true
      }
      // only full batches are sent while the page is open, so a batch's worth waits when it closes
      const options = { flushIntervalMs: 600_000 }
      let tab = collectorWith(options, { fake, storage })
      const start = tab.session.get().start
      const signals = person.signals
      const navigateAt = signals[Math.floor(signals.length / 2)]!.t
      let navigated = false
      for (const { t, ...fields } of signals) {
        if (!navigated && t >= navigateAt) {
          navigated = true
          tab.collector.stop()
          tab = collectorWith(options, { fake, storage })
        }
        await fake.advance(Math.max(0, start + t - fake.now))
        tab.collector.record(fields, start + t)
      }
      tab.collector.stop()
      for (const [i, body] of delivered.entries()) {
        h.clock.current = new Date(JSON.parse(body).captured_at)
        const res = await h.json('POST', '/v1/ingest', {
          rawBody: body,
          headers: { 'content-type': 'application/json', 'x-api-key': h.a.secretKey },
        })
        expect(res.status).toBe(200)
        if (lostAt >= 0 && i >= lostAt) after++
        if (res.body.reasons.includes('feature_mismatch')) mismatched.push(`${person.user} batch ${i + 1}`)
      }
    }
    expect(lostSignals).toBeGreaterThan(people.length * 50)
    expect(after).toBeGreaterThan(people.length)
    expect(mismatched).toEqual([])
  }, 120_000)
})
