import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'
import { FEATURES, ingest, makeBatch, makeSignals, rowCounts, withKey } from './support'
import { storedBatches } from '../helpers/stored-signals'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h.close())

const minutes = (n: number) => n * 60_000
const at = (offsetMs: number) => new Date(h.clock.now().getTime() + offsetMs).toISOString()
const withEvent = (index: number, patch: Record<string, unknown>) => () => {
  const signals = makeSignals(20)
  signals[index] = { ...signals[index], ...patch }
  return { signals }
}
// undefined disappears in JSON.stringify: the field is absent from the body sent.
const without = (field: string) => () => ({ [field]: undefined })

// Each row: a body built from a valid batch with one field broken, and the path the error must name.
const cases: [string, () => Record<string, unknown>, string][] = [
  ['session_id missing', without('session_id'), 'session_id'],
  ['session_id not a UUID', () => ({ session_id: 'session-1' }), 'session_id'],
  ['session_id UUID with trailing text', () => ({ session_id: crypto.randomUUID() + 'x' }), 'session_id'],
  ['session_id a number', () => ({ session_id: 42 }), 'session_id'],
  ['sdk_type missing', without('sdk_type'), 'sdk_type'],
  ['sdk_type unknown', () => ({ sdk_type: 'desktop' }), 'sdk_type'],
  ['sdk_type upper case', () => ({ sdk_type: 'WEB' }), 'sdk_type'],
  ['captured_at missing', without('captured_at'), 'captured_at'],
  ['captured_at not a time', () => ({ captured_at: 'yesterday' }), 'captured_at'],
  ['captured_at with an offset instead of Z', () => ({ captured_at: '2026-01-01T10:00:00+01:00' }), 'captured_at'],
  ['captured_at an impossible date', () => ({ captured_at: `${at(0).slice(0, 4)}-02-31T00:00:00Z` }), 'captured_at'],
  ['captured_at a number', () => ({ captured_at: Date.now() }), 'captured_at'],
  ['captured_at 6 minutes in the future', () => ({ captured_at: at(minutes(6)) }), 'captured_at'],
  ['captured_at 31 days old', () => ({ captured_at: at(-minutes(31 * 24 * 60)) }), 'captured_at'],
  ['signals missing', without('signals'), 'signals'],
  ['signals not an array', () => ({ signals: { t: 0, k: 'mm' } }), 'signals'],
  ['signals over 10,000 events', () => ({ signals: makeSignals(10_001) }), 'signals'],
  ['event not an object', () => ({ signals: [{ t: 0, k: 'mm' }, 'mm'] }), 'signals[1]'],
  ['event without k', () => ({ signals: [{ t: 0, k: 'mm' }, { t: 1 }] }), 'signals[1].k'],
  ['event with an unknown k', withEvent(12, { k: 'zz' }), 'signals[12].k'],
  ['event without t', () => ({ signals: [{ k: 'mm' }] }), 'signals[0].t'],
  ['event t negative', withEvent(0, { t: -1 }), 'signals[0].t'],
  ['event t a string', withEvent(4, { t: '40' }), 'signals[4].t'],
  ['event t going back in time', withEvent(7, { t: 1 }), 'signals[7].t'],
  ['event x a string', withEvent(5, { x: '10px' }), 'signals[5].x'],
  ['event y null', withEvent(5, { y: null }), 'signals[5].y'],
  ['event dy a boolean', withEvent(9, { dy: true }), 'signals[9].dy'],
  ['event kc a key value', withEvent(7, { kc: 'a' }), 'signals[7].kc'],
  ['event tr a string', withEvent(2, { tr: 'yes' }), 'signals[2].tr'],
  ['event sc 2', withEvent(2, { sc: 2 }), 'signals[2].sc'],
  ['event ox a string', withEvent(6, { ox: 'left' }), 'signals[6].ox'],
  ['event oy an object', withEvent(6, { oy: {} }), 'signals[6].oy'],
  ['event p an array', withEvent(1, { p: [0.5] }), 'signals[1].p'],
  ['event r a string', withEvent(1, { r: '3' }), 'signals[1].r'],
  ['event n a string', withEvent(1, { n: '2' }), 'signals[1].n'],
  ['features missing', without('features'), 'features'],
  ['features 33 numbers', () => ({ features: FEATURES.slice(1) }), 'features'],
  ['features 35 numbers', () => ({ features: [...FEATURES, 1] }), 'features'],
  ['features holding a string', () => ({ features: ['1', ...FEATURES.slice(1)] }), 'features[0]'],
  ['features not an array', () => ({ features: 0.5 }), 'features'],
]

