import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

// Database set-up (argon2, migrations) is slow on a loaded machine; nothing here asserts on time.
setDefaultTimeout(60_000)

let h: Harness
let n = 0
beforeAll(async () => {
  h = await createHarness({ env: { TRUST_PROXY: 'true' } })
}, 60_000)
afterAll(() => h.close())

const features = (value = 0.5) => Array.from({ length: 34 }, (_, i) => value + i / 100)
const freshIp = () => `198.51.100.${++n}`
const score = (body: unknown, ip = freshIp(), headers: Record<string, string> = {}) =>
  h.json('POST', '/v1/demo/live-score', { body, headers: { 'x-forwarded-for': ip, ...headers } })
const counts = async () => {
  const [row] = await h.deps.db.sql`
    select (select count(*) from sessions)::int as sessions, (select count(*) from session_batches)::int as batches,
           (select count(*) from usage_counters)::int as counters`
  return row
}

describe('POST /v1/demo/live-score', () => {
  it('scores 34 features without a credential and stores nothing', async () => {
    const before = await counts()
    const res = await score({ features: features() })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['hcs', 'm3_score', 'model_version', 'verdict'])
    expect(res.body.hcs).toBeGreaterThanOrEqual(0)
    expect(res.body.hcs).toBeLessThanOrEqual(100)
    expect(res.body.m3_score).toBeGreaterThanOrEqual(0)
    expect(res.body.m3_score).toBeLessThanOrEqual(1)
    expect(['human_verified', 'suspicious', 'bot', 'insufficient_data']).toContain(res.body.verdict)
    expect(res.body.model_version).toBeString()
    expect(res.headers.get('ratelimit-limit')).toBe('60')
    expect(await counts()).toEqual(before)
  })

  it('gives the same answer for the same features', async () => {
    const a = await score({ features: features(0.2) })
    const b = await score({ features: features(0.2) })
    expect(a.body).toEqual(b.body)
  })

  it('ignores a credential and unknown fields', async () => {
    const res = await score({ features: features(), session_id: 'x', org_id: h.a.orgId }, freshIp(), { 'x-api-key': h.a.secretKey })
    expect(res.status).toBe(200)
    expect(await counts()).toMatchObject({ sessions: 0, counters: 0 })
  })

  const invalid: [string, unknown][] = [
    ['missing features', {}],
    ['features not an array', { features: 'x' }],
    ['features an object', { features: { 0: 1 } }],
    ['33 features', { features: features().slice(1) }],
    ['35 features', { features: [...features(), 1] }],
    ['no features', { features: [] }],
    ['a string feature', { features: [...features().slice(1), '1'] }],
    ['a null feature', { features: [null, ...features().slice(1)] }],
    ['a nested array feature', { features: [[1], ...features().slice(1)] }],
  ]
  for (const [name, body] of invalid) {
    it(`answers 400 validation_failed for ${name}`, async () => {
      const res = await score(body)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details[0].path).toStartWith('features')
    })
  }

  it('answers 400 for a feature that is not finite (1e400 parses as Infinity)', async () => {
    const raw = `{"features":[1e400${',0'.repeat(33)}]}`
    const res = await h.json('POST', '/v1/demo/live-score', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
    })
    expect(res.status).toBe(400)
    expect(res.body.error.details[0].path).toBe('features[0]')
  })

  it('answers 400 invalid_json, 415 and 400 for a non-object body', async () => {
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': freshIp() }
    expect((await h.json('POST', '/v1/demo/live-score', { rawBody: '{"features":[', headers })).body.error.code).toBe('invalid_json')
    expect((await h.json('POST', '/v1/demo/live-score', { rawBody: '{}', headers: { 'content-type': 'text/plain' } })).status).toBe(415)
    expect((await score([features()])).status).toBe(400)
    expect((await score(null)).status).toBe(400)
  })

  it('answers 429 to the 61st call in a minute from one IP, with Retry-After and RateLimit-*, and not to another IP', async () => {
    const ip = freshIp()
    for (let i = 0; i < 60; i++) {
      const res = await score({ features: features() }, ip)
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-remaining')).toBe(String(59 - i))
    }
    const refused = await score({ features: features() }, ip)
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('ratelimit-limit')).toBe('60')
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
    expect((await score({ features: features() }, freshIp())).status).toBe(200)
    // A token comes back every second (60/min).
    h.clock.advance(1000)
    expect((await score({ features: features() }, ip)).status).toBe(200)
    expect((await score({ features: features() }, ip)).status).toBe(429)
  })

  it('counts malformed calls toward the limit', async () => {
    const ip = freshIp()
    for (let i = 0; i < 60; i++) await score({ features: [] }, ip)
    expect((await score({ features: features() }, ip)).status).toBe(429)
  })
})
