/**
 * Hostile input on POST /graphql, proven by properties (fast-check). Queries and mutations
 * generated from the schema succeed; deep, wide, aliased, batched, cyclic, huge and
 * directive-laden documents, variables of wrong types, broken bodies and bad credentials are
 * refused with a contract error code and are NOT executed: every request's row delta must equal
 * exactly the keys its response reports as created (so a refused `createApiKey` x50 creates none).
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import fc from 'fast-check'
import * as v from 'valibot'
import { DEFAULT_LIMITS } from '../../src/server/modules/graphql/limits'
import { CreateKeyInput } from '../../src/server/modules/keys/model'
import { createUser } from '../../tenants/provision'
import { createHarness, type Harness } from '../helpers/harness'
import {
  assertNoLeak,
  assertNoPollution,
  assertRestInvariants,
  contentTypes,
  delta,
  fcParams,
  hostileBodies,
  hostileString,
  HOSTILE_ENV,
  FuzzLedger,
  nastyUnit,
  nestedText,
  prototypeSnapshot,
  rowCounts,
  send,
  wrongValue,
  type Got,
} from './fuzz-support'

// Properties run hundreds of requests; nothing here asserts on time (FUZZ_RUNS_FACTOR makes them longer still).
setDefaultTimeout(600_000)

let h: Harness
let memberJwt: string
const ledger = new FuzzLedger('graphql')
const prototypesBefore = prototypeSnapshot()

beforeAll(async () => {
  h = await createHarness({ env: HOSTILE_ENV })
  const memberId = await createUser(h.deps.db.sql, {
    orgId: h.a.orgId,
    email: 'member@fuzz.test',
    password: 'member-password-1',
    role: 'member',
  })
  memberJwt = await h.deps.tokens.sign({ sub: memberId, org: h.a.orgId, role: 'member' })
})
afterAll(async () => {
  ledger.report()
  await h.close()
})

const CONTRACT_CODES = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT', 'NOT_FOUND'])
const owner = () => ({ authorization: `Bearer ${h.a.jwt}`, 'content-type': 'application/json' })

/** What every /graphql answer satisfies: no 5xx, the standard shape, contract codes only, no data when refused, no leak. */
function assertGraphQLInvariants(got: Got) {
  if (got.status >= 500) throw new Error(`status ${got.status}: ${got.text.slice(0, 400)}`)
  expect(got.headers.get('x-api-version')).toBe('1.0.0')
  expect(got.headers.get('x-request-id')).toBeTruthy()
  assertNoLeak(got)
  expect(got.json && typeof got.json === 'object' && !Array.isArray(got.json)).toBe(true)
  for (const key of Object.keys(got.json)) expect(['data', 'errors']).toContain(key)
  if (got.json.errors !== undefined) {
    expect(Array.isArray(got.json.errors) && got.json.errors.length > 0).toBe(true)
    for (const error of got.json.errors) {
      expect(typeof error.message).toBe('string')
      const code = error.extensions?.code
      if (!CONTRACT_CODES.has(code)) throw new Error(`error code ${code}: ${got.text.slice(0, 400)}`)
      for (const key of Object.keys(error.extensions)) expect(['code', 'details']).toContain(key)
    }
  }
  if (got.status >= 400) {
    expect(got.json.errors?.length).toBeGreaterThan(0)
    expect(got.json.data ?? null).toBeNull()
  }
  if (got.status === 401) expect(got.json.errors.map((e: any) => e.extensions.code)).toEqual(['UNAUTHENTICATED'])
}

/** Keys a response reports as created: every top-level result carrying a new secret (createApiKey always selects it here). */
const createdIn = (got: Got) =>
  got.json?.data && typeof got.json.data === 'object'
    ? Object.values(got.json.data).filter((r: any) => r && typeof r === 'object' && typeof r.secretKey === 'string').length
    : 0

type Case = { label: string; body: string | Uint8Array; headers?: Record<string, string | null>; check?: (got: Got) => void }

/**
 * An organization holds at most 100 active key pairs (tests/security/attack-graphql.test.ts): the
 * fuzz creates thousands, so it revokes the older ones as it goes (an update; row counts stay).
 */
