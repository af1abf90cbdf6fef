import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import * as v from 'valibot'
import { httpPipeline } from '../../src/server/http'
import { createHarness, type Harness } from '../helpers/harness'

// A probe route on the real http core: body parsing and errors are shared by every module.
let h: Harness
let app: Elysia<any, any, any, any, any, any, any>
beforeAll(async () => {
  h = await createHarness({ seed: false })
  app = new Elysia()
    .use(httpPipeline(h.deps))
    .post('/probe', ({ body }) => ({ got: body }), {
      body: v.object({ n: v.pipe(v.number(), v.finite()), items: v.optional(v.array(v.object({ k: v.picklist(['a', 'b']) }))) }),
    })
    .get('/boom', () => {
      throw new Error('secret internals at /srv/app.ts:42')
    })
})
afterAll(() => h.close())

const post = (body: BodyInit, type = 'application/json', headers: Record<string, string> = {}) =>
  app.handle(new Request('http://localhost/probe', { method: 'POST', headers: { 'content-type': type, ...headers }, body }))

describe('request bodies', () => {
  it('accepts valid JSON', async () => {
    const res = await post(JSON.stringify({ n: 1, extra: 'ignored' }))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ got: { n: 1 } })
  })

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const res = await post('{"n": 1,')
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error.code).toBe('invalid_json')
    expect(body.error.request_id).toBeString()
  })

  it('answers 415 for a POST that is not application/json', async () => {
    const res = await post('n=1', 'application/x-www-form-urlencoded')
    expect(res.status).toBe(415)
    expect((await res.json()).error.code).toBe('unsupported_media_type')
  })

  it('answers 415 for a POST with no content type', async () => {
    const res = await app.handle(new Request('http://localhost/probe', { method: 'POST', body: '{"n":1}' }))
    // fetch gives a string body text/plain by default; either way it is not JSON
    expect(res.status).toBe(415)
  })

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({ n: 1, pad: 'x'.repeat(1.5 * 1024 * 1024) })
    const res = await post(big)
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('payload_too_large')
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big))
        c.close()
      },
    })
    const streamed = await app.handle(
      new Request('http://localhost/probe', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit)
    )
    expect(streamed.status).toBe(413)
  })

  it('answers 400 validation_failed naming each bad field', async () => {
    const res = await post(JSON.stringify({ n: 'one', items: [{ k: 'a' }, { k: 'z' }] }))
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error.code).toBe('validation_failed')
    const paths = body.error.details.map((d: { path: string }) => d.path)
    expect(paths).toContain('n')
    expect(paths).toContain('items[1].k')
  })

  it('never echoes the submitted value in a validation message', async () => {
    const res = await post(JSON.stringify({ n: 'hunter2-my-password' }))
    expect(res.status).toBe(400)
    const text = await res.text()
    expect(text).not.toContain('hunter2')
    expect(JSON.parse(text).error.details[0]).toEqual({ path: 'n', message: 'Invalid type: Expected number' })
  })

  it('never leaks a stack trace on a bug: 500 internal, details only in the log', async () => {
    const res = await app.handle(new Request('http://localhost/boom', { headers: { 'x-request-id': 'boom-1' } }))
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(text).not.toContain('/srv/app.ts')
    expect(JSON.parse(text).error).toEqual({ code: 'internal', message: 'internal error', request_id: 'boom-1' })
    expect(h.logs.some((l) => l.includes('boom-1') && l.includes('secret internals'))).toBe(true)
  })
})
