import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { Elysia } from 'elysia'
import { httpPipeline } from '../../src/server/http'
import { authPlugin } from '../../src/server/plugins/auth'
import { rateLimitPlugin } from '../../src/server/plugins/ratelimit'
import { createHarness, type Harness } from '../helpers/harness'
import { secondSecretKey } from './seed-key'

// Probe routes on the real plugins; the endpoints' own tests check that each route is limited.
let h: Harness
let app: Elysia<any, any, any, any, any, any, any>
beforeAll(async () => {
  h = await createHarness({
    env: { TRUST_PROXY: 'true', RATE_LIMIT_KEY_PER_MIN: '7', RATE_LIMIT_ORG_PER_MIN: '9', RATE_LIMIT_IP_PER_MIN: '4' },
  })
  await h.deps.db
    .sql`insert into plans (plan_id, display_name, sessions_limit, rate_limit_per_minute) values ('nolimit', 'No override', 10, null)`
  app = new Elysia()
    .use(httpPipeline(h.deps))
    .use(authPlugin(h.deps.credentials))
    .use(rateLimitPlugin(h.deps))
    .get('/ip', () => ({ ok: true }), { rateLimit: { scope: 'ip', name: 'probe-ip' } })
    .get('/ip-other', () => ({ ok: true }), { rateLimit: { scope: 'ip', name: 'probe-other' } })
    .get('/ip-two', () => ({ ok: true }), { rateLimit: { scope: 'ip', name: 'probe-two', perMinute: 2 } })
    .get('/key', ({ principal }) => ({ org: principal.orgId }), { auth: ['secret', 'jwt'], rateLimit: { scope: 'key' } })
    .get('/key-two', ({ principal }) => ({ org: principal.orgId }), {
      rateLimit: { scope: 'key', name: 'two', perMinute: 2 },
      auth: ['secret', 'jwt'],
    })
    .get('/org-two', ({ principal }) => ({ org: principal.orgId }), {
      auth: ['secret', 'jwt'],
      rateLimit: { scope: 'org', name: 'org-two', perMinute: 2 },
    })
}, 60_000)
afterAll(() => h.close())

// Database set-up (argon2, migrations) is slow on a loaded machine; nothing here asserts on time.
setDefaultTimeout(60_000)

const get = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }))
const ip = (address: string) => ({ 'x-forwarded-for': address })

describe('per-IP scope', () => {
  it('sends RateLimit-* headers on allowed responses', async () => {
    const res = await get('/ip', ip('10.0.0.1'))
    expect(res.status).toBe(200)
    expect(res.headers.get('ratelimit-limit')).toBe('4')
    expect(res.headers.get('ratelimit-remaining')).toBe('3')
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
  })

  it('answers 429 rate_limited with Retry-After once the bucket is empty; another IP is unaffected', async () => {
    for (let i = 0; i < 2; i++) expect((await get('/ip-two', ip('10.0.0.2'))).status).toBe(200)
    const refused = await get('/ip-two', ip('10.0.0.2'))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(refused.headers.get('ratelimit-limit')).toBe('2')
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    expect(refused.headers.get('x-request-id')).toBeString()
    const body = await refused.json()
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.request_id).toBe(refused.headers.get('x-request-id'))
    expect((await get('/ip-two', ip('10.0.0.3'))).status).toBe(200)
  })

  it('gives each named limit its own bucket', async () => {
    for (let i = 0; i < 4; i++) expect((await get('/ip', ip('10.0.1.1'))).status).toBe(200)
    expect((await get('/ip', ip('10.0.1.1'))).status).toBe(429)
    expect((await get('/ip-other', ip('10.0.1.1'))).status).toBe(200)
  })

  it('refills with time', async () => {
    for (let i = 0; i < 2; i++) await get('/ip-two', ip('10.0.2.1'))
    expect((await get('/ip-two', ip('10.0.2.1'))).status).toBe(429)
    h.clock.advance(30_000)
    expect((await get('/ip-two', ip('10.0.2.1'))).status).toBe(200)
    expect((await get('/ip-two', ip('10.0.2.1'))).status).toBe(429)
  })
})