async function makeRoomForKeys() {
  await h.deps.db.sql`
    update api_key_pairs set revoked_at = now()
    where org_id = ${h.a.orgId} and key_pair_id <> ${h.a.keyPairId} and revoked_at is null
      and (select count(*) from api_key_pairs where org_id = ${h.a.orgId} and revoked_at is null) > 60`
}

/** One request: invariants, its own check, and rows changed by exactly the keys it reports. */
async function run(c: Case): Promise<Got> {
  ledger.cases++
  const headers: Record<string, string> = { ...owner() }
  for (const [k, val] of Object.entries(c.headers ?? {})) {
    if (val === null) delete headers[k]
    else headers[k] = val
  }
  await makeRoomForKeys()
  const before = await rowCounts(h)
  const got = await send(h, { method: 'POST', path: '/graphql', headers, body: c.body })
  ledger.tally(`${c.label.split(' ')[0]} ${got.status} ${got.json?.errors?.[0]?.extensions?.code ?? 'ok'}`)
  try {
    assertGraphQLInvariants(got)
    const created = createdIn(got)
    expect(delta(before, await rowCounts(h))).toEqual(created ? { api_key_pairs: created } : {})
    c.check?.(got)
  } catch (error) {
    throw new Error(`${c.label}: ${(error as Error).message}\n${got.status} ${got.text.slice(0, 300)}`)
  }
  return got
}

/** Refused before execution: 400, BAD_USER_INPUT only, no data, nothing created; the message names the limit when given. */
const refused = (reason?: RegExp) => (got: Got) => {
  expect(got.status).toBe(400)
  expect(new Set(got.json.errors.map((e: any) => e.extensions.code))).toEqual(new Set(['BAD_USER_INPUT']))
  expect(got.json.data ?? null).toBeNull()
  expect(createdIn(got)).toBe(0)
  if (reason) expect(got.json.errors.map((e: any) => e.message).join(' | ')).toMatch(reason)
}

// ---------------------------------------------------------------------------------------------
// The schema, as the contract gives it

const PLAN_USAGE = ['planId', 'displayName', 'sessionsUsed', 'sessionsLimit', 'percentUsed', 'periodStart', 'periodEnd']
const API_KEY_PAIR = ['keyPairId', 'name', 'sdkType', 'publicKey', 'secretKey', 'createdAt', 'lastUsedAt', 'revokedAt', 'allowedOrigins']
const TICKET = ['ticketId', 'subject', 'message', 'priority', 'status', 'createdAt']
const ROOTS: Record<string, { type: string; fields: string[] }> = {
  getPlanUsage: { type: 'PlanUsage', fields: PLAN_USAGE },
  listApiKeys: { type: 'ApiKeyPair', fields: API_KEY_PAIR },
  listSupportTickets: { type: 'SupportTicket', fields: TICKET },
}
const SDK_TYPES = ['WEB', 'IOS', 'ANDROID', 'SERVER']

const alias = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/).filter((s) => !s.startsWith('__'))
const ws = fc.constantFrom(' ', '\n', '\t', ' , ', ' # comment\n', '\r\n', ',')
const subset = (fields: string[]) => fc.shuffledSubarray(fields, { minLength: 1 })

/** A read query with 1–3 root selections, optional aliases, fragments, inline fragments and a few @include/@skip. */
const validQuery = fc
  .tuple(
    fc.uniqueArray(fc.tuple(fc.constantFrom(...Object.keys(ROOTS)), fc.option(alias, { nil: undefined })), {
      minLength: 1,
      maxLength: 3,
      selector: ([root, a]) => a ?? root,
    }),
    fc.array(
      fc.tuple(subset(PLAN_USAGE), subset(API_KEY_PAIR), subset(TICKET), fc.constantFrom('plain', 'fragment', 'inline', 'directive')),
      { minLength: 3, maxLength: 3 }
    ),
    ws,
    fc.constantFrom('', 'query ', 'query Q ', 'query Q($flag: Boolean = true) ')
  )
  // A request may ask for 200 list rows in all: three default pages of listApiKeys (3 × 100) are refused.
  .filter(([roots]) => roots.filter(([root]) => root === 'listApiKeys').length <= 2)
  .map(([roots, shapes, sep, head]) => {
    const fragments: string[] = []
    const expected: Record<string, string[]> = {}
    const selections = roots.map(([root, a], i) => {
      const { type } = ROOTS[root]!
      const [pu, ak, tk, style] = shapes[i]!
      const fields = type === 'PlanUsage' ? pu : type === 'ApiKeyPair' ? ak : tk
      expected[a ?? root] = fields
      const inner = fields.join(sep)
      let body = inner
      if (style === 'fragment') {
        fragments.push(`fragment F${i} on ${type} { ${inner} }`)
        body = `...F${i}`
      } else if (style === 'inline') body = `... on ${type} { ${inner} }`
      else if (style === 'directive') body = `${inner} __typename @include(if: true) planless: __typename @skip(if: true)`
      return `${a ? `${a}: ` : ''}${root} { ${body} }`
    })
    if (head.includes('$flag')) {
      selections.push('flagged: __typename @include(if: $flag)')
      expected.flagged = []
    }
    const query = `${head === '' && fragments.length === 0 ? '' : head || 'query '}{ ${selections.join(sep)} }${sep}${fragments.join(sep)}`
    return { query, expected }
  })

