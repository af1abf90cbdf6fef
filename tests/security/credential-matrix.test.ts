import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { credentialMatrix, type MatrixCase } from '../helpers/credential-matrix'
import { createHarness, type Harness, type SeededOrg, tinyBatch } from '../helpers/harness'

/**
 * Every authenticated REST route and every GraphQL operation through the one credential matrix
 * (tests/helpers/credential-matrix.ts). A route or operation added to the app without a row here,
 * or without a place in PUBLIC_ROUTES, fails the completeness tests at the bottom.
 */
let h: Harness
// PGlite start-up on a busy machine can pass the 5 s hook default.
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h?.close())
const harness = () => h

const batch = () => tinyBatch(h)

async function sessionOf(h: Harness, org: SeededOrg): Promise<string> {
  const body = batch()
  const res = await h.json('POST', '/v1/ingest', { headers: { 'x-api-key': org.secretKey }, body })
  expect(res.status).toBe(200)
  return body.session_id
}

async function keyPairOf(h: Harness, org: SeededOrg): Promise<string> {
  const res = await h.json('POST', '/graphql', {
    headers: { authorization: `Bearer ${org.jwt}` },
    body: { query: 'mutation { createApiKey(name: "matrix", sdkType: WEB) { keyPairId } }' },
  })
  expect(res.body.errors).toBeUndefined()
  return res.body.data.createApiKey.keyPairId
}

const REST: MatrixCase[] = [
  {
    route: 'POST /v1/ingest',
    accepts: ['public', 'secret'],
    ok: { public: 202, secret: 200 },
    request: () => ({ path: '/v1/ingest', body: batch() }),
  },
  {
    route: 'GET /v1/session/:session_id',
    accepts: ['secret'],
    ok: 200,
    resource: sessionOf,
    request: (session) => ({ path: `/v1/session/${session}` }),
  },
  {
    route: 'GET /v1/org/usage',
    accepts: ['secret', 'jwt'],
    ok: 200,
    request: () => ({ path: '/v1/org/usage' }),
  },
  {
    route: 'POST /v1/support/tickets',
    accepts: ['secret', 'jwt'],
    ok: 201,
    request: () => ({ path: '/v1/support/tickets', body: { subject: 'matrix', message: 'credential matrix' } }),
  },
  {
    route: 'POST /v1/session/:session_id/label',
    accepts: ['secret'],
    ok: 200,
    resource: sessionOf,
    request: (session) => ({ path: `/v1/session/${session}/label`, body: { label: 'human', note: 'matrix' } }),
  },
  {
    route: 'GET /v1/labels/export',
    accepts: ['jwt'],
    ok: 200,
    request: () => ({ path: '/v1/labels/export' }),
  },
]

/** GraphQL operations: one row each, so the cross-organization check covers every id-taking one. */
const GRAPHQL: Record<string, { query: string; keyPair?: true; session?: true }> = {
  getPlanUsage: { query: '{ getPlanUsage { planId } }' },
  listApiKeys: { query: '{ listApiKeys { keyPairId } }' },
  listSupportTickets: { query: '{ listSupportTickets { ticketId } }' },
  createApiKey: { query: 'mutation { createApiKey(name: "matrix", sdkType: WEB) { keyPairId } }' },
  revokeApiKey: { query: 'mutation($id: ID!) { revokeApiKey(keyPairId: $id) { keyPairId } }', keyPair: true },
  rotateApiKey: { query: 'mutation($id: ID!) { rotateApiKey(keyPairId: $id, gracePeriodSeconds: 60) { keyPairId } }', keyPair: true },
  updateApiKeyOrigins: {
    query: 'mutation($id: ID!) { updateApiKeyOrigins(keyPairId: $id, allowedOrigins: []) { keyPairId } }',
    keyPair: true,
  },
  listSessions: { query: '{ listSessions(first: 5) { endCursor } }' },
  // Another organization's session is null here, not NOT_FOUND: tests/security/isolation.test.ts covers it.
  session: { query: `{ session(sessionId: "${crypto.randomUUID()}") { durationMs } }` },
  verdictStats: { query: '{ verdictStats(days: 7) { total } }' },
  labelSession: { query: 'mutation($id: ID!) { labelSession(sessionId: $id, label: human) { labeledAt } }', session: true },
  errorRates: { query: '{ errorRates { labelledHumans } }' },
  simulateThresholds: { query: '{ simulateThresholds(botBelow: 20, humanAbove: 80) { verdicts { bot } } }' },
  verdictThresholds: { query: '{ verdictThresholds { botBelow } }' },
  thresholdHistory: { query: '{ thresholdHistory { changedAt } }' },
  setVerdictThresholds: { query: 'mutation { setVerdictThresholds(botBelow: 30, humanAbove: 70) { botBelow } }' },
}

