import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})
afterAll(() => h.close())

const get = (path: string, headers: Record<string, string> = {}) => h.request('GET', path, { headers })

describe('security headers', () => {
  it('HTML pages carry a strict CSP, no sniffing and frame denial', async () => {
    for (const path of ['/dashboard', '/demo']) {
      const res = await get(path)
      expect(res.headers.get('content-type')).toContain('text/html')
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).toContain("object-src 'none'")
      expect(csp).not.toContain("'unsafe-inline'")
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
    }
  })

  it('every API response, errors included, says nosniff and cannot be framed', async () => {
    for (const res of [await get('/health'), await get('/nope'), await get('/v1/org/usage'), await get('/docs')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
    }
  })
})

describe('CORS only where the contract allows it', () => {
  const origin = 'https://shop.example'
  it('ingest answers preflights and echoes the origin', async () => {
    const pre = await h.request('OPTIONS', '/v1/ingest', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin)
  })

  it('the credential-free public POSTs allow any origin, never with credentials (issue 16)', async () => {
    for (const path of ['/v1/leads', '/v1/demo/live-score']) {
      const pre = await h.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST' } })
      expect(pre.status).toBe(204)
      expect(pre.headers.get('access-control-allow-origin')).toBe('*')
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull()
      expect(pre.headers.get('access-control-allow-headers')).not.toContain('X-API-Key')
    }
  })

  it('no other API route grants a browser origin anything', async () => {
    const routes: [string, string][] = [
      ['GET', '/v1/org/usage'],
      ['GET', `/v1/session/${crypto.randomUUID()}`],
      ['POST', '/graphql'],
      ['POST', '/auth/login'],
      ['POST', '/v1/support/tickets'],
      ['GET', '/health'],
    ]
    for (const [method, path] of routes) {
      const res = await h.request(method, path, {
        headers: { origin, 'x-api-key': h.a.secretKey },
        ...(method === 'POST' ? { body: {} } : {}),
      })
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
      const pre = await h.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': method } })
      expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    }
  })
})
