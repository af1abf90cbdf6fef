/**
 * Hostile input on the REST API, proven by properties (fast-check). For every endpoint: bodies
 * generated from the contract succeed; then mutated bodies (wrong types, missing and extra fields,
 * huge strings and numbers, deep nesting, unicode, prototype keys, duplicate keys, non-JSON
 * literals, other content types, random bytes) get exactly the answer an independent oracle
 * predicts, never a 5xx, always the error envelope, never a stack trace or SQL, and a refused
 * request stores nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, setDefaultTimeout } from 'bun:test'
import fc from 'fast-check'
import type * as v from 'valibot'
import { LiveScoreBody } from '../../src/server/modules/demo/model'
import { ingestBody } from '../../src/server/modules/ingest/model'
import { createKeyPair } from '../../src/server/modules/keys/service'
import { LeadBody, TicketBody } from '../../src/server/modules/org/model'
import { scoreFeatures } from '../../src/scoring/service'
import { createHarness, type Harness, type SeededOrg } from '../helpers/harness'
import {
  assertNoPollution,
  assertRefusal,
  assertRestInvariants,
  delta,
  emailAddress,
  encodeLoose,
  expectFor,
  fcParams,
  finiteNumber,
  hostileBodies,
  FuzzLedger,
  hostileString,
  HOSTILE_ENV,
  nestedText,
  prototypeSnapshot,
  rowCounts,
  send,
  text,
  wrongValue,
  type Got,
  type HostileBody,
} from './fuzz-support'

// Properties run hundreds of requests; nothing here asserts on time (FUZZ_RUNS_FACTOR makes them longer still).
setDefaultTimeout(600_000)

let h: Harness
/** Enterprise plan: 5,000,000 sessions a month and 30,000 requests a minute, so quotas never interfere. */
let ent: SeededOrg
const ledger = new FuzzLedger('rest')
const prototypesBefore = prototypeSnapshot()

beforeAll(async () => {
  h = await createHarness({ env: HOSTILE_ENV })
  ent = await h.seedOrg('Fuzz Enterprise', 'enterprise')
})
// Rate-limit buckets run on the test clock: a minute per test refills them (30,000/min for the enterprise key),
// so even FUZZ_RUNS_FACTOR=10 reaches validation instead of 429.
beforeEach(() => h.clock.advance(61_000))
afterAll(async () => {
  ledger.report()
  await h.close()
})

const json = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...extra })
const secret = () => ({ 'x-api-key': ent.secretKey })
const bearer = () => ({ authorization: `Bearer ${ent.jwt}` })

/** The headers a hostile body goes with: its own content type (or none) when it names one. */
function headersFor(base: Record<string, string>, m: HostileBody): Record<string, string> {
  const headers = { 'content-type': 'application/json', ...base }
  if (m.contentType === null) delete (headers as Record<string, string>)['content-type']
  else if (m.contentType !== undefined) headers['content-type'] = m.contentType
  return headers
}

/**
 * One hostile request: the invariants, the oracle's answer, and for a refusal no row anywhere.
 * `onValid` checks an accepted request against the schema's output.
 */
async function hostile(
  path: string,
  baseHeaders: Record<string, string>,
  m: HostileBody,
  schema: v.GenericSchema,
  onValid: (got: Got, output: any) => void,
  options: { textPlain?: boolean } = {}
) {
  ledger.cases++
  const before = await rowCounts(h)
  const got = await send(h, { method: 'POST', path, headers: headersFor(baseHeaders, m), body: m.body })
  assertRestInvariants(got)
  const expected = expectFor(schema, got, m.body, options)
  ledger.tally(`${path.split('?')[0]} ${expected.kind === 'refused' ? `${expected.status} ${expected.code}` : `valid ${got.status}`}`)
  if (expected.kind === 'refused') {
    assertRefusal(got, expected, m.label)
    expect(delta(before, await rowCounts(h))).toEqual({})
  } else {
    onValid(got, expected.output)
  }
}

// ---------------------------------------------------------------------------------------------
// Contract-shaped valid bodies

const SDK_TYPES = ['web', 'ios', 'android', 'server'] as const
const KINDS = ['mm', 'md', 'mu', 'c', 'kd', 'ku', 's', 'ts', 'tm', 'te', 'f', 'b', 'v', 'r'] as const
const KEY_CLASSES = ['char', 'digit', 'space', 'enter', 'back', 'mod', 'nav', 'other'] as const