const GRAPHQL_ROWS: MatrixCase[] = Object.entries(GRAPHQL).map(([operation, { query, keyPair, session }]) => ({
  route: 'POST /graphql',
  name: `GraphQL ${operation}`,
  graphql: true,
  accepts: ['jwt'],
  ok: 200,
  resource: keyPair ? keyPairOf : session ? sessionOf : undefined,
  request: (id) => ({ path: '/graphql', body: { query, variables: id ? { id } : undefined } }),
}))

/** Routes that take no credential (shared/API.md), each for a reason. */
const PUBLIC_ROUTES = new Set([
  'GET /health',
  'GET /ready',
  'GET /docs',
  'GET /docs/json',
  'GET /docs/assets/api-reference.js', // the reference page's renderer, served from node_modules
  'GET /docs/assets/init.js',
  'GET /docs/assets/storage.js',
  'GET /graphql/schema.graphql', // the SDL: the same types the public contract lists
  'POST /auth/register',
  'POST /auth/login',
  'POST /auth/verify-otp',
  'POST /auth/refresh', // the refresh token is in the body
  'POST /auth/logout', // the refresh token is in the body
  'GET /dev/mail', // development outbox; absent in production
  'POST /v1/leads',
  'POST /v1/demo/live-score',
  'GET /sdk/v1.js',
  'GET /sdk/v1.mjs',
  'GET /sdk/v1.d.ts',
  'GET /assets/dashboard.js',
  'GET /assets/demo.js',
  'GET /assets/app.css',
  'GET /dashboard',
  'GET /demo',
  'GET /demo/result/:session_id', // shows only the demo organization's sessions
])

for (const row of [...REST, ...GRAPHQL_ROWS]) credentialMatrix(harness, row)

describe('the matrix covers the whole app', () => {
  const appRoutes = () => (h.app.routes as { method: string; path: string }[]).map((r) => `${r.method} ${r.path}`)

  it('every route is either in the matrix or declared public, and every row names a real route', () => {
    const inMatrix = new Set([...REST, ...GRAPHQL_ROWS].map((r) => r.route))
    const routes = appRoutes()
    expect(routes.filter((r) => !inMatrix.has(r) && !PUBLIC_ROUTES.has(r))).toEqual([])
    expect([...inMatrix, ...PUBLIC_ROUTES].filter((r) => !routes.includes(r))).toEqual([])
  })

  it('every GraphQL query and mutation has a row', async () => {
    const res = await h.json('POST', '/graphql', {
      headers: { authorization: `Bearer ${h.a.jwt}` },
      body: { query: '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }' },
    })
    expect(res.status).toBe(200)
    const schema = res.body.data.__schema
    const operations = [...schema.queryType.fields, ...(schema.mutationType?.fields ?? [])].map((f: { name: string }) => f.name)
    expect(operations.sort()).toEqual(Object.keys(GRAPHQL).sort())
  })

  it('the public GET routes answer without a credential (none of them is an authenticated route in disguise)', async () => {
    const refused: string[] = []
    for (const route of [...PUBLIC_ROUTES].filter((r) => r.startsWith('GET '))) {
      const res = await h.request('GET', route.slice(4).replace(':session_id', crypto.randomUUID()))
      if (res.status === 401 || res.status === 403) refused.push(`${route} → ${res.status}`)
    }
    expect(refused).toEqual([])
  })
})
