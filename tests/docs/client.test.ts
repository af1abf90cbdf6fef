import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import createClient from 'openapi-fetch'
import { FEATURE_COUNT } from '../../src/server/platform/contract'
import { createHarness, type Harness } from '../helpers/harness'

/**
 * A client that knows nothing of the service but /docs/json: operations are found by operationId,
 * credentials applied as the operation's security schemes say, and every answer checked against the
 * documented schema of its status. Transport: openapi-fetch (path parameters, JSON bodies) over app.handle.
 */

type Json = Record<string, any>
type Credentials = { ApiKey?: string; BearerJWT?: string }

function resolve(doc: Json, node: Json): Json {
  return node?.$ref
    ? resolve(
        doc,
        node.$ref
          .slice(2)
          .split('/')
          .reduce((at: Json, key: string) => at[key], doc)
      )
    : node
}

/** The JSON Schema keywords the document uses; returns the first mismatch, or null. */
function mismatch(doc: Json, schema: Json, value: unknown, at = 'body'): string | null {
  schema = resolve(doc, schema)
  if (schema.anyOf) return schema.anyOf.some((s: Json) => !mismatch(doc, s, value, at)) ? null : `${at}: matches no anyOf branch`
  if (schema.enum && !schema.enum.includes(value)) return `${at}: ${JSON.stringify(value)} not in ${schema.enum}`
  if ('const' in schema && schema.const !== value) return `${at}: not ${schema.const}`
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  if (schema.type && !(schema.type === type || (schema.type === 'integer' && Number.isInteger(value))))
    return `${at}: ${type}, documented ${schema.type}`
  if (typeof value === 'number' && (value < (schema.minimum ?? -Infinity) || value > (schema.maximum ?? Infinity)))
    return `${at}: ${value} out of range`
  if (type === 'object') {
    for (const key of schema.required ?? []) if (!(key in (value as Json))) return `${at}.${key}: missing`
    for (const [key, s] of Object.entries<Json>(schema.properties ?? {}))
      if (key in (value as Json)) {
        const found = mismatch(doc, s, (value as Json)[key], `${at}.${key}`)
        if (found) return found
      }
  }
  if (type === 'array' && schema.items)
    for (const [i, item] of (value as unknown[]).entries()) {
      const found = mismatch(doc, schema.items, item, `${at}[${i}]`)
      if (found) return found
    }
  return null
}

function clientFrom(doc: Json, fetch: (request: Request) => Promise<Response>) {
  const http = createClient<any>({ baseUrl: 'http://localhost', fetch })
  const operations = new Map<string, { path: string; method: string; op: Json }>()
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item)) operations.set(op.operationId, { path, method, op })

  return async (operationId: string, init: { path?: Record<string, string>; body?: unknown; credentials?: Credentials } = {}) => {
    const found = operations.get(operationId)
    if (!found) throw new Error(`no operation ${operationId} in the document`)
    const { path, method, op } = found
    // The first security alternative the caller holds a credential for, applied as its scheme says.
    const headers: Record<string, string> = {}
    const alternative = (op.security as Json[]).find((alt) =>
      Object.keys(alt).every((name) => init.credentials?.[name as keyof Credentials])
    )
    if (op.security.length && !alternative) throw new Error(`${operationId} needs one of ${JSON.stringify(op.security)}`)
    for (const name of Object.keys(alternative ?? {})) {
      const scheme = doc.components.securitySchemes[name]
      const value = init.credentials![name as keyof Credentials]!
      if (scheme.type === 'apiKey' && scheme.in === 'header') headers[scheme.name] = value
      else if (scheme.type === 'http' && scheme.scheme === 'bearer') headers.authorization = `Bearer ${value}`
      else throw new Error(`scheme ${name} not supported by this client`)
    }
    const call = (http as any)[method.toUpperCase()] as (
      path: string,
      init: Json
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>
    const { data, error, response } = await call(path, { params: { path: init.path }, body: init.body, headers })
    const documented = resolve(doc, op.responses[String(response.status)] ?? {})
    if (!documented.description) throw new Error(`${operationId} answered ${response.status}, which the document does not list`)
    const schema = documented.content?.['application/json']?.schema
    const body = data ?? error
    if (schema) {
      const wrong = mismatch(doc, schema, body)
      if (wrong) throw new Error(`${operationId} ${response.status}: ${wrong}`)
    }
    return { status: response.status, body: body as any }
  }
}