const origin = fc
  .tuple(
    fc.constantFrom('http', 'https', 'HTTPS'),
    fc.oneof(fc.domain(), fc.constantFrom('localhost', '127.0.0.1', 'Shop.Example.COM')),
    fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    fc.boolean()
  )
  .map(([scheme, host, port, slash]) => `${scheme}://${host}${port ? `:${port}` : ''}${slash ? '/' : ''}`)

/** createApiKey arguments the contract accepts: a name of 1–100 characters (no NUL), an SdkType, up to 20 origins or none. */
const validKeyVars = fc.record(
  {
    name: fc
      .string({ unit: nastyUnit.filter((c) => c !== '\u0000'), minLength: 1, maxLength: 60 })
      .filter((s) => s.trim().length >= 1 && s.trim().length <= 100),
    sdkType: fc.constantFrom(...SDK_TYPES),
    allowedOrigins: fc.oneof(fc.constant(null), fc.array(origin, { maxLength: 20 })),
  },
  { requiredKeys: ['name', 'sdkType'] }
)

const CREATE =
  'mutation Create($name: String!, $sdkType: SdkType!, $allowedOrigins: [String!]) { createApiKey(name: $name, sdkType: $sdkType, allowedOrigins: $allowedOrigins) { keyPairId secretKey name sdkType allowedOrigins } }'
const CREATE_INLINE = 'createApiKey(name: "fuzz", sdkType: WEB) { keyPairId secretKey }'

// ---------------------------------------------------------------------------------------------

describe('valid requests', () => {
  it('answers every generated read query with exactly the selected fields, no errors', async () => {
    await fc.assert(
      fc.asyncProperty(validQuery, async ({ query, expected }) => {
        await run({
          label: `query ${query.slice(0, 80)}`,
          body: JSON.stringify({ query }),
          check: (got) => {
            expect(got.status).toBe(200)
            expect(got.json.errors).toBeUndefined()
            expect(Object.keys(got.json.data).sort()).toEqual(Object.keys(expected).sort())
            for (const [key, fields] of Object.entries(expected)) {
              const results = Array.isArray(got.json.data[key]) ? got.json.data[key] : [got.json.data[key]]
              for (const result of results) for (const field of fields) expect(field in result).toBe(true)
            }
          },
        })
      }),
      fcParams(120)
    )
  })

  it('creates exactly one key for every contract-valid createApiKey, whose secret then works', async () => {
    await fc.assert(
      fc.asyncProperty(validKeyVars, async (variables) => {
        const got = await run({
          label: 'create valid',
          body: JSON.stringify({ query: CREATE, variables, operationName: 'Create' }),
          check: (got) => {
            expect(got.status).toBe(200)
            expect(got.json.errors).toBeUndefined()
            const key = got.json.data.createApiKey
            // Stored as UTF-8: a lone surrogate comes back as U+FFFD.
            expect(key.name).toBe(variables.name.trim().toWellFormed())
            expect(key.sdkType).toBe(variables.sdkType)
            expect(key.allowedOrigins).toEqual([...new Set((variables.allowedOrigins ?? []).map((o) => new URL(o).origin))])
            expect(key.secretKey).toMatch(/^svc_live_sk_[0-9A-Za-z]{32,}$/)
          },
        })
        const usage = await send(h, {
          method: 'GET',
          path: '/v1/org/usage',
          headers: { 'x-api-key': got.json.data.createApiKey.secretKey },
        })
        assertRestInvariants(usage)
        expect(usage.status).toBe(200)
      }),
      fcParams(40)
    )
  })
})