const eventShape = fc.record(
  {
    k: fc.constantFrom(...KINDS),
    x: finiteNumber,
    y: finiteNumber,
    dy: finiteNumber,
    kc: fc.constantFrom(...KEY_CLASSES),
    tr: fc.boolean(),
    ox: finiteNumber,
    oy: finiteNumber,
    p: finiteNumber,
    r: finiteNumber,
    n: finiteNumber,
    sc: fc.constantFrom(0, 1, true, false),
  },
  { requiredKeys: ['k'] }
)

/** Events with non-decreasing `t` (ms since the session's start), from 0 up to 1.7e308. */
const signals = fc
  .tuple(
    fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e7, noNaN: true }), fc.constant(1.7e308)),
    fc.array(fc.tuple(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5000, noNaN: true })), eventShape), { maxLength: 40 })
  )
  .map(([t0, steps]) => {
    let t = t0
    return steps.map(([dt, event]) => ({ t: (t += dt), ...event }))
  })

const upperOrNot = (s: string) => fc.boolean().map((up) => (up ? s.toUpperCase() : s))

/** ISO 8601 UTC within [now − 30 days, now + 5 minutes], with 0, 3 or 1–9 fractional digits. */
function capturedAt(now: Date) {
  return fc
    .tuple(fc.integer({ min: -30 * 24 * 3600_000 + 60_000, max: 5 * 60_000 - 1000 }), fc.integer({ min: 0, max: 9 }), fc.boolean())
    .map(([offset, digits, keep]) => {
      const iso = new Date(now.getTime() + offset).toISOString()
      if (keep) return iso
      return digits === 0
        ? iso.replace(/\.\d{3}Z$/, 'Z')
        : iso.replace(/\.(\d{3})Z$/, (_m, ms: string) => `.${(ms + '123456').slice(0, digits)}Z`)
    })
}

function validBatch(now: Date) {
  return fc.record({
    session_id: fc.noBias(fc.uuid()).chain(upperOrNot),
    sdk_type: fc.constantFrom(...SDK_TYPES),
    captured_at: capturedAt(now),
    signals,
    features: fc.array(finiteNumber, { minLength: 34, maxLength: 34 }),
  })
}

const validTicket = fc.record(
  { subject: text(200), message: text(10_000), priority: fc.constantFrom('low', 'normal', 'high', 'urgent') },
  { requiredKeys: ['subject', 'message'] }
)

const optionalText = (max: number) => fc.oneof(fc.constant(null), fc.constant(''), fc.constant('   '), text(max))
const validLead = fc.record(
  {
    email: fc.tuple(fc.noBias(fc.uuid()), emailAddress, fc.constantFrom('', ' ', '\t'), fc.boolean()).map(([id, email, pad, upper]) => {
      const unique = `${id.slice(0, 8)}.${email}`.slice(-254)
      return pad + (upper ? unique.toUpperCase() : unique) + pad
    }),
    source: fc.constantFrom('pricing_page', 'chat_widget'),
    name: optionalText(100),
    company: optionalText(200),
    message: optionalText(5_000),
    plan_interest: optionalText(50),
    website: fc.constantFrom(null, false, '', '  '),
  },
  { requiredKeys: ['email', 'source'] }
)

const validLiveScore = fc.record({ features: fc.array(finiteNumber, { minLength: 34, maxLength: 34 }) })

// ---------------------------------------------------------------------------------------------
// Result checks

const VERDICTS = ['human_verified', 'suspicious', 'bot', 'insufficient_data']

function expectScore(body: any) {
  expect(typeof body.hcs).toBe('number')
  expect(body.hcs).toBeGreaterThanOrEqual(0)
  expect(body.hcs).toBeLessThanOrEqual(100)
  expect(Math.round(body.hcs * 10) / 10).toBe(body.hcs)
  expect(typeof body.m3_score).toBe('number')
  expect(body.m3_score).toBeGreaterThanOrEqual(0)
  expect(body.m3_score).toBeLessThanOrEqual(1)
  expect(VERDICTS).toContain(body.verdict)
  expect(typeof body.model_version).toBe('string')
}

function expectSessionResult(got: Got, output: { session_id: string; signals: unknown[] }) {
  expect(got.status).toBe(200)
  expect(got.json.session_id).toBe(output.session_id)
  expectScore(got.json)
  expect(Array.isArray(got.json.reasons) && got.json.reasons.every((r: unknown) => typeof r === 'string')).toBe(true)
  // A retried or appended session reports all of its signals, at least this batch's.
  expect(got.json.signals).toBeGreaterThanOrEqual(output.signals.length)
  for (const header of ['x-quota-limit', 'x-quota-remaining', 'x-quota-reset']) expect(got.headers.get(header)).toMatch(/^\d+$/)
}

