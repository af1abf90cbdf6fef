import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

// HTTP conventions of issue 16: 405 + Allow, WWW-Authenticate, consistent RateLimit headers, CORS on the public POSTs.
let h: Harness
beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_IP_PER_MIN: '3', TRUST_PROXY: 'true' } })
}, 30_000)
afterAll(() => h.close())

const features = Array.from({ length: 34 }, (_, i) => 0.5 + i / 100)

describe('405 Method Not Allowed', () => {
  it('answers a known path asked with another method with 405, Allow and the envelope', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/leads', 'POST'],
      ['DELETE', '/graphql', 'POST'],
      ['PUT', '/v1/support/tickets', 'POST'],
      ['POST', '/health', 'GET, HEAD'],
      ['PATCH', `/v1/session/${crypto.randomUUID()}`, 'GET, HEAD'],
      ['DELETE', '/v1/org/usage', 'GET, HEAD'],
    ]
    for (const [method, path, allow] of cases) {
      const res = await h.json(method, path, {
        headers: { 'x-request-id': 'r-405', 'x-api-key': h.a.secretKey },
        ...(method === 'GET' ? {} : { body: {} }),
      })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe(allow)
      expect(res.body.error.code).toBe('method_not_allowed')
      expect(res.body.error.request_id).toBe('r-405')
    }
  })

  it('keeps 404 for a path no method serves', async () => {
    for (const path of ['/nope', '/v1/ingest/x', '/v1/session', '/V1/LEADS']) {
      const res = await h.json('GET', path)
      expect(res.status).toBe(404)
      expect(res.headers.get('allow')).toBeNull()
      expect(res.body.error.code).toBe('not_found')
    }
  })

  it('a ticket POSTed with PUT creates nothing', async () => {
    const count = async () => (await h.testDb.db.sql`select count(*)::int as n from support_tickets`)[0]!.n as number
    const before = await count()
    const res = await h.json('PUT', '/v1/support/tickets', {
      body: { subject: 's', message: 'm' },
      headers: { 'x-api-key': h.a.secretKey },
    })
    expect(res.status).toBe(405)
    expect(await count()).toBe(before)
  })
})

describe('WWW-Authenticate on 401', () => {
  it('names the API-key scheme on key-only routes', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { 'x-api-key': 'svc_live_sk_nope' },
      { 'x-api-key': `svc_live_sk_${'a'.repeat(40)}` },
    ]) {
      const res = await h.json('GET', `/v1/session/${crypto.randomUUID()}`, { headers })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="bss"')
    }
  })

  it('names both schemes where a key or a dashboard JWT is accepted', async () => {
    const res = await h.json('GET', '/v1/org/usage', { headers: { authorization: 'Bearer not-a-token' } })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="bss", Bearer realm="bss"')
  })

  it('names Bearer on /graphql', async () => {
    const res = await h.json('POST', '/graphql', { body: { query: '{ getPlanUsage { planId } }' } })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
  })

  it('sends no challenge on 403 (the credential was understood)', async () => {
    const res = await h.json('GET', `/v1/session/${crypto.randomUUID()}`, { headers: { 'x-api-key': h.a.publicKey } })
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toBeNull()
  })
})

describe('RateLimit headers', () => {
  it('sends RateLimit-Policy, and on 429 a Reset equal to Retry-After', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.77' }
    const seen: Headers[] = []
    for (let i = 0; i < 4; i++) seen.push((await h.json('POST', '/v1/demo/live-score', { body: { features }, headers: ip })).headers)
    const remaining = seen.map((s) => s.get('ratelimit-remaining'))
    expect(remaining).toEqual(['2', '1', '0', '0'])
    for (const headers of seen) expect(headers.get('ratelimit-policy')).toBe('3;w=60')
    // With tokens left, Reset is when the bucket is full again; 3 a minute is one token every 20 s.
    expect(Number(seen[0]!.get('ratelimit-reset'))).toBe(20)
    // The last token taken: Reset is when the next request may pass.
    expect(Number(seen[2]!.get('ratelimit-reset'))).toBe(20)
    const refused = await h.json('POST', '/v1/demo/live-score', { body: { features }, headers: ip })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('20')
    expect(refused.headers.get('ratelimit-reset')).toBe(refused.headers.get('retry-after'))
    h.clock.advance(5_000)
    const later = await h.json('POST', '/v1/demo/live-score', { body: { features }, headers: ip })
    expect(later.status).toBe(429)
    expect(later.headers.get('retry-after')).toBe('15')
    expect(later.headers.get('ratelimit-reset')).toBe('15')
  })
})

describe('CORS on the public POSTs', () => {
  for (const path of ['/v1/leads', '/v1/demo/live-score']) {
    it(`answers a preflight on ${path} for any origin`, async () => {
      const res = await h.request('OPTIONS', path, {
        headers: {
          origin: 'https://pricing.example.org',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,idempotency-key',
        },
      })
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS')
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key')
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
      expect(res.headers.get('x-request-id')).toBeTruthy()
    })
  }

  it('lets a page read the RateLimit headers of the answer', async () => {
    const res = await h.request('POST', '/v1/demo/live-score', {
      body: { features },
      headers: { origin: 'https://widget.example.net', 'x-forwarded-for': '203.0.113.78' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const exposed = res.headers.get('access-control-expose-headers') ?? ''
    for (const name of ['RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']) {
      expect(exposed).toContain(name)
      if (name !== 'Retry-After') expect(res.headers.get(name)).not.toBeNull()
    }
  })

  it('exposes the RateLimit headers on ingest too', async () => {
    const res = await h.request('POST', '/v1/ingest', {
      body: {},
      headers: { origin: 'https://shop.example.com', 'x-api-key': h.a.publicKey },
    })
    expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining')
  })
})