describe('hostile requests are refused with a contract code and not executed', () => {
  const L = DEFAULT_LIMITS
  const field = (q: string) => JSON.stringify({ query: q })

  const deep = fc
    .tuple(fc.integer({ min: L.maxDepth + 1, max: 1500 }), fc.constantFrom('name', 'allowedOrigins', 'x'))
    .map(([depth, f]) => {
      let inner: string = f
      for (let i = 2; i < depth; i++) inner = `${f} { ${inner} }`
      return {
        label: `deep ${depth}`,
        body: field(`mutation { createApiKey(name: "deep", sdkType: WEB) { keyPairId secretKey ${inner} } }`),
        check: refused(/depth|tokens|longer/),
      } as Case
    })
  // createApiKey, then one level per fragment, then the leaf: depth n + 2.
  const deepFragments = fc.integer({ min: L.maxDepth - 1, max: 40 }).map((n) => {
    const frags = Array.from({ length: n }, (_, i) => `fragment D${i} on ApiKeyPair { name { ${i + 1 < n ? `...D${i + 1}` : 'x'} } }`)
    return {
      label: `deep-fragments ${n}`,
      body: field(`mutation { createApiKey(name: "deep", sdkType: WEB) { keyPairId secretKey ...D0 } } ${frags.join(' ')}`),
      check: refused(/depth|tokens/),
    } as Case
  })
  const wide = fc
    .tuple(fc.integer({ min: L.maxFields + 1, max: 1900 }), fc.constantFrom('name', 'keyPairId', '__typename'))
    .map(([n, f]) => ({
      label: `wide ${n}`,
      body: field(`mutation { createApiKey(name: "wide", sdkType: WEB) { secretKey ${`${f} `.repeat(n)} } }`),
      check: refused(/fields|tokens|longer/),
    }))
  const aliased = fc.integer({ min: 1, max: 60 }).map((n) => ({
    label: `aliased ${n}`,
    body: field(
      `mutation { ${Array.from({ length: n }, (_, i) => `k${i}: createApiKey(name: "alias ${i}", sdkType: WEB) { keyPairId secretKey }`).join(' ')} }`
    ),
    check: (got: Got) => {
      if (n > L.maxAliases) refused(/aliases/)(got)
      else {
        expect(got.status).toBe(200)
        expect(createdIn(got)).toBe(n)
      }
    },
  }))
  const batched = fc.integer({ min: 1, max: 6 }).map((n) => ({
    label: `batched ${n}`,
    body: JSON.stringify(Array.from({ length: n }, () => ({ query: `mutation { ${CREATE_INLINE} }` }))),
    check: refused(),
  }))
  const cycles = fc.integer({ min: 1, max: 12 }).map((n) => {
    const frags = Array.from({ length: n }, (_, i) => `fragment C${i} on ApiKeyPair { name ...C${(i + 1) % n} }`)
    return {
      label: `cycle ${n}`,
      body: field(`mutation { createApiKey(name: "cycle", sdkType: WEB) { keyPairId secretKey ...C0 } } ${frags.join(' ')}`),
      check: refused(),
    }
  })
  const huge = fc
    .tuple(fc.integer({ min: L.maxQueryLength + 1, max: 80_000 }), fc.constantFrom(' ', '#', ',', '\n'), fc.boolean())
    .map(([n, pad, inName]) => {
      const query = inName
        ? `mutation { createApiKey(name: "${'x'.repeat(n)}", sdkType: WEB) { keyPairId secretKey } }`
        : `mutation { ${CREATE_INLINE} }${pad === '#' ? `#${'c'.repeat(n)}` : pad.repeat(n)}`
      const body = field(query)
      return {
        label: `huge ${n}`,
        body,
        check: (got: Got) => {
          if (body.length > 64 * 1024) {
            expect(got.status).toBe(413)
            expect(createdIn(got)).toBe(0)
          } else if (query.length > L.maxQueryLength) refused(/longer/)(got)
          else expect(createdIn(got)).toBe(0)
        },
      }
    })
  const longName = fc.integer({ min: 101, max: 9000 }).map((n) => ({
    label: `long-name ${n}`,
    body: field(`mutation { createApiKey(name: "${'n'.repeat(n)}", sdkType: WEB) { keyPairId secretKey } }`),
    check: (got: Got) => {
      expect(got.status).toBe(200)
      expect(got.json.data).toBeNull()
      expect(got.json.errors[0].extensions.code).toBe('BAD_USER_INPUT')
    },
  }))
  const directives = fc
    .tuple(
      fc.integer({ min: L.maxDirectives + 1, max: 400 }),
      fc.constantFrom('@include(if: true)', '@skip(if: false)', '@foo', '@deprecated', '@specifiedBy(url: "x")')
    )
    .map(([n, d]) => ({
      label: `directives ${n}`,
      body: field(`mutation { createApiKey(name: "dir", sdkType: WEB) ${`${d} `.repeat(n)}{ keyPairId secretKey } }`),
      check: refused(/directives|tokens|longer/),
    }))
  const unknownDirective = fc.constantFrom('@foo', '@bar(x: 1)', '@include', '@include(if: "yes")', '@skip(if: null)').map((d) => ({
    label: `bad-directive ${d}`,
    body: field(`mutation { createApiKey(name: "dir", sdkType: WEB) ${d} { keyPairId secretKey } }`),
    check: refused(),
  }))
  const operations = fc
    .constantFrom(
      { query: `mutation A { ${CREATE_INLINE} } mutation B { ${CREATE_INLINE} }` },
      { query: `mutation A { ${CREATE_INLINE} }`, operationName: 'B' },
      { query: `mutation A { ${CREATE_INLINE} }`, operationName: 42 },
      { query: `subscription { ${CREATE_INLINE} }` },
      { query: `mutation { ${CREATE_INLINE} } { getPlanUsage { planId } }` },
      { query: `mutation($n: String!) { createApiKey(name: $n, sdkType: WEB) { keyPairId secretKey } }` },
      { query: `mutation { createApiKey(name: "x", sdkType: web) { keyPairId secretKey } }` },
      { query: `mutation { createApiKey(name: "x", sdkType: "WEB") { keyPairId secretKey } }` },
      { query: `mutation { createApiKey(name: 1, sdkType: WEB) { keyPairId secretKey } }` },
      { query: `mutation { createApiKey(name: "x", sdkType: WEB, extra: 1) { keyPairId secretKey } }` },
      { query: `mutation { createApiKey(name: "x", sdkType: WEB) }` },
      { query: `mutation { createApiKey(name: "\\ud800", sdkType: WEB) { keyPairId secretKey } }` },
      { query: `mutation { createApiKey(name: "x", sdkType: WEB) { keyPairId secretKey } ` },
      { query: '' },
      { query: '   ' },
      { query: '{ __typename' },
      {}
    )
    .map((b) => ({ label: `operation ${JSON.stringify(b).slice(0, 60)}`, body: JSON.stringify(b), check: refused() }))

  const forbidden = () =>
    fc.constant({
      label: 'member create',
      body: field(`mutation { ${CREATE_INLINE} }`),
      headers: { authorization: `Bearer ${memberJwt}` },
      check: (got: Got) => {
        expect(got.status).toBe(200)
        expect(got.json.errors[0].extensions.code).toBe('FORBIDDEN')
        expect(got.json.data).toBeNull()
      },
    })
  const missing = fc.constantFrom('revokeApiKey', 'rotateApiKey').chain((op) =>
    fc
      .oneof(
        fc.uuid().map((id) => ({ id, code: 'NOT_FOUND' })),
        hostileString.map((id) => ({ id: id.slice(0, 200), code: 'BAD_USER_INPUT' }))
      )
      .map(({ id, code }) => ({
        label: `${op} ${code}`,
        body: JSON.stringify({ query: `mutation($id: ID!) { ${op}(keyPairId: $id) { keyPairId secretKey } }`, variables: { id } }),
        check: (got: Got) => {
          expect(got.status).toBe(200)
          expect(got.json.data).toBeNull()
          // A malformed id can still look like a UUID (then it is simply not found).
          expect(['NOT_FOUND', 'BAD_USER_INPUT']).toContain(got.json.errors[0].extensions.code)
          if (code === 'NOT_FOUND') expect(got.json.errors[0].extensions.code).toBe('NOT_FOUND')
        },
      }))
  )

  it('deep, wide, aliased, batched, cyclic, huge, directive-laden and malformed documents', async () => {
    const hostileDoc = fc.oneof(
      deep,
      deepFragments,
      wide,
      aliased,
      batched,
      cycles,
      huge,
      longName,
      directives,
      unknownDirective,
      operations,
      forbidden(),
      missing
    )
    await fc.assert(
      fc.asyncProperty(hostileDoc, async (c) => void (await run(c))),
      fcParams(300)
    )
  })

  it('createApiKey with variables of wrong types: refused before execution, or by the input rules, never executed twice', async () => {
    type Vars = Record<string, unknown>
    const mutateVars = fc
      .tuple(
        validKeyVars,
        fc.constantFrom('name', 'sdkType', 'allowedOrigins', 'allowedOrigins.0', 'extra'),
        fc.oneof(wrongValue, fc.constant(undefined))
      )
      .map(([vars, path, w]) => {
        const copy: Vars = structuredClone(vars)
        const [key, index] = path.split('.')
        if (index !== undefined && Array.isArray(copy.allowedOrigins) && copy.allowedOrigins.length)
          (copy.allowedOrigins as unknown[])[0] = w
        else if (w === undefined) delete copy[key!]
        else copy[key!] = w
        return copy
      })
    const variables = fc.oneof({ weight: 5, arbitrary: mutateVars }, { weight: 1, arbitrary: wrongValue })

    /** GraphQL's own input coercion of the three variables (graphql-js rules). */
    const coerces = (vars: unknown): boolean => {
      if (vars === null || vars === undefined) return false // $name and $sdkType are required
      if (typeof vars !== 'object' || Array.isArray(vars)) return false
      const { name, sdkType, allowedOrigins } = vars as Vars
      if (typeof name !== 'string' || typeof sdkType !== 'string' || !SDK_TYPES.includes(sdkType)) return false
      if (allowedOrigins === undefined || allowedOrigins === null || typeof allowedOrigins === 'string') return true
      return Array.isArray(allowedOrigins) && allowedOrigins.every((o) => typeof o === 'string')
    }

    await fc.assert(
      fc.asyncProperty(variables, async (vars) => {
        const body = JSON.stringify({ query: CREATE, variables: vars })
        // What reaches the resolver: the JSON round trip of the variables, as coerced by GraphQL.
        const sent = JSON.parse(body).variables
        await run({
          label: `variables ${body.slice(CREATE.length + 25, CREATE.length + 125)}`,
          body,
          check: (got) => {
            if (new TextEncoder().encode(body).length > 64 * 1024) return void expect(got.status).toBe(413)
            if (!coerces(sent)) return refused()(got)
            const o = sent.allowedOrigins
            const input = { name: sent.name, sdkType: sent.sdkType.toLowerCase(), allowedOrigins: typeof o === 'string' ? [o] : o }
            expect(got.status).toBe(200)
            if (v.safeParse(CreateKeyInput, input).success) expect(createdIn(got)).toBe(1)
            else {
              expect(got.json.data).toBeNull()
              expect(got.json.errors.map((e: any) => e.extensions.code)).toEqual(['BAD_USER_INPUT'])
            }
          },
        })
      }),
      fcParams(200)
    )
  })

  it('broken bodies: not JSON, NaN literals, deep nesting, prototype and duplicate keys, arrays, bytes, other content types', async () => {
    const validBody = validKeyVars.map((variables) => ({ query: CREATE, variables }))
    await fc.assert(
      fc.asyncProperty(hostileBodies(validBody), async (m) => {
        const got = await run({
          label: `body ${m.label}`,
          body: m.body,
          headers: { 'content-type': m.contentType === undefined ? 'application/json' : m.contentType },
        })
        const type = (got.contentType.split(';')[0] ?? '').trim().toLowerCase()
        if (type !== 'application/json' && type !== 'application/graphql+json') expect(got.status).toBe(415)
        let parsed: unknown
        try {
          parsed = JSON.parse(new TextDecoder().decode(typeof m.body === 'string' ? new TextEncoder().encode(m.body) : m.body))
        } catch {
          parsed = undefined
        }
        // Not JSON, or not one request object: refused without execution.
        if (parsed === undefined || parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          expect(got.status).toBeGreaterThanOrEqual(400)
      }),
      fcParams(300)
    )
  })

  it('answers any credential but a valid JWT with 401 UNAUTHENTICATED before reading the body', async () => {
    const tamper = (s: string, i: number) => s.slice(0, i % s.length) + (s[i % s.length] === 'A' ? 'B' : 'A') + s.slice((i % s.length) + 1)
    const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\xa0-\xff]/g, '')
    const credential = fc.oneof(
      fc.constant({ authorization: null }),
      fc.nat().map((i) => ({ authorization: `Bearer ${tamper(h.a.jwt, i)}` })),
      fc.constantFrom(
        { authorization: null, 'x-api-key': h.a.secretKey },
        { authorization: null, 'x-api-key': h.a.publicKey },
        { authorization: `Basic ${btoa('a:b')}` },
        { authorization: `Bearer ${h.a.jwt}`, 'x-api-key': h.a.secretKey },
        { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
        { authorization: `Bearer ${h.a.jwt.split('.').slice(0, 2).join('.')}.` },
        { authorization: h.a.jwt }
      ),
      hostileString.map((s) => ({ authorization: `Bearer ${headerSafe(s)}` }))
    )
    const body = fc.oneof(
      fc.constant(JSON.stringify({ query: `mutation { ${CREATE_INLINE} }` })),
      fc.constant('{ not json'),
      fc.constant(nestedText(10_000, 'array')),
      fc.uint8Array({ maxLength: 64 })
    )
    await fc.assert(
      fc.asyncProperty(credential, body, contentTypes, async (headers, b, type) => {
        await run({
          label: 'credential',
          body: b,
          headers: { ...headers, 'content-type': type },
          check: (got) => {
            expect(got.status).toBe(401)
            expect(got.headers.get('www-authenticate')).toBe('Bearer')
          },
        })
      }),
      fcParams(120)
    )
  })

  it('answers other methods on /graphql with the REST 405 envelope and Allow: POST', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE'),
        fc.constantFrom('', `?query=${encodeURIComponent(`mutation { ${CREATE_INLINE} }`)}`),
        async (method, query) => {
          ledger.cases++
          const before = await rowCounts(h)
          const got = await send(h, {
            method,
            path: `/graphql${query}`,
            headers: owner(),
            body: method === 'GET' ? undefined : JSON.stringify({ query: `mutation { ${CREATE_INLINE} }` }),
          })
          assertRestInvariants(got)
          expect(got.status).toBe(405)
          expect(got.headers.get('allow')).toBe('POST')
          expect(delta(before, await rowCounts(h))).toEqual({})
        }
      ),
      fcParams(20)
    )
  })
})