function expectAccepted(got: Got, output: { session_id: string; signals: unknown[] }) {
  expect(got.status).toBe(202)
  expect(got.json).toEqual({ session_id: output.session_id, accepted: output.signals.length })
}

// ---------------------------------------------------------------------------------------------

describe('POST /v1/ingest', () => {
  it('accepts every contract-valid batch with the secret key: 200, one session, one batch, one counted session', async () => {
    const known = new Set<string>()
    await fc.assert(
      fc.asyncProperty(validBatch(h.clock.now()), async (batch) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, { method: 'POST', path: '/v1/ingest', headers: json(secret()), body: JSON.stringify(batch) })
        assertRestInvariants(got)
        const id = batch.session_id.toLowerCase()
        expectSessionResult(got, { session_id: id, signals: batch.signals })
        const fresh = !known.has(id)
        known.add(id)
        if (fresh) {
          // The month's counter row is created by the organization's first session only.
          const { usage_counters = 0, ...rest } = delta(before, await rowCounts(h))
          expect(rest).toEqual({ sessions: 1, session_batches: 1, sessions_used: 1 })
          expect([0, 1]).toContain(usage_counters)
        }
        // The stored result reads back the same, to its owner only.
        const read = await send(h, { method: 'GET', path: `/v1/session/${batch.session_id}`, headers: secret() })
        assertRestInvariants(read)
        expect(read.status).toBe(200)
        expect(read.json.hcs).toBe(got.json.hcs)
        expect(read.json.signals).toBe(got.json.signals)
        const foreign = await send(h, { method: 'GET', path: `/v1/session/${id}`, headers: { 'x-api-key': h.b.secretKey } })
        expect(foreign.status).toBe(404)
        const browser = await send(h, { method: 'GET', path: `/v1/session/${id}`, headers: { 'x-api-key': ent.publicKey } })
        expect(browser.status).toBe(403)
      }),
      fcParams(60)
    )
  })

  it('accepts every contract-valid batch with the public key (header, or ?key= with text/plain): 202 without a score', async () => {
    await fc.assert(
      fc.asyncProperty(validBatch(h.clock.now()), fc.boolean(), async (batch, beacon) => {
        ledger.cases++
        const got = beacon
          ? await send(h, {
              method: 'POST',
              path: `/v1/ingest?key=${ent.publicKey}`,
              headers: { 'content-type': 'text/plain;charset=UTF-8' },
              body: JSON.stringify(batch),
            })
          : await send(h, {
              method: 'POST',
              path: '/v1/ingest',
              headers: json({ 'x-api-key': ent.publicKey }),
              body: JSON.stringify(batch),
            })
        assertRestInvariants(got)
        expectAccepted(got, { session_id: batch.session_id.toLowerCase(), signals: batch.signals })
      }),
      fcParams(40)
    )
  })

  const schema = () => ingestBody(() => h.clock.now())
  const modes = fc.constantFrom('secret', 'public', 'beacon')

  it('answers hostile bodies exactly as the contract says, with every credential, and stores nothing when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(modes, hostileBodies(validBatch(h.clock.now())), async (mode, m) => {
        const path = mode === 'beacon' ? `/v1/ingest?key=${ent.publicKey}` : '/v1/ingest'
        const headers = mode === 'secret' ? secret() : mode === 'public' ? { 'x-api-key': ent.publicKey } : {}
        // sendBeacon bodies are text/plain; the hostile body may name another type.
        const m2 = mode === 'beacon' && m.contentType === undefined ? { ...m, contentType: 'text/plain' } : m
        await hostile(
          path,
          headers,
          m2,
          schema(),
          (got, output) => (mode === 'secret' ? expectSessionResult(got, output) : expectAccepted(got, output)),
          { textPlain: true }
        )
      }),
      fcParams(450)
    )
  })

  it('never takes a secret key from the URL, and refuses unknown or malformed keys there', async () => {
    const keys = fc.oneof(
      fc.constant(ent.secretKey),
      fc.constant(h.a.secretKey),
      fc.constant(ent.publicKey.slice(0, -1)),
      hostileString.map(encodeLoose)
    )
    await fc.assert(
      fc.asyncProperty(keys, validBatch(h.clock.now()), async (key, batch) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, {
          method: 'POST',
          path: `/v1/ingest?key=${key}`,
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify(batch),
        })
        assertRestInvariants(got)
        expect(got.status).toBe(401)
        expect(got.json.error.code).toBe('unauthorized')
        expect(delta(before, await rowCounts(h))).toEqual({})
      }),
      fcParams(40)
    )
  })
})