describe('POST /v1/ingest validation', () => {
  it.each(cases)('%s → 400 validation_failed naming the field', async (_name, patch, path) => {
    const before = await rowCounts(h, h.a)
    const res = await ingest(h, h.a.secretKey, { ...makeBatch(h), ...patch() })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('validation_failed')
    expect(res.body.error.details[0].path).toBe(path)
    expect(await rowCounts(h, h.a)).toEqual(before)
  })

  it('refuses a feature that is not finite (1e999 parses to Infinity)', async () => {
    const body = JSON.stringify(makeBatch(h)).replace(/"features":\[[^\]]*\]/, `"features":[1e999${',0'.repeat(33)}]`)
    const res = await h.json('POST', '/v1/ingest', {
      rawBody: body,
      headers: { ...withKey(h.a.secretKey), 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error.details[0].path).toBe('features[0]')
  })

  it('names only the first bad event, however many there are', async () => {
    const signals = makeSignals(10_000).map((e, i) => (i >= 100 ? { ...e, k: 'nope' } : e))
    const res = await ingest(h, h.a.secretKey, makeBatch(h, { signals }))
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual([{ path: 'signals[100].k', message: expect.any(String) }])
  })

  it('names every bad top-level field at once', async () => {
    const res = await ingest(h, h.a.secretKey, { session_id: 'x', sdk_type: 'web', captured_at: 'now', signals: [], features: [] })
    expect(res.status).toBe(400)
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['session_id', 'captured_at', 'features'])
  })

  it('accepts exactly 10,000 events, an empty batch, fractional seconds and an upper-case UUID', async () => {
    const big = await ingest(h, h.a.secretKey, makeBatch(h, { signals: makeSignals(10_000) }))
    expect(big.status).toBe(200)
    expect(big.body.signals).toBe(10_000)
    const id = crypto.randomUUID()
    const empty = await ingest(
      h,
      h.a.secretKey,
      makeBatch(h, { session_id: id.toUpperCase(), signals: [], captured_at: at(minutes(4)).replace(/\.\d+Z$/, 'Z') })
    )
    expect(empty.status).toBe(200)
    expect(empty.body.session_id).toBe(id)
    expect(empty.body.signals).toBe(0)
  })

  it('drops unknown fields of events and of the body instead of storing them', async () => {
    const id = crypto.randomUUID()
    const signals = makeSignals(10).map((e) => ({ ...e, key: 'a', secret: 'hunter2' }))
    const res = await ingest(h, h.a.secretKey, makeBatch(h, { session_id: id, signals, extra: 'x' }))
    expect(res.status).toBe(200)
    const [row] = await storedBatches(h.deps.db.sql, h.a.orgId, id)
    expect(row!.signals).toEqual(makeSignals(10) as any)
    expect(JSON.stringify(row!.signals)).not.toContain('hunter2')
  })
})

describe('POST /v1/ingest body handling', () => {
  it('answers 413 for a 1.5 MiB body', async () => {
    const body = JSON.stringify(makeBatch(h, { pad: 'x'.repeat(1.5 * 1024 * 1024) }))
    const res = await h.json('POST', '/v1/ingest', {
      rawBody: body,
      headers: { ...withKey(h.a.secretKey), 'content-type': 'application/json' },
    })
    expect(res.status).toBe(413)
    expect(res.body.error.code).toBe('payload_too_large')
  })

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const res = await h.json('POST', '/v1/ingest', {
      rawBody: '{"session_id": ',
      headers: { ...withKey(h.a.secretKey), 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('invalid_json')
  })

  it('answers 415 for a body that is not sent as JSON', async () => {
    const res = await h.json('POST', '/v1/ingest', {
      rawBody: JSON.stringify(makeBatch(h)),
      headers: { ...withKey(h.a.secretKey), 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(415)
    expect(res.body.error.code).toBe('unsupported_media_type')
  })

  it('takes text/plain only on the sendBeacon path, not elsewhere', async () => {
    const res = await h.json('POST', '/v1/support/tickets', {
      rawBody: JSON.stringify({ subject: 's', message: 'm' }),
      headers: { ...withKey(h.a.secretKey), 'content-type': 'text/plain' },
    })
    expect(res.status).toBe(415)
  })
})

describe('GET /v1/session/:session_id validation', () => {
  it('answers 400 validation_failed for an id that is not a UUID', async () => {
    const res = await h.json('GET', '/v1/session/not-a-uuid', { headers: withKey(h.a.secretKey) })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('validation_failed')
    expect(res.body.error.details[0].path).toBe('session_id')
  })
})