describe('regressions and the cases named in issue 9', () => {
  it('takes Content-Type in any case (APPLICATION/JSON was an empty 415 without a GraphQL error)', async () => {
    for (const type of ['APPLICATION/JSON', 'Application/Json; Charset=UTF-8', 'APPLICATION/GRAPHQL+JSON']) {
      await run({
        label: `content-type ${type}`,
        body: JSON.stringify({ query: '{ getPlanUsage { planId } }' }),
        headers: { 'content-type': type },
        check: (got) => expect(got.json.data.getPlanUsage.planId).toBe('free'),
      })
    }
  })

  it('refuses 50 aliased createApiKey mutations and creates no key', async () => {
    const query = `mutation { ${Array.from({ length: 50 }, (_, i) => `k${i}: createApiKey(name: "x${i}", sdkType: WEB) { keyPairId secretKey }`).join(' ')} }`
    await run({ label: 'aliased 50', body: JSON.stringify({ query }), check: refused(/aliases/) })
  })

  it('answers 401 for a token signed with the server key whose ids are not UUIDs (was a 500)', async () => {
    const token = await h.deps.tokens.sign({ sub: 'x', org: "'; select 1 --", role: 'owner' } as any)
    await run({
      label: 'forged claims',
      body: JSON.stringify({ query: `mutation { ${CREATE_INLINE} }` }),
      headers: { authorization: `Bearer ${token}` },
      check: (got) => expect(got.status).toBe(401),
    })
  })
})

it('left no prototype polluted', () => {
  assertNoPollution(prototypesBefore)
})