describe('the origin allow-list of a public key', () => {
  it('accepts a batch only when Origin is exactly an allowed origin; anything else is 403 and stores nothing', async () => {
    const allowed = ['https://shop.example.com', 'http://localhost:8080']
    const { keyPair } = await createKeyPair(h.deps.db.sql, ent.orgId, { name: 'fuzz origins', sdkType: 'web', allowedOrigins: allowed })
    const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\xa0-\xff]/g, '')
    const originHeader = fc.oneof(
      fc.constantFrom(...allowed),
      fc.constantFrom(
        'https://shop.example.com/',
        'https://SHOP.example.com',
        'https://shop.example.com:443',
        'http://shop.example.com',
        'https://shop.example.com.',
        'https://evil.shop.example.com',
        'https://shop.example.com.evil.io',
        'null',
        '*',
        '',
        ' https://shop.example.com',
        'http://localhost:8081',
        'http://localhost'
      ),
      hostileString.map(headerSafe)
    )
    await fc.assert(
      fc.asyncProperty(
        fc.option(originHeader, { nil: undefined }),
        fc.boolean(),
        validBatch(h.clock.now()),
        async (origin, beacon, batch) => {
          ledger.cases++
          const headers: Record<string, string> = beacon ? { 'content-type': 'text/plain' } : json({ 'x-api-key': keyPair.public_key })
          if (origin !== undefined) headers.origin = origin
          const before = await rowCounts(h)
          const got = await send(h, {
            method: 'POST',
            path: beacon ? `/v1/ingest?key=${keyPair.public_key}` : '/v1/ingest',
            headers,
            body: JSON.stringify(batch),
          })
          assertRestInvariants(got)
          const sent = new Request('http://localhost/', { headers }).headers.get('origin')
          if (sent && allowed.includes(sent)) expect(got.status).toBe(202)
          else {
            expect(got.status).toBe(403)
            expect(got.json.error.code).toBe('forbidden')
            expect(delta(before, await rowCounts(h))).toEqual({})
          }
        }
      ),
      fcParams(80)
    )
  })
})

describe('GET /v1/session/:session_id', () => {
  it('answers any path segment with 200 (own session), 404 (unknown, foreign, or no such route) or 400 (not a UUID)', async () => {
    const own = crypto.randomUUID()
    const foreign = crypto.randomUUID()
    for (const [key, id] of [
      [ent.secretKey, own],
      [h.b.secretKey, foreign],
    ] as const) {
      const batch = fc.sample(validBatch(h.clock.now()), 1)[0]!
      const res = await send(h, {
        method: 'POST',
        path: '/v1/ingest',
        headers: json({ 'x-api-key': key }),
        body: JSON.stringify({ ...batch, session_id: id }),
      })
      expect(res.status).toBe(200)
    }
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
    const segment = fc.oneof(
      fc.constantFrom(own, foreign).chain(upperOrNot),
      fc.uuid(),
      hostileString.map(encodeLoose),
      fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        '%00',
        '%2F',
        'a%2Fb',
        '..',
        '.',
        '%2e%2e',
        own + '%00',
        own + '%20',
        ` ${own}`,
        own.replaceAll('-', ''),
        '{' + own + '}',
        `${own}/x`
      )
    )
    await fc.assert(
      fc.asyncProperty(segment, async (seg) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, { method: 'GET', path: `/v1/session/${seg}`, headers: secret() })
        assertRestInvariants(got)
        const url = new URL(`http://localhost/v1/session/${seg}`)
        const m = /^\/v1\/session\/([^/]+)$/.exec(url.pathname)
        let decoded: string | null = null
        try {
          decoded = m ? decodeURIComponent(m[1]!) : null
        } catch {}
        if (!m) expect(got.status).toBe(404)
        else if (decoded !== null && UUID.test(decoded)) expect(got.status).toBe(decoded.toLowerCase() === own ? 200 : 404)
        else expect(got.status).toBe(400)
        if (got.status === 200) expect(got.json.session_id).toBe(own)
        expect(delta(before, await rowCounts(h))).toEqual({})
      }),
      fcParams(150)
    )
  })
})