describe('per-key and per-organization scope', () => {
  it('limits each API key on its own', async () => {
    const other = await h.seedOrg('Key Probe')
    for (let i = 0; i < 2; i++) expect((await get('/key-two', { 'x-api-key': other.secretKey })).status).toBe(200)
    const refused = await get('/key-two', { 'x-api-key': other.secretKey })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBeString()
    expect((await get('/key-two', { 'x-api-key': h.b.secretKey })).status).toBe(200)
  })

  it('limits a dashboard user apart from the organization’s API keys', async () => {
    const other = await h.seedOrg('User Probe')
    for (let i = 0; i < 2; i++) await get('/key-two', { 'x-api-key': other.secretKey })
    expect((await get('/key-two', { 'x-api-key': other.secretKey })).status).toBe(429)
    expect((await get('/key-two', { authorization: `Bearer ${other.jwt}` })).status).toBe(200)
  })

  it('shares the organization bucket between its credentials, not with other organizations', async () => {
    const org = await h.seedOrg('Org Probe')
    expect((await get('/org-two', { 'x-api-key': org.secretKey })).status).toBe(200)
    expect((await get('/org-two', { authorization: `Bearer ${org.jwt}` })).status).toBe(200)
    expect((await get('/org-two', { 'x-api-key': org.secretKey })).status).toBe(429)
    expect((await get('/org-two', { 'x-api-key': h.a.secretKey })).status).toBe(200)
  })

  it('takes the per-key limit from the plan, else from RATE_LIMIT_KEY_PER_MIN', async () => {
    const starter = await h.seedOrg('Starter Probe', 'starter')
    const res = await get('/key', { 'x-api-key': starter.secretKey })
    expect(res.headers.get('ratelimit-limit')).toBe('1200')
    const free = await get('/key', { 'x-api-key': h.a.secretKey })
    expect(free.headers.get('ratelimit-limit')).toBe('600')
    const plain = await h.seedOrg('No Override', 'nolimit')
    const headers = { 'x-api-key': plain.secretKey }
    const first = await get('/key', headers)
    expect(first.headers.get('ratelimit-limit')).toBe('7')
    for (let i = 1; i < 7; i++) expect((await get('/key', headers)).status).toBe(200)
    expect((await get('/key', headers)).status).toBe(429)
  })

  it('caps an organization at RATE_LIMIT_ORG_PER_MIN across its keys', async () => {
    const org = await h.seedOrg('Org Cap', 'nolimit')
    const second = await secondSecretKey(h, org.orgId)
    // 7 per key, 9 per organization: the two keys together stop at 9.
    let ok = 0
    for (let i = 0; i < 7; i++) if ((await get('/key', { 'x-api-key': org.secretKey })).status === 200) ok++
    for (let i = 0; i < 7; i++) if ((await get('/key', { 'x-api-key': second })).status === 200) ok++
    expect(ok).toBe(9)
  })

  it('caches the plan override per instance', async () => {
    const org = await h.seedOrg('Cache Probe', 'growth')
    expect((await get('/key', { 'x-api-key': org.secretKey })).headers.get('ratelimit-limit')).toBe('6000')
    await h.deps.db.sql`update plans set rate_limit_per_minute = 5000 where plan_id = 'growth'`
    expect((await get('/key', { 'x-api-key': org.secretKey })).headers.get('ratelimit-limit')).toBe('6000')
    h.deps.rateLimits.forgetPlans()
    expect((await get('/key', { 'x-api-key': org.secretKey })).headers.get('ratelimit-limit')).toBe('5000')
  })

  it('runs after authentication: no credential is 401, not a spent token', async () => {
    const res = await get('/key')
    expect(res.status).toBe(401)
    expect(res.headers.get('ratelimit-limit')).toBeNull()
  })
})

describe('client IP without a trusted proxy', () => {
  it('ignores X-Forwarded-For, so a client cannot pick a fresh bucket', async () => {
    const h2 = await createHarness({ seed: false, env: { RATE_LIMIT_IP_PER_MIN: '2' } })
    try {
      const app2 = new Elysia()
        .use(httpPipeline(h2.deps))
        .use(rateLimitPlugin(h2.deps))
        .get('/ip', () => 'ok', { rateLimit: { scope: 'ip', name: 'p' } })
      const call = (address: string) => app2.handle(new Request('http://localhost/ip', { headers: ip(address) }))
      expect((await call('1.1.1.1')).status).toBe(200)
      expect((await call('2.2.2.2')).status).toBe(200)
      expect((await call('3.3.3.3')).status).toBe(429)
    } finally {
      await h2.close()
    }
  })
})
