import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeAll(async () => {
  h = await createHarness({ seed: false })
})
afterAll(() => h.close())

describe('health and readiness', () => {
  it('GET /health answers 200 with the version', async () => {
    const res = await h.json('GET', '/health')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok', version: '1.0.0' })
  })

  it('GET /ready answers 200 while the database answers', async () => {
    const res = await h.json('GET', '/ready')
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('ready')
  })
})

describe('conventions on every response', () => {
  it('echoes a sane X-Request-Id and always sends X-API-Version', async () => {
    const res = await h.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } })
    expect(res.headers.get('x-request-id')).toBe('abc-123')
    expect(res.headers.get('x-api-version')).toBe('1.0.0')
  })

  it('replaces an insane X-Request-Id with a fresh one', async () => {
    const res = await h.request('GET', '/health', { headers: { 'x-request-id': 'bad id <script>' } })
    const id = res.headers.get('x-request-id')!
    expect(id).not.toContain('<')
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers an unknown path with 404 in the envelope', async () => {
    const res = await h.json('GET', '/nope', { headers: { 'x-request-id': 'r-404' } })
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('not_found')
    expect(res.body.error.request_id).toBe('r-404')
    expect(res.headers.get('x-api-version')).toBe('1.0.0')
  })

  it('logs one JSON line per request without secrets', async () => {
    const before = h.logs.length
    await h.request('GET', '/health', { headers: { 'x-request-id': 'log-check' } })
    await Bun.sleep(5)
    const line = h.logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.request_id === 'log-check')
    expect(line).toMatchObject({ msg: 'request', method: 'GET', route: '/health', status: 200 })
    expect(typeof line.duration_ms).toBe('number')
  })
})

describe('API reference', () => {
  it('serves the OpenAPI document at /docs/json and a browsable page at /docs', async () => {
    const spec = await h.json('GET', '/docs/json')
    expect(spec.status).toBe(200)
    expect(spec.body.info.version).toBe('1.0.0')
    expect(Object.keys(spec.body.paths)).toContain('/health')
    const ingest = spec.body.paths['/v1/ingest'].post.requestBody.content
    expect(ingest['application/json'].schema).toEqual({ $ref: '#/components/schemas/IngestBatch' })
    expect(Object.keys(spec.body.components.schemas.IngestBatch.properties)).toEqual([
      'session_id',
      'sdk_type',
      'captured_at',
      'signals',
      'features',
    ])
    expect(ingest['text/plain']).toBeDefined() // sendBeacon
    expect(spec.body.paths['/auth/login'].post.requestBody.content['application/json'].schema.required).toEqual(['email', 'password'])
    const page = await h.request('GET', '/docs')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
  })
})