describe('credentials on GET /v1/org/usage and GET /v1/session/:id', () => {
  it('answers any X-API-Key / Authorization combination as the credential rules say, never 5xx', async () => {
    const keyCandidates = () => [ent.secretKey, ent.publicKey, h.a.secretKey, h.a.publicKey, h.b.secretKey]
    const jwtCandidates = () => [ent.jwt, h.a.jwt, h.b.jwt]
    const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\xa0-\xff]/g, '')
    const tamper = (s: string, i: number) => s.slice(0, i % s.length) + (s[i % s.length] === 'A' ? 'B' : 'A') + s.slice((i % s.length) + 1)
    const apiKey = fc.oneof(
      fc.constantFrom(...keyCandidates()),
      fc.tuple(fc.constantFrom(...keyCandidates()), fc.constantFrom(' ', '\t', '\u00a0', '')).map(([k, pad]) => pad + k + pad),
      fc.tuple(fc.constantFrom(...keyCandidates()), fc.nat()).map(([k, i]) => tamper(k, i)),
      fc.constantFrom(
        'svc_live_sk_',
        'svc_live_pk_',
        'svc_live_sk_' + 'a'.repeat(31),
        'svc_live_sk_' + 'a'.repeat(129),
        'svc_test_sk_' + 'a'.repeat(40),
        'SVC_LIVE_SK_' + 'a'.repeat(40)
      ),
      fc.stringMatching(/^svc_live_(sk|pk)_[0-9A-Za-z]{20,140}$/),
      hostileString.map(headerSafe)
    )
    const authorization = fc.oneof(
      fc.constantFrom(...jwtCandidates()).map((t) => `Bearer ${t}`),
      fc.tuple(fc.constantFrom(...jwtCandidates()), fc.nat()).map(([t, i]) => `Bearer ${tamper(t, i)}`),
      fc
        .constantFrom(...jwtCandidates())
        .chain((t) =>
          fc.constantFrom(`bearer ${t}`, `BEARER  ${t}`, `Bearer ${t} x`, `Basic ${t}`, t, `Bearer ${t.split('.').slice(0, 2).join('.')}.`)
        ),
      fc.constantFrom('Bearer', 'Bearer ', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'Bearer a.b.c', `Bearer ${'a'.repeat(10_000)}`),
      hostileString.map((s) => `Bearer ${headerSafe(s)}`)
    )
    const request = fc.record({ apiKey, authorization, route: fc.constantFrom('usage', 'session') }, { requiredKeys: ['route'] })

    const PUBLIC_RE = /^svc_live_pk_[0-9A-Za-z]{24,128}$/
    const SECRET_RE = /^svc_live_sk_[0-9A-Za-z]{32,128}$/
    const sessionId = crypto.randomUUID()

    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        ledger.cases++
        const headers: Record<string, string> = {}
        if (r.apiKey !== undefined) headers['x-api-key'] = r.apiKey
        if (r.authorization !== undefined) headers.authorization = r.authorization
        const path = r.route === 'usage' ? '/v1/org/usage' : `/v1/session/${sessionId}`
        const before = await rowCounts(h)
        const got = await send(h, { method: 'GET', path, headers })
        assertRestInvariants(got)

        // The oracle: what the credential rules (API.md, "Credentials") say about these headers.
        const sent = new Request('http://localhost/', { headers })
        const key = sent.headers.get('x-api-key')?.trim()
        const auth = sent.headers.get('authorization')
        const keys = new Map<string, { kind: 'public' | 'secret'; org: SeededOrg }>([
          [ent.secretKey, { kind: 'secret', org: ent }],
          [ent.publicKey, { kind: 'public', org: ent }],
          [h.a.secretKey, { kind: 'secret', org: h.a }],
          [h.a.publicKey, { kind: 'public', org: h.a }],
          [h.b.secretKey, { kind: 'secret', org: h.b }],
        ])
        const jwts = new Map([
          [ent.jwt, ent],
          [h.a.jwt, h.a],
          [h.b.jwt, h.b],
        ])
        let expected: { status: number; org?: SeededOrg }
        if (sent.headers.get('x-api-key')) {
          const known = key ? keys.get(key) : undefined
          if (!key || !(PUBLIC_RE.test(key) || SECRET_RE.test(key)) || !known) expected = { status: 401 }
          else if (known.kind === 'public') expected = { status: 403 }
          else expected = { status: 200, org: known.org }
        } else if (auth && r.route === 'usage') {
          const m = /^Bearer\s+(\S+)$/i.exec(auth)
          const org = m ? jwts.get(m[1]!) : undefined
          expected = org ? { status: 200, org } : { status: 401 }
        } else expected = { status: 401 }
        // The session exists nowhere: a credential that passes reaches 404.
        if (r.route === 'session' && expected.status === 200) expected = { status: 404 }

        if (got.status !== expected.status)
          throw new Error(
            `expected ${expected.status}, got ${got.status} ${got.text.slice(0, 200)} for ${JSON.stringify(headers).slice(0, 300)}`
          )
        if (expected.status === 401) expect(got.json.error.code).toBe('unauthorized')
        if (expected.status === 403) expect(got.json.error.code).toBe('forbidden')
        if (expected.status === 200) expect(got.json.plan_id).toBe(expected.org === ent ? 'enterprise' : 'free')
        expect(delta(before, await rowCounts(h))).toEqual({})
      }),
      fcParams(200)
    )
  })

  it('answers tokens signed with the server key but carrying any claims: 200 only for a real membership, else 401', async () => {
    const members = () => [ent, h.a, h.b]
    const id = fc.oneof(
      fc.constantFrom(...members().flatMap((o) => [o.userId, o.orgId])),
      fc.uuid(),
      hostileString.map((s) => s.slice(0, 300)),
      wrongValue
    )
    const role = fc.oneof(fc.constantFrom('owner', 'admin', 'member', 'Owner', 'root', ''), wrongValue)
    const claims = fc.oneof(
      fc.record({ sub: id, org: id, role }, { requiredKeys: [] }),
      fc
        .tuple(fc.constantFrom(...members()), fc.constantFrom(...members()), role)
        .map(([u, o, r]) => ({ sub: u.userId, org: o.orgId, role: r }))
    )
    await fc.assert(
      fc.asyncProperty(claims, fc.constantFrom('/v1/org/usage', '/v1/support/tickets'), async (c, path) => {
        ledger.cases++
        const token = await h.deps.tokens.sign(c as any)
        const before = await rowCounts(h)
        const got = await send(h, {
          method: path === '/v1/org/usage' ? 'GET' : 'POST',
          path,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: path === '/v1/org/usage' ? undefined : JSON.stringify({ subject: 'forged', message: 'claims' }),
        })
        assertRestInvariants(got)
        const member = members().find((o) => o.userId === c.sub && o.orgId === c.org)
        const ok = member && ['owner', 'admin', 'member'].includes(c.role as string)
        if (!ok) {
          expect(got.status).toBe(401)
          expect(got.json.error.code).toBe('unauthorized')
          expect(delta(before, await rowCounts(h))).toEqual({})
        } else expect(got.status).toBe(path === '/v1/org/usage' ? 200 : 201)
      }),
      fcParams(120)
    )
  })

  it('ignores any query string on GET /v1/org/usage', async () => {
    const query = fc
      .array(fc.tuple(hostileString, hostileString), { maxLength: 5 })
      .map((pairs) => pairs.map(([k, val]) => `${encodeLoose(k.slice(0, 200))}=${encodeLoose(val.slice(0, 200))}`).join('&'))
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom('secret', 'jwt'), async (q, credential) => {
        ledger.cases++
        const got = await send(h, { method: 'GET', path: `/v1/org/usage?${q}`, headers: credential === 'secret' ? secret() : bearer() })
        assertRestInvariants(got)
        expect(got.status).toBe(200)
        expect(got.json).toMatchObject({ plan_id: 'enterprise', sessions_limit: 5_000_000 })
      }),
      fcParams(60)
    )
  })
})

