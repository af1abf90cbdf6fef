import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import * as v from 'valibot'
import { bodyOptions, httpPipeline } from '../../src/server/http'
import { createHarness, type Harness } from '../helpers/harness'

// Routes opt out of JSON-only bodies with a route option; the pipeline keeps no list of paths.
let h: Harness
let app: Elysia<any, any, any, any, any, any, any>
beforeAll(async () => {
  h = await createHarness({ seed: false })
  const schema = v.object({ n: v.number() })
  app = new Elysia()
    .use(httpPipeline(h.deps))
    .use(bodyOptions)
    .post('/json', ({ body }) => ({ got: body }), { body: schema })
    .post('/beacon', ({ body }) => ({ got: body }), { body: schema, beaconBody: true })
    .post('/raw', async ({ request }) => ({ text: await request.text() }), { rawBody: true })
})
afterAll(() => h.close())

const post = (path: string, body: string, type: string) =>
  app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': type }, body }))

describe('body options', () => {
  it('a plain route takes JSON only', async () => {
    expect((await post('/json', '{"n":1}', 'application/json')).status).toBe(200)
    expect((await post('/json', '{"n":1}', 'text/plain')).status).toBe(415)
  })

  it('{ beaconBody: true } also takes JSON sent as text/plain, with the same limits', async () => {
    const res = await post('/beacon', '{"n":2}', 'text/plain;charset=UTF-8')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ got: { n: 2 } })
    expect((await post('/beacon', '{"n":', 'text/plain')).status).toBe(400)
    expect((await post('/beacon', 'n=1', 'application/x-www-form-urlencoded')).status).toBe(415)
    const big = JSON.stringify({ n: 1, pad: 'x'.repeat(h.deps.config.bodyLimitBytes) })
    expect((await post('/beacon', big, 'text/plain')).status).toBe(413)
  })

  it('{ rawBody: true } leaves the body unread for the handler, whatever its type', async () => {
    const res = await post('/raw', 'not json at all', 'application/x-anything')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ text: 'not json at all' })
    expect(await (await post('/raw', '{"n":1}', 'application/json')).json()).toEqual({ text: '{"n":1}' })
  })
})
