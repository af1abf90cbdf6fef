import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { createHarness, type Harness } from '../helpers/harness'

// The document at /docs/json, checked by Redocly's linter with its `recommended` ruleset (errors and
// warnings), plus the points of issue 16 a ruleset does not know about.

const NO_CLIENT_ERROR = ['~1health', '~1ready', '~1graphql~1schema.graphql']

let h: Harness
let doc: any
beforeAll(async () => {
  h = await createHarness({ seed: false })
  const res = await h.request('GET', '/docs/json')
  expect(res.status).toBe(200)
  doc = await res.json()
})
afterAll(() => h.close())

const operations = () =>
  Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ path, method, op }))
  )

describe('OpenAPI document', () => {
  test('passes the Redocly recommended ruleset with no error and no warning', async () => {
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config })
    const found = problems
      .map((p) => ({
        rule: p.ruleId,
        at: p.location[0]?.pointer ?? '',
        text: `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`,
      }))
      // Liveness, readiness and the SDL take no input and no credential: they have no client error to document.
      .filter((p) => !(p.rule === 'operation-4xx-response' && NO_CLIENT_ERROR.some((path) => p.at === `#/paths/${path}/get/responses`)))
      .map((p) => p.text)
    expect(found).toEqual([])
  })

  test('every operation has a hand-picked operationId, a summary, a tag, a 2xx and its error responses, and security', () => {
    const ops = operations()
    expect(ops.length).toBeGreaterThan(10)
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/)
      expect(op.summary, where).toBeString()
      expect(op.tags?.length, where).toBeGreaterThan(0)
      expect(
        Object.keys(op.responses ?? {}).some((s) => s.startsWith('2')),
        where
      ).toBe(true)
      expect(op.responses['500'], where).toBeDefined()
      expect(Array.isArray(op.security), where).toBe(true)
      // A request body comes with an example, on the media type or on its component schema.
      for (const media of Object.values<any>(op.requestBody?.content ?? {})) {
        const named = media.schema.$ref ? doc.components.schemas[media.schema.$ref.split('/').pop()] : undefined
        expect(media.example ?? named?.examples?.[0], where).toBeDefined()
      }
    }
    const ids = ops.map((o) => o.op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(
      expect.arrayContaining(['ingestBatch', 'getSession', 'getUsage', 'createTicket', 'createLead', 'graphql', 'getGraphqlSchema'])
    )
  })

  test('security: schemes declared, and each operation lists what the server really accepts', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['ApiKey', 'BeaconKey', 'BearerJWT'])
    const byId = Object.fromEntries(operations().map((o) => [o.op.operationId, o.op]))
    expect(byId.ingestBatch.security).toEqual([{ ApiKey: [] }, { BeaconKey: [] }])
    expect(byId.getSession.security).toEqual([{ ApiKey: [] }])
    expect(byId.getUsage.security).toEqual([{ ApiKey: [] }, { BearerJWT: [] }])
    expect(byId.graphql.security).toEqual([{ BearerJWT: [] }])
    expect(byId.createLead.security).toEqual([])
    expect(byId.getHealth.security).toEqual([])
  })

  test('error statuses refer to the ErrorEnvelope; reusable schemas are components', () => {
    const byId = Object.fromEntries(operations().map((o) => [o.op.operationId, o.op]))
    expect(byId.getSession.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' })
    expect(doc.components.responses.NotFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' })
    expect(byId.getSession.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SessionResult' })
    for (const name of ['ErrorEnvelope', 'SessionResult', 'Signal', 'IngestBatch', 'PlanUsage', 'GraphQLRequest', 'GraphQLResponse'])
      expect(doc.components.schemas[name], name).toBeDefined()
    expect(doc.components.schemas.SessionResult.examples).toHaveLength(1)
  })

  test('/graphql is documented with its request body and the SDL link, and the SDL is served', async () => {
    const op = doc.paths['/graphql'].post
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GraphQLRequest' })
    expect(doc.components.schemas.GraphQLRequest.required).toEqual(['query'])
    expect(op.externalDocs.url).toBe('/graphql/schema.graphql')
    const res = await h.request('GET', '/graphql/schema.graphql')
    expect(res.status).toBe(200)
    const sdl = await res.text()
    expect(sdl).toContain('getPlanUsage: PlanUsage!')
    expect(sdl).toContain('createApiKey(')
  })

  test('the documented session_id pattern accepts what the server accepts (uppercase too)', async () => {
    const param = doc.paths['/v1/session/{session_id}'].get.parameters.find((p: any) => p.name === 'session_id')
    const pattern = new RegExp(param.schema.pattern)
    const upper = crypto.randomUUID().toUpperCase()
    expect(pattern.test(upper)).toBe(true)
    expect(pattern.test('not-a-uuid')).toBe(false)
    // And the server does accept it: an unknown session is a 404, not a 400.
    const seeded = await h.seedOrg('Pattern')
    const res = await h.json('GET', `/v1/session/${upper}`, { headers: { 'x-api-key': seeded.secretKey } })
    expect(res.status).toBe(404)
  })

  test('no browser pages, assets, dev routes or the leads honeypot; no pointer to files customers lack', () => {
    const paths = Object.keys(doc.paths)
    for (const hidden of [
      '/dashboard',
      '/demo',
      '/demo/result/{session_id}',
      '/dev/mail',
      '/docs',
      '/docs/json',
      '/sdk/v1.js',
      '/assets/app.css',
    ])
      expect(paths).not.toContain(hidden)
    const lead = doc.paths['/v1/leads'].post.requestBody.content['application/json'].schema
    expect(Object.keys(lead.properties)).not.toContain('website')
    expect(JSON.stringify(doc)).not.toMatch(/shared\/API\.md|\.md\b/)
    expect(doc.servers).toHaveLength(1)
  })

  test('Idempotency-Key is documented exactly where the server honours it', async () => {
    const takesKey = (op: any) => (op.parameters ?? []).some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey')
    const posts = operations().filter((o) => o.method === 'post')
    expect(
      posts
        .filter((o) => !takesKey(o.op))
        .map((o) => o.op.operationId)
        .sort()
    ).toEqual(['ingestBatch', 'refreshTokens'])
    expect(doc.components.parameters.IdempotencyKey.in).toBe('header')

    // Documented: the retry is a replay.
    const key = { 'idempotency-key': crypto.randomUUID() }
    const lead = { email: `idem-${crypto.randomUUID().slice(0, 8)}@example.com`, source: 'pricing_page' }
    const first = await h.json('POST', '/v1/leads', { body: lead, headers: key })
    const again = await h.json('POST', '/v1/leads', { body: lead, headers: key })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    // Not documented: ingest ignores the header (its own rule dedupes the batch).
    const seeded = await h.seedOrg('Idempotency')
    const batch = {
      session_id: crypto.randomUUID(),
      sdk_type: 'web',
      captured_at: h.clock.now().toISOString(),
      signals: [{ t: 0, k: 'mm', x: 1, y: 1 }],
      features: Array.from({ length: 34 }, () => 0),
    }
    const ingestKey = { 'x-api-key': seeded.publicKey, 'idempotency-key': crypto.randomUUID() }
    await h.json('POST', '/v1/ingest', { body: batch, headers: ingestKey })
    const retried = await h.json('POST', '/v1/ingest', { body: batch, headers: ingestKey })
    expect(retried.status).toBe(202)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })
})