describe('POST /v1/demo/live-score', () => {
  it('scores every 34 finite numbers, however extreme, in range and without storing anything', async () => {
    await fc.assert(
      fc.asyncProperty(validLiveScore, async (body) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, { method: 'POST', path: '/v1/demo/live-score', headers: json(), body: JSON.stringify(body) })
        assertRestInvariants(got)
        expect(got.status).toBe(200)
        expectScore(got.json)
        expect(Object.keys(got.json).sort()).toEqual(['hcs', 'm3_score', 'model_version', 'verdict'])
        expect(delta(before, await rowCounts(h))).toEqual({})
      }),
      fcParams(80)
    )
  })

  it('answers hostile bodies exactly as the contract says', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodies(validLiveScore), async (m) => {
        await hostile('/v1/demo/live-score', {}, m, LiveScoreBody, (got, output) => {
          expect(got.status).toBe(200)
          const { hcs, m3_score, verdict } = scoreFeatures(output.features)
          expect(got.json).toMatchObject({ hcs, m3_score, verdict })
        })
      }),
      fcParams(250)
    )
  })
})

describe('POST /v1/support/tickets', () => {
  it('opens a ticket for every contract-valid body, with the secret key or a JWT', async () => {
    await fc.assert(
      fc.asyncProperty(validTicket, fc.boolean(), async (ticket, withJwt) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, {
          method: 'POST',
          path: '/v1/support/tickets',
          headers: json(withJwt ? bearer() : secret()),
          body: JSON.stringify(ticket),
        })
        assertRestInvariants(got)
        expect(got.status).toBe(201)
        expect(got.json).toMatchObject({ status: 'open', subject: ticket.subject.trim(), priority: ticket.priority ?? 'normal' })
        // The ticket and its notification to support.
        expect(delta(before, await rowCounts(h))).toEqual({ support_tickets: 1, mail_outbox: 1 })
      }),
      fcParams(60)
    )
  })

  it('answers hostile bodies exactly as the contract says and stores nothing when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodies(validTicket), fc.boolean(), async (m, withJwt) => {
        await hostile('/v1/support/tickets', withJwt ? bearer() : secret(), m, TicketBody, (got, output) => {
          expect(got.status).toBe(201)
          // Prototype keys in the body never stand in for a missing field (priority stays the default).
          expect(got.json).toMatchObject({ subject: output.subject, priority: output.priority })
        })
      }),
      fcParams(250)
    )
  })
})

