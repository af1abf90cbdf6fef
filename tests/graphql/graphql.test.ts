import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { httpPipeline } from '../../src/server/http'
import type { Services } from '../../src/server/services'
import { monthStartUtc } from '../../src/server/platform/clock'
import { graphqlModule, type GraphQLPart } from '../../src/server/modules/graphql'
import { DEFAULT_LIMITS } from '../../src/server/modules/graphql/limits'
import { getPlanUsage, usageGraphQL } from '../../src/server/modules/usage'
import { keysGraphQL } from '../../src/server/modules/keys'
import { orgGraphQL } from '../../src/server/modules/org'
import { createUser } from '../../tenants/provision'
import { ApiError } from '../../src/server/platform/errors'
import { codes, gql } from './gql'
import { createHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeAll(async () => {
  h = await createHarness()
  const month = monthStartUtc(h.clock.now()).toISOString().slice(0, 10)
  await h.deps.db.sql`insert into usage_counters (org_id, month, sessions_used) values (${h.a.orgId}, ${month}, 123)`
}, 30_000)
afterAll(() => h.close())

const asA = (query: string, variables?: Record<string, unknown>) => gql(h.app, { jwt: h.a.jwt }, query, variables)

describe('authentication', () => {
  const query = '{ getPlanUsage { planId } }'
  const expect401 = (res: Awaited<ReturnType<typeof gql>>) => {
    expect(res.status).toBe(401)
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED' })
    expect(typeof res.body.errors[0].message).toBe('string')
    expect(res.body.data).toBeUndefined()
  }

  it('answers 401 UNAUTHENTICATED without a credential', async () => expect401(await gql(h.app, {}, query)))

  it('answers 401 for a secret or public API key instead of a JWT', async () => {
    expect401(await gql(h.app, { apiKey: h.a.secretKey }, query))
    expect401(await gql(h.app, { apiKey: h.a.publicKey }, query))
    expect401(await gql(h.app, { apiKey: h.a.secretKey, jwt: h.a.jwt }, query))
  })

  it('answers 401 for a tampered, malformed or non-Bearer token', async () => {
    const tampered = h.a.jwt.slice(0, -3) + (h.a.jwt.endsWith('A') ? 'BBB' : 'AAA')
    expect401(await gql(h.app, { jwt: tampered }, query))
    expect401(await gql(h.app, { jwt: 'not-a-jwt' }, query))
    expect401(await gql(h.app, { headers: { authorization: `Basic ${btoa('a:b')}` } }, query))
  })

  it('answers 401 for the token of a user no longer in the organization', async () => {
    const org = await h.seedOrg('Leaving')
    expect((await gql(h.app, { jwt: org.jwt }, query)).status).toBe(200)
    await h.deps.db.sql`delete from memberships where org_id = ${org.orgId} and user_id = ${org.userId}`
    expect401(await gql(h.app, { jwt: org.jwt }, query))
  })

  it('checks the credential before looking at the query', async () => {
    expect401(await gql(h.app, {}, '{ this is not graphql'))
    expect401(await gql(h.app, {}, '', undefined, '[{"query":"{ a }"}]'))
  })

  it('serves POST only: GET /graphql is a 405 with Allow: POST in the error envelope', async () => {
    const res = await h.json('GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${h.a.jwt}` } })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect(res.body.error.code).toBe('method_not_allowed')
  })
})

describe('getPlanUsage', () => {
  const ALL = 'planId displayName sessionsUsed sessionsLimit percentUsed periodStart periodEnd'

  it('equals the getPlanUsage service output in camelCase', async () => {
    const res = await asA(`{ getPlanUsage { ${ALL} } }`)
    expect(res.status).toBe(200)
    const service = (await getPlanUsage(h.deps.db.sql, h.a.orgId, h.clock.now()))!
    expect(res.body.data.getPlanUsage).toEqual({
      planId: service.plan_id,
      displayName: service.display_name,
      sessionsUsed: service.sessions_used,
      sessionsLimit: service.sessions_limit,
      percentUsed: service.percent_used,
      periodStart: service.period_start,
      periodEnd: service.period_end,
    })
    expect(res.body.data.getPlanUsage).toMatchObject({ planId: 'free', sessionsUsed: 123, sessionsLimit: 1000, percentUsed: 12.3 })
  })

  it("reports only the caller's organization", async () => {
    const res = await gql(h.app, { jwt: h.b.jwt }, '{ getPlanUsage { sessionsUsed } }')
    expect(res.body.data.getPlanUsage.sessionsUsed).toBe(0)
  })

  it('answers any subset of fields, including a single one, with exactly those fields', async () => {
    const subsets = [
      ['percentUsed'],
      ['planId'],
      ['periodEnd', 'sessionsLimit'],
      ['displayName', 'sessionsUsed', 'periodStart'],
      ALL.split(' '),
    ]
    for (const fields of subsets) {
      const res = await asA(`{ getPlanUsage { ${fields.join(' ')} } }`)
      expect(res.body.errors).toBeUndefined()
      expect(Object.keys(res.body.data.getPlanUsage).sort()).toEqual([...fields].sort())
    }
  })

  it('is readable by a member', async () => {
    const memberId = await createUser(h.deps.db.sql, {
      orgId: h.a.orgId,
      email: 'reader@org-a.test',
      password: 'reader-password-1',
      role: 'member',
    })
    const jwt = await h.deps.tokens.sign({ sub: memberId, org: h.a.orgId, role: 'member' })
    const res = await gql(h.app, { jwt }, '{ getPlanUsage { sessionsUsed } }')
    expect(res.body.data.getPlanUsage.sessionsUsed).toBe(123)
  })
})

describe('ApiKeyPair field selection', () => {
  it('answers any subset of fields, including a single one, with exactly those fields', async () => {
    const all = ['keyPairId', 'name', 'sdkType', 'publicKey', 'secretKey', 'createdAt', 'lastUsedAt', 'revokedAt', 'allowedOrigins']
    const subsets = [
      ['keyPairId'],
      ['secretKey'],
      ['allowedOrigins'],
      ['sdkType', 'name'],
      ['createdAt', 'lastUsedAt', 'revokedAt', 'publicKey'],
      all,
    ]
    for (const fields of subsets) {
      const list = await asA(`{ listApiKeys { ${fields.join(' ')} } }`)
      expect(list.body.errors).toBeUndefined()
      for (const key of list.body.data.listApiKeys) expect(Object.keys(key).sort()).toEqual([...fields].sort())
      const created = await asA(`mutation { createApiKey(name: "subset", sdkType: IOS) { ${fields.join(' ')} } }`)
      expect(Object.keys(created.body.data.createApiKey).sort()).toEqual([...fields].sort())
    }
    const seeded = (await asA('{ listApiKeys { keyPairId sdkType publicKey } }')).body.data.listApiKeys.find(
      (k: any) => k.keyPairId === h.a.keyPairId
    )
    expect(seeded).toEqual({ keyPairId: h.a.keyPairId, sdkType: 'WEB', publicKey: h.a.publicKey })
  })

  it('supports fragments, aliases, __typename and operationName', async () => {
    const res = await asA(
      `
      query Other { getPlanUsage { planId } }
      query Mine { keys: listApiKeys { ...K } usage: getPlanUsage { __typename plan: planId } }
      fragment K on ApiKeyPair { id: keyPairId }`,
      undefined
    )
    expect(codes(res)).toEqual(['BAD_USER_INPUT'])
    const named = await gql(
      h.app,
      { jwt: h.a.jwt },
      '',
      undefined,
      JSON.stringify({
        query: `query Other { getPlanUsage { planId } }
              query Mine { keys: listApiKeys { ...K } usage: getPlanUsage { __typename plan: planId } }
              fragment K on ApiKeyPair { id: keyPairId }`,
        operationName: 'Mine',
      })
    )
    expect(named.body.errors).toBeUndefined()
    expect(named.body.data.usage).toEqual({ __typename: 'PlanUsage', plan: 'free' })
    expect(named.body.data.keys.map((k: any) => k.id)).toContain(h.a.keyPairId)
  })
})

describe('invalid requests', () => {
  const cases: [string, string][] = [
    ['syntax error', JSON.stringify({ query: '{ getPlanUsage { ' })],
    ['unknown field', JSON.stringify({ query: '{ nope }' })],
    ['missing sub-selection', JSON.stringify({ query: '{ getPlanUsage }' })],
    [
      'wrong variable type',
      JSON.stringify({ query: 'mutation($n: String!) { createApiKey(name: $n, sdkType: WEB) { name } }', variables: { n: 5 } }),
    ],
    [
      'missing required variable',
      JSON.stringify({ query: 'mutation($n: String!) { createApiKey(name: $n, sdkType: WEB) { name } }', variables: {} }),
    ],
    ['variables not an object', JSON.stringify({ query: '{ getPlanUsage { planId } }', variables: 'x' })],
    ['query not a string', JSON.stringify({ query: 42 })],
    ['no query', JSON.stringify({ variables: {} })],
    ['unknown operationName', JSON.stringify({ query: 'query A { getPlanUsage { planId } }', operationName: 'B' })],
    ['body not JSON', '{"query": '],
    ['body JSON null', 'null'],
    ['body a string', '"{ getPlanUsage { planId } }"'],
    ['batched array', JSON.stringify([{ query: '{ getPlanUsage { planId } }' }, { query: '{ listApiKeys { name } }' }])],
    ['subscription', JSON.stringify({ query: 'subscription { getPlanUsage { planId } }' })],
  ]
  for (const [name, body] of cases) {
    it(`refuses ${name} with 400 BAD_USER_INPUT, no data`, async () => {
      const res = await gql(h.app, { jwt: h.a.jwt }, '', undefined, body)
      expect(res.status).toBe(400)
      expect(res.body.errors.length).toBeGreaterThan(0)
      expect(new Set(codes(res))).toEqual(new Set(['BAD_USER_INPUT']))
      expect(res.body.data ?? null).toBeNull()
      for (const error of res.body.errors) expect(Object.keys(error.extensions).sort()).toEqual(['code'])
    })
  }

  it('refuses a body that is not JSON by media type with 415', async () => {
    const res = await h.request('POST', '/graphql', {
      rawBody: '{ getPlanUsage { planId } }',
      headers: { authorization: `Bearer ${h.a.jwt}`, 'content-type': 'application/graphql' },
    })
    expect(res.status).toBe(415)
    expect((await res.json()).errors[0].extensions.code).toBe('BAD_USER_INPUT')
  })

  it('refuses a body over 64 KiB', async () => {
    const res = await gql(
      h.app,
      { jwt: h.a.jwt },
      '',
      undefined,
      JSON.stringify({ query: '{ getPlanUsage { planId } }', variables: { pad: 'x'.repeat(70_000) } })
    )
    expect(res.status).toBe(413)
    expect(codes(res)).toEqual(['BAD_USER_INPUT'])
  })

  it('carries the request id and API version headers', async () => {
    const res = await gql(h.app, { jwt: h.a.jwt, headers: { 'x-request-id': 'gql-req-1' } }, '{ getPlanUsage { planId } }')
    expect(res.headers.get('x-request-id')).toBe('gql-req-1')
    expect(res.headers.get('x-api-version')).toBe('1.0.0')
    const unauth = await gql(h.app, { headers: { 'x-request-id': 'gql-req-2' } }, '{ getPlanUsage { planId } }')
    expect(unauth.headers.get('x-request-id')).toBe('gql-req-2')
  })
})

/** An app whose schema adds a recursive type and failing resolvers, to watch what limits and masking do. */
function probeApp(deps: Services, counter: { calls: number }) {
  const probePart: GraphQLPart = {
    typeDefs: `
      type Node { id: Int! child: Node }
      type Query { node: Node! boom: Int! down: Int! invalid: Int! }`,
    resolvers: {
      Query: {
        node: () => {
          counter.calls++
          return { id: 0 }
        },
        boom: () => {
          throw new Error('relation "api_key_pairs" does not exist: select secret_hash from api_key_pairs where org_id = $1')
        },
        down: () => {
          throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })
        },
        invalid: () => {
          throw new ApiError('validation_failed', 'allowedOrigins[1]: "ftp://probe.example" is not an origin')
        },
      },
      Node: { child: (parent: any) => ({ id: parent.id + 1 }) },
    },
  }
  return new Elysia().use(httpPipeline(deps)).use(graphqlModule({ ...deps, parts: [usageGraphQL(deps), probePart] }))
}