let h: Harness
let call: ReturnType<typeof clientFrom>
let doc: Json
beforeAll(async () => {
  h = await createHarness()
  doc = await (await h.request('GET', '/docs/json')).json()
  call = clientFrom(doc, (request) => h.app.handle(request))
})
afterAll(() => h.close())

const batch = (sessionId: string) => ({
  session_id: sessionId,
  sdk_type: 'web',
  captured_at: h.clock.now().toISOString(),
  signals: Array.from({ length: 40 }, (_, i) => ({ t: i * 16, k: 'mm', x: 100 + i * 3, y: 200 + (i % 7) })),
  features: Array.from({ length: FEATURE_COUNT }, () => 0.5),
})

describe('a client driven by /docs/json', () => {
  test('ingests with a secret key, fetches the session, reads usage (key and JWT)', async () => {
    const sessionId = crypto.randomUUID()
    const ingested = await call('ingestBatch', { body: batch(sessionId), credentials: { ApiKey: h.a.secretKey } })
    expect(ingested.status).toBe(200)
    expect(ingested.body.session_id).toBe(sessionId)
    expect(ingested.body.signals).toBe(40)

    const session = await call('getSession', { path: { session_id: sessionId.toUpperCase() }, credentials: { ApiKey: h.a.secretKey } })
    expect(session.status).toBe(200)
    expect(session.body.batches).toBe(1)

    const usage = await call('getUsage', { credentials: { ApiKey: h.a.secretKey } })
    expect(usage.status).toBe(200)
    expect(usage.body.sessions_used).toBe(1)
    const viaJwt = await call('getUsage', { credentials: { BearerJWT: h.a.jwt } })
    expect(viaJwt.body).toEqual(usage.body)
  })

  test('a public key gets the documented 202; errors come back as the documented envelope', async () => {
    const accepted = await call('ingestBatch', { body: batch(crypto.randomUUID()), credentials: { ApiKey: h.a.publicKey } })
    expect(accepted.status).toBe(202)
    expect(accepted.body.accepted).toBe(40)

    const absent = await call('getSession', { path: { session_id: crypto.randomUUID() }, credentials: { ApiKey: h.a.secretKey } })
    expect(absent.status).toBe(404)
    expect(absent.body.error.code).toBe('not_found')
    const refused = await call('getSession', { path: { session_id: crypto.randomUUID() }, credentials: { ApiKey: h.a.publicKey } })
    expect(refused.status).toBe(403)
    const invalid = await call('ingestBatch', {
      body: { ...batch(crypto.randomUUID()), features: [1] },
      credentials: { ApiKey: h.a.secretKey },
    })
    expect(invalid.status).toBe(400)
    expect(invalid.body.error.details[0].path).toBe('features')
  })

  test('the schema check is not a rubber stamp', () => {
    const result = {
      session_id: crypto.randomUUID(),
      hcs: 50,
      m3_score: 0.5,
      verdict: 'bot',
      reasons: [],
      signals: 1,
      batches: 1,
      model_version: 'm',
      first_seen_at: 'x',
      scored_at: 'x',
      label: null,
    }
    const ref = { $ref: '#/components/schemas/SessionResult' }
    expect(mismatch(doc, ref, result)).toBeNull()
    expect(mismatch(doc, ref, { ...result, hcs: 'high' })).toContain('body.hcs')
    expect(mismatch(doc, ref, { ...result, verdict: 'maybe' })).toContain('body.verdict')
    const { batches: _, ...missing } = result
    expect(mismatch(doc, ref, missing)).toBe('body.batches: missing')
  })
})