describe('POST /v1/leads', () => {
  it('stores every contract-valid lead once (201), and answers a repeat within 24 h with 200 and the same id', async () => {
    await fc.assert(
      fc.asyncProperty(validLead, async (lead) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, { method: 'POST', path: '/v1/leads', headers: json(), body: JSON.stringify(lead) })
        assertRestInvariants(got)
        expect(got.status).toBe(201)
        expect(delta(before, await rowCounts(h))).toEqual({ leads: 1 })
        const again = await send(h, {
          method: 'POST',
          path: '/v1/leads',
          headers: json(),
          body: JSON.stringify({ ...lead, email: lead.email.trim().toLowerCase() }),
        })
        expect(again.status).toBe(200)
        expect(again.json.lead_id).toBe(got.json.lead_id)
      }),
      fcParams(50)
    )
  })

  it('accepts a filled-in honeypot with 201 and stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        validLead,
        fc.oneof(fc.constant(true), fc.constant(1), fc.constant({}), fc.constant([]), text(50)),
        async (lead, website) => {
          ledger.cases++
          const before = await rowCounts(h)
          const got = await send(h, { method: 'POST', path: '/v1/leads', headers: json(), body: JSON.stringify({ ...lead, website }) })
          assertRestInvariants(got)
          expect(got.status).toBe(201)
          expect(delta(before, await rowCounts(h))).toEqual({})
        }
      ),
      fcParams(30)
    )
  })

  it('answers hostile bodies exactly as the contract says and stores nothing when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodies(validLead), async (m) => {
        await hostile('/v1/leads', {}, m, LeadBody, (got) => {
          expect([200, 201]).toContain(got.status)
          expect(typeof got.json.lead_id).toBe('string')
        })
      }),
      fcParams(250)
    )
  })
})

describe('routes and methods', () => {
  it('echoes a sane X-Request-Id and replaces any other with a fresh one, on success and on refusal', async () => {
    const SANE = /^[A-Za-z0-9._:-]{1,128}$/
    const id = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:-]{1,140}$/),
      hostileString.map((s) => s.replace(/[^\t\x20-\x7e\xa0-\xff]/g, ''))
    )
    await fc.assert(
      fc.asyncProperty(id, fc.constantFrom('/v1/org/usage', '/v1/leads'), async (requestId, path) => {
        ledger.cases++
        const got = await send(h, {
          method: path === '/v1/leads' ? 'POST' : 'GET',
          path,
          headers: json({ ...secret(), 'x-request-id': requestId }),
          body: path === '/v1/leads' ? '{}' : undefined,
        })
        assertRestInvariants(got)
        const sent = new Request('http://localhost/', { headers: { 'x-request-id': requestId } }).headers.get('x-request-id')!
        const answered = got.headers.get('x-request-id')!
        if (SANE.test(sent)) expect(answered).toBe(sent)
        else expect(answered).toMatch(/^[0-9a-f-]{36}$/)
      }),
      fcParams(60)
    )
  })

  it('answers other methods with 405 and unknown paths with the 404 envelope', async () => {
    const KNOWN_PATHS = [
      '/v1/ingest',
      '/v1/org/usage',
      '/v1/support/tickets',
      '/v1/leads',
      '/v1/demo/live-score',
      '/auth/login',
      '/graphql',
      '/dev/mail',
    ]
    const route = fc.oneof(
      fc.tuple(fc.constantFrom('PUT', 'PATCH', 'DELETE'), fc.constantFrom(...KNOWN_PATHS, `/v1/session/${crypto.randomUUID()}`)),
      fc.tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        fc.constantFrom('/v1', '/v2/ingest', '/V1/INGEST', '/v1/ingest/x', '/auth', '/auth/nope', '/v1/session')
      ),
      fc.tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        hostileString.map((s) => `/nope/${encodeLoose(s.slice(0, 300))}`)
      )
    )
    await fc.assert(
      fc.asyncProperty(route, async ([method, path]) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, { method, path, headers: json(secret()), body: method === 'GET' ? undefined : '{}' })
        assertRestInvariants(got)
        // A path served with another method is 405 with Allow (issue 16); any other path is 404.
        if (KNOWN_PATHS.some((known) => path === known || path.startsWith('/v1/session/'))) {
          expect(got.status).toBe(405)
          expect(got.json.error.code).toBe('method_not_allowed')
          expect(got.headers.get('allow')).toMatch(/^[A-Z]+(, [A-Z]+)*$/)
        } else {
          expect(got.status).toBe(404)
          expect(got.json.error.code).toBe('not_found')
        }
        expect(delta(before, await rowCounts(h))).toEqual({})
      }),
      fcParams(80)
    )
  })
})