/** A query whose deepest field is at level `levels` (`{ node { id } }` is depth 2). */
const nest = (levels: number) => {
  let inner = 'id'
  for (let i = 2; i < levels; i++) inner = `id child { ${inner} }`
  return `{ node { ${inner} } }`
}

describe('query limits', () => {
  it(`executes a query of depth ${DEFAULT_LIMITS.maxDepth} and refuses depth ${DEFAULT_LIMITS.maxDepth + 1} without executing it`, async () => {
    const counter = { calls: 0 }
    const app = probeApp(h.deps, counter)
    const ok = await gql(app, { jwt: h.a.jwt }, nest(DEFAULT_LIMITS.maxDepth))
    expect(ok.body.errors).toBeUndefined()
    expect(counter.calls).toBe(1)
    const deep = await gql(app, { jwt: h.a.jwt }, nest(DEFAULT_LIMITS.maxDepth + 1))
    expect(deep.status).toBe(400)
    expect(codes(deep)).toEqual(['BAD_USER_INPUT'])
    expect(deep.body.errors[0].message).toContain('depth')
    expect(counter.calls).toBe(1)
  })

  it('counts depth through fragments', async () => {
    const counter = { calls: 0 }
    const app = probeApp(h.deps, counter)
    const query = `{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { child { ...C } }
      fragment C on Node { child { child { child { child { child { child { id } } } } } } }`
    const res = await gql(app, { jwt: h.a.jwt }, query)
    expect(res.status).toBe(400)
    expect(res.body.errors[0].message).toContain('depth')
    expect(counter.calls).toBe(0)
  })

  it(`refuses more than ${DEFAULT_LIMITS.maxAliases} aliases without executing`, async () => {
    const counter = { calls: 0 }
    const app = probeApp(h.deps, counter)
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: node { id }`).join(' ')} }`
    expect((await gql(app, { jwt: h.a.jwt }, aliased(DEFAULT_LIMITS.maxAliases))).body.errors).toBeUndefined()
    expect(counter.calls).toBe(DEFAULT_LIMITS.maxAliases)
    const res = await gql(app, { jwt: h.a.jwt }, aliased(DEFAULT_LIMITS.maxAliases + 1))
    expect(res.status).toBe(400)
    expect(res.body.errors[0].message).toContain('aliases')
    expect(counter.calls).toBe(DEFAULT_LIMITS.maxAliases)
  })

  it('refuses a fragment fan-out whose expansion exceeds the field limit, without executing', async () => {
    const counter = { calls: 0 }
    const app = probeApp(h.deps, counter)
    // Each level spreads the previous fragment five times: 5^4 expanded fields from a short query.
    const query = `{ node { ...F5 } }
      fragment F1 on Node { id }
      fragment F2 on Node { ...F1 ...F1 ...F1 ...F1 ...F1 }
      fragment F3 on Node { ...F2 ...F2 ...F2 ...F2 ...F2 }
      fragment F4 on Node { ...F3 ...F3 ...F3 ...F3 ...F3 }
      fragment F5 on Node { ...F4 ...F4 ...F4 ...F4 ...F4 }`
    const res = await gql(app, { jwt: h.a.jwt }, query)
    expect(res.status).toBe(400)
    expect(res.body.errors[0].message).toContain('fields')
    expect(counter.calls).toBe(0)
  })

  it('refuses too many directives, too many tokens and an over-long query', async () => {
    const counter = { calls: 0 }
    const app = probeApp(h.deps, counter)
    const directives = `{ node { id ${'@include(if: true) '.repeat(DEFAULT_LIMITS.maxDirectives + 1)} } }`
    const manyDirectives = await gql(app, { jwt: h.a.jwt }, directives)
    expect(manyDirectives.status).toBe(400)
    expect(manyDirectives.body.errors[0].message).toContain('directives')
    // Under maxQueryLength characters, but more than maxTokens tokens.
    const tokens = `{ node { id ${'a '.repeat(DEFAULT_LIMITS.maxTokens)} } }`
    expect(tokens.length).toBeLessThan(DEFAULT_LIMITS.maxQueryLength)
    const manyTokens = await gql(app, { jwt: h.a.jwt }, tokens)
    expect(manyTokens.status).toBe(400)
    expect(manyTokens.body.errors[0].message).toContain('tokens')
    const long = await gql(app, { jwt: h.a.jwt }, `{ node { id } }${' '.repeat(DEFAULT_LIMITS.maxQueryLength)}`)
    expect(long.status).toBe(400)
    expect(long.body.errors[0].message).toContain('longer')
    expect(counter.calls).toBe(0)
  })
})

