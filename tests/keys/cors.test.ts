import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 30_000)
afterAll(() => h.close())

describe('CORS on /v1/ingest', () => {
  it('answers a preflight from any origin with 204 and the allowed methods and headers', async () => {
    const res = await h.request('OPTIONS', '/v1/ingest', {
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-api-key',
      },
    })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com')
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS')
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, X-API-Key, X-Request-Id')
    expect(res.headers.get('access-control-max-age')).toBe('600')
    expect(res.headers.get('vary')).toContain('Origin')
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  it('echoes the origin and exposes the quota headers on ingest responses', async () => {
    const res = await h.request('POST', '/v1/ingest', {
      body: {},
      headers: { origin: 'https://shop.example.com', 'x-api-key': h.a.publicKey },
    })
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com')
    const exposed = res.headers.get('access-control-expose-headers') ?? ''
    for (const name of ['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset']) expect(exposed).toContain(name)
    expect(res.headers.get('vary')).toContain('Origin')
  })

  it('adds no CORS headers to a same-origin or server request (no Origin)', async () => {
    const res = await h.request('POST', '/v1/ingest', { body: {}, headers: { 'x-api-key': h.a.secretKey } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('adds no CORS headers on any other route, and answers no preflight there', async () => {
    for (const path of ['/graphql', '/v1/org/usage', '/v1/session/00000000-0000-4000-8000-000000000000', '/health', '/v1/ingest/other']) {
      const preflight = await h.request('OPTIONS', path, {
        headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
      })
      expect(preflight.status).not.toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
      expect(preflight.headers.get('access-control-allow-methods')).toBeNull()
    }
    const health = await h.request('GET', '/health', { headers: { origin: 'https://shop.example.com' } })
    expect(health.headers.get('access-control-allow-origin')).toBeNull()
    const graphql = await h.request('POST', '/graphql', {
      body: { query: '{ listApiKeys { keyPairId } }' },
      headers: { origin: 'https://shop.example.com', authorization: `Bearer ${h.a.jwt}` },
    })
    expect(graphql.status).toBe(200)
    expect(graphql.headers.get('access-control-allow-origin')).toBeNull()
  })
})