describe('regressions found by these properties', () => {
  it('refuses 20,000- and 100,000-level nesting with 400 invalid_json (was 500 after seconds of work)', async () => {
    for (const depth of [20_000, 100_000]) {
      for (const shape of ['array', 'object', 'mixed'] as const) {
        ledger.cases++
        const got = await send(h, { method: 'POST', path: '/v1/demo/live-score', headers: json(), body: nestedText(depth, shape) })
        assertRestInvariants(got)
        expect(got.status).toBe(400)
        expect(got.json.error.code).toBe('invalid_json')
      }
    }
  })

  it('refuses 100,000 wrong features with one issue (was an out-of-memory 500)', async () => {
    ledger.cases++
    const body = JSON.stringify({ features: Array.from({ length: 100_000 }, () => [1, 2]) })
    const got = await send(h, { method: 'POST', path: '/v1/demo/live-score', headers: json(), body })
    assertRestInvariants(got)
    expect(got.status).toBe(400)
    expect(got.json.error.details).toEqual([{ path: 'features', message: expect.any(String) }])
  })

  it('answers a 1 MiB body with many wrong fields with validation_failed (was seconds and gigabytes in Elysia’s error)', async () => {
    const unit = nestedText(30, 'array')
    const pad = '[' + Array.from({ length: Math.floor(1_000_000 / (unit.length + 1)) }, () => unit).join(',') + ']'
    for (const [path, headers] of [
      ['/v1/ingest', secret()],
      ['/v1/leads', {}],
      ['/auth/login', {}],
      ['/v1/support/tickets', secret()],
    ] as const) {
      ledger.cases++
      const got = await send(h, {
        method: 'POST',
        path,
        headers: json(headers),
        body: `{"features":${JSON.stringify(Array(34).fill('x'))},"pad":${pad}}`,
      })
      assertRestInvariants(got)
      expect(got.status).toBe(400)
      expect(got.json.error.code).toBe('validation_failed')
      expect(got.json.error.details.length).toBeLessThanOrEqual(20)
    }
  })

  it('refuses NUL in ticket and lead texts with 400 (was a 500 from PostgreSQL)', async () => {
    const before = await rowCounts(h)
    for (const [path, body, headers] of [
      ['/v1/support/tickets', { subject: 'a\u0000b', message: 'm' }, secret()],
      ['/v1/support/tickets', { subject: 's', message: '\u0000' }, bearer()],
      ['/v1/leads', { email: 'nul@example.com', source: 'pricing_page', name: 'x\u0000' }, {}],
      ['/v1/leads', { email: 'nul@example.com', source: 'chat_widget', message: '\u0000\u0000' }, {}],
    ] as const) {
      ledger.cases++
      const got = await send(h, { method: 'POST', path, headers: json(headers), body: JSON.stringify(body) })
      assertRestInvariants(got)
      expect(got.status).toBe(400)
      expect(got.json.error.code).toBe('validation_failed')
    }
    expect(delta(before, await rowCounts(h))).toEqual({})
  })

  it('answers a body over 1 MiB with 413 and stores nothing', async () => {
    const before = await rowCounts(h)
    ledger.cases++
    const got = await send(h, {
      method: 'POST',
      path: '/v1/support/tickets',
      headers: json(secret()),
      body: JSON.stringify({ subject: 's', message: 'm', pad: 'x'.repeat(1024 * 1024) }),
    })
    assertRestInvariants(got)
    expect(got.status).toBe(413)
    expect(delta(before, await rowCounts(h))).toEqual({})
  })
})

it('left no prototype polluted', () => {
  assertNoPollution(prototypesBefore)
})