describe('errors never leak internals', () => {
  it('masks an unexpected resolver error (no message, SQL or stack) and logs it server-side', async () => {
    const app = probeApp(h.deps, { calls: 0 })
    const res = await gql(app, { jwt: h.a.jwt }, '{ boom }')
    expect(res.status).toBe(200)
    expect(res.body.data).toBeNull()
    expect(res.body.errors[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' })
    expect(res.text).not.toContain('api_key_pairs')
    expect(res.text).not.toContain('secret_hash')
    expect(res.text).not.toMatch(/at .*\.ts:\d+/)
    expect(h.logs.some((line) => line.includes('graphql unexpected error') && line.includes('does not exist'))).toBe(true)
  })

  it('answers a client’s mistake with its code and does not log it as an unexpected error', async () => {
    const app = probeApp(h.deps, { calls: 0 })
    const res = await gql(app, { jwt: h.a.jwt }, '{ invalid }')
    expect(codes(res)).toEqual(['BAD_USER_INPUT'])
    expect(res.body.errors[0].message).toContain('ftp://probe.example')
    expect(h.logs.some((line) => line.includes('ftp://probe.example'))).toBe(false)
  })

  it('answers a database outage as UNAVAILABLE with 503 and Retry-After', async () => {
    const app = probeApp(h.deps, { calls: 0 })
    const res = await gql(app, { jwt: h.a.jwt }, '{ down }')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(codes(res)).toEqual(['UNAVAILABLE'])
    expect(res.text).not.toContain('10.0.0.5')
  })
})

describe('introspection', () => {
  it('is available outside production', async () => {
    const res = await asA('{ __schema { queryType { name } } }')
    expect(res.body.data.__schema.queryType.name).toBe('Query')
  })

  it('is refused in production, while normal queries still work', async () => {
    const prodDeps: Services = { ...h.deps, config: { ...h.deps.config, env: 'production' } }
    const parts = [usageGraphQL(prodDeps), keysGraphQL(prodDeps), orgGraphQL(prodDeps)]
    const app = new Elysia().use(httpPipeline(prodDeps)).use(graphqlModule({ ...prodDeps, parts }))
    const schema = await gql(app, { jwt: h.a.jwt }, '{ __schema { types { name } } }')
    expect(schema.status).toBe(400)
    expect(new Set(codes(schema))).toEqual(new Set(['BAD_USER_INPUT']))
    expect(schema.body.data ?? null).toBeNull()
    const type = await gql(app, { jwt: h.a.jwt }, '{ __type(name: "ApiKeyPair") { fields { name } } }')
    expect(type.status).toBe(400)
    expect(type.text).not.toContain('keyPairId')
    const usage = await gql(app, { jwt: h.a.jwt }, '{ getPlanUsage { planId __typename } }')
    expect(usage.body.data.getPlanUsage).toEqual({ planId: 'free', __typename: 'PlanUsage' })
  })
})

describe('merged schema', () => {
  it("serves every module's part in one schema", async () => {
    const res = await asA('{ getPlanUsage { planId } listApiKeys { keyPairId } listSupportTickets { ticketId } }')
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.getPlanUsage.planId).toBe('free')
    expect(Array.isArray(res.body.data.listSupportTickets)).toBe(true)
  })
})
