/**
 * Hostile input on the account flow (/auth/*) and the development outbox (GET /dev/mail), proven
 * by properties (fast-check). Contract-valid bodies go through the whole flow; mutated ones get
 * exactly the answer an independent oracle predicts, never a 5xx, always the error envelope,
 * never a stack trace or SQL, and a refused request stores nothing. argon2id makes every accepted
 * register or login cost ~0.3 s, so the runs here are fewer than in the REST suite.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import fc from 'fast-check'
import * as v from 'valibot'
import { Email, LoginBody, RefreshTokenBody, RegisterBody, VerifyOtpBody } from '../../src/server/modules/auth/model'
import { createHarness, type Harness } from '../helpers/harness'
import {
  assertNoPollution,
  assertRefusal,
  assertRestInvariants,
  delta,
  emailAddress,
  encodeLoose,
  expectFor,
  fcParams,
  hostileBodies,
  hostileString,
  FuzzLedger,
  HOSTILE_ENV,
  nastyUnit,
  prototypeSnapshot,
  rowCounts,
  send,
  text,
  type Got,
  type HostileBody,
} from './fuzz-support'

// Properties run hundreds of requests; nothing here asserts on time (FUZZ_RUNS_FACTOR makes them longer still).
setDefaultTimeout(600_000)

let h: Harness
const ledger = new FuzzLedger('auth')
const prototypesBefore = prototypeSnapshot()

beforeAll(async () => {
  h = await createHarness({ env: HOSTILE_ENV })
})
afterAll(async () => {
  ledger.report()
  await h.close()
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const minutes = (n: number) => n * 60_000
/** Past every per-account limit window (login/verify 15 min, code sends 10 min). */
const pastLimitWindows = () => h.clock.advance(minutes(16))

/** Through the harness (so its log-leak check learns the passwords, codes and tokens involved). */
async function post(path: string, body: unknown) {
  const res = await h.json('POST', path, { body })
  return res
}

async function latestCode(email: string): Promise<string> {
  const got = await send(h, { method: 'GET', path: `/dev/mail?to=${encodeURIComponent(email)}`, headers: {} })
  assertRestInvariants(got)
  expect(got.status).toBe(200)
  const code = /\b(\d{6})\b/.exec(got.json.messages[0]?.text ?? '')?.[1]
  if (!code) throw new Error(`no code mailed to ${email}`)
  return code
}

function headersFor(m: HostileBody): Record<string, string> {
  if (m.contentType === null) return {}
  return { 'content-type': m.contentType ?? 'application/json' }
}

/** One hostile request: the invariants, the oracle's answer, and for a refusal no row anywhere. */
async function hostile(path: string, m: HostileBody, schema: v.GenericSchema, onValid: (got: Got, output: any) => void) {
  ledger.cases++
  const before = await rowCounts(h)
  const got = await send(h, { method: 'POST', path, headers: headersFor(m), body: m.body })
  assertRestInvariants(got)
  const expected = expectFor(schema, got, m.body)
  ledger.tally(`${path} ${expected.kind === 'refused' ? `${expected.status} ${expected.code}` : `valid ${got.status}`}`)
  if (expected.kind === 'refused') {
    assertRefusal(got, expected, m.label)
    expect(delta(before, await rowCounts(h))).toEqual({})
  } else {
    onValid(got, expected.output)
    if (got.status >= 400) expect(delta(before, await rowCounts(h))).toEqual({})
  }
}

function expectStatus(got: Got, status: number, code?: string) {
  if (got.status !== status || (code && got.json?.error?.code !== code))
    throw new Error(`expected ${status} ${code ?? ''}, got ${got.status} ${got.text.slice(0, 300)}`)
}

// ---------------------------------------------------------------------------------------------
// Contract-shaped valid values

/** 10–256 characters of anything (the contract sets only the length; argon2 takes any bytes). */
const newPassword = fc
  .oneof(
    fc.string({ unit: nastyUnit, minLength: 10, maxLength: 40 }),
    fc
      .tuple(fc.string({ unit: nastyUnit, minLength: 1, maxLength: 4 }), fc.integer({ min: 10, max: 256 }))
      .map(([u, n]) => u.repeat(n).slice(0, n))
  )
  .filter((p) => p.length >= 10 && p.length <= 256)

/** Display text without control characters, `min`–`max` characters after trimming. */
const plainText = (max: number, min: number) =>
  text(max, Math.max(min, 1))
    .map((s) => s.replace(/\p{Cc}/gu, ''))
    .filter((s) => s.trim().length >= min && s.trim().length <= max)

/** A new address: unique by construction, in any case, with surrounding blanks (trimmed and lowercased by the API). */
const freshEmail = fc
  .tuple(fc.noBias(fc.uuid()), emailAddress, fc.constantFrom('', ' ', '\t '), fc.boolean())
  .map(([id, email, pad, upper]) => {
    const address = `${id.slice(0, 13)}.${email}`
    return pad + (upper ? address.toUpperCase() : address) + pad
  })

const validRegister = fc.record(
  { email: freshEmail, password: newPassword, name: plainText(100, 0), organization_name: plainText(100, 1) },
  { requiredKeys: ['email', 'password', 'organization_name'] }
)

const normal = (email: string) => email.trim().toLowerCase()

/** Tokens and challenges the flows have used up, for the hostile properties to replay. */
const deadRefreshTokens: string[] = []
const usedChallenges: string[] = []

// ---------------------------------------------------------------------------------------------

describe('the account flow with contract-valid input', () => {
  it('register → mailed code → verify-otp → refresh → logout works for every valid body', async () => {
    await fc.assert(
      fc.asyncProperty(validRegister, fc.boolean(), async (body, upperChallenge) => {
        ledger.cases++
        const before = await rowCounts(h)
        const reg = await post('/auth/register', body)
        expect(reg.status).toBe(202)
        expect(Object.keys(reg.body).sort()).toEqual(['challenge_id', 'expires_at', 'status'])
        expect(reg.body.challenge_id).toMatch(UUID)
        expect(delta(before, await rowCounts(h))).toEqual({ users: 1, organizations: 1, memberships: 1, otp_challenges: 1, mail_outbox: 1 })

        const email = normal(body.email)
        const code = await latestCode(email)
        const challengeId: string = upperChallenge ? reg.body.challenge_id.toUpperCase() : reg.body.challenge_id
        const verified = await post('/auth/verify-otp', { challenge_id: challengeId, code })
        expect(verified.status).toBe(200)
        // Text is stored as UTF-8: a lone surrogate (valid in JSON text, not in Unicode) comes back as U+FFFD.
        const orgName = body.organization_name.trim().toWellFormed()
        expect(verified.body).toMatchObject({
          token_type: 'Bearer',
          expires_in: 900,
          user: { email },
          organization: { name: orgName, plan_id: 'free', role: 'owner' },
        })
        usedChallenges.push(reg.body.challenge_id)

        const usage = await send(h, {
          method: 'GET',
          path: '/v1/org/usage',
          headers: { authorization: `Bearer ${verified.body.access_token}` },
        })
        expect(usage.status).toBe(200)
        expect(usage.json.plan_id).toBe('free')

        const refreshed = await post('/auth/refresh', { refresh_token: verified.body.refresh_token })
        expect(refreshed.status).toBe(200)
        expect(refreshed.body.refresh_token).not.toBe(verified.body.refresh_token)
        const out = await h.request('POST', '/auth/logout', { body: { refresh_token: refreshed.body.refresh_token } })
        expect(out.status).toBe(204)
        const after = await post('/auth/refresh', { refresh_token: refreshed.body.refresh_token })
        expect(after.status).toBe(401)
        deadRefreshTokens.push(verified.body.refresh_token, refreshed.body.refresh_token)
      }),
      fcParams(8)
    )
  })

  it('login takes the address in any case and with blanks, and its code verifies', async () => {
    const variants = fc
      .tuple(fc.constantFrom('', ' ', '\t', '\n '), fc.boolean())
      .map(([pad, upper]) => pad + (upper ? h.a.email.toUpperCase() : h.a.email) + pad)
    await fc.assert(
      fc.asyncProperty(variants, async (email) => {
        ledger.cases++
        pastLimitWindows()
        const before = await rowCounts(h)
        const login = await post('/auth/login', { email, password: h.a.password })
        expect(login.status).toBe(202)
        expect(delta(before, await rowCounts(h))).toEqual({ otp_challenges: 1, mail_outbox: 1 })
        const code = await latestCode(h.a.email)
        const verified = await post('/auth/verify-otp', { challenge_id: login.body.challenge_id, code })
        expect(verified.status).toBe(200)
        expect(verified.body.organization.org_id).toBe(h.a.orgId)
        usedChallenges.push(login.body.challenge_id)
        deadRefreshTokens.push(verified.body.refresh_token)
        await h.request('POST', '/auth/logout', { body: { refresh_token: verified.body.refresh_token } })
      }),
      fcParams(5)
    )
  })
})

describe('hostile bodies on /auth/*', () => {
  it('POST /auth/register: refused exactly as the schema says, nothing stored; a valid body still answers 202', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodies(validRegister), async (m) => {
        await hostile('/auth/register', m, RegisterBody, (got) => {
          expectStatus(got, 202)
          expect(got.json.status).toBe('otp_required')
        })
      }),
      fcParams(50)
    )
  })

  it('POST /auth/login: refused exactly as the schema says; a valid body is 202 only with the right password, else 401 invalid_credentials', async () => {
    const validLogin = fc.record({
      email: fc.oneof(fc.constant(h.a.email), fc.constant(` ${h.a.email.toUpperCase()} `), emailAddress),
      password: fc.oneof(fc.constant(h.a.password), fc.string({ unit: nastyUnit, minLength: 1, maxLength: 30 })),
    })
    await fc.assert(
      fc.asyncProperty(hostileBodies(validLogin), async (m) => {
        pastLimitWindows()
        await hostile('/auth/login', m, LoginBody, (got, output) => {
          if (output.email === h.a.email && output.password === h.a.password) expectStatus(got, 202)
          else expectStatus(got, 401, 'invalid_credentials')
        })
      }),
      fcParams(40)
    )
  })

  it('POST /auth/verify-otp: refused exactly as the schema says; a valid body with a wrong or used code is 401 invalid_otp', async () => {
    const validVerify = fc.record({
      challenge_id: fc.oneof(fc.uuid(), fc.constantFrom(...usedChallenges)),
      code: fc.stringMatching(/^\d{6}$/),
    })
    await fc.assert(
      fc.asyncProperty(hostileBodies(validVerify), async (m) => {
        pastLimitWindows()
        await hostile('/auth/verify-otp', m, VerifyOtpBody, (got) => expectStatus(got, 401, 'invalid_otp'))
      }),
      fcParams(150)
    )
  })

  const validToken = () =>
    fc.record({
      refresh_token: fc.oneof(
        fc.constantFrom(...deadRefreshTokens),
        fc.stringMatching(/^rt_[a-z2-7]{52}$/),
        fc.string({ unit: nastyUnit, minLength: 1, maxLength: 40 }),
        hostileString.filter((s) => s.length >= 1 && s.length <= 512)
      ),
    })

  it('POST /auth/refresh: refused exactly as the schema says; a valid body with a dead or unknown token is 401 unauthorized', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodies(validToken()), async (m) => {
        await hostile('/auth/refresh', m, RefreshTokenBody, (got) => expectStatus(got, 401, 'unauthorized'))
      }),
      fcParams(150)
    )
  })

  it('POST /auth/logout: refused exactly as the schema says; a valid body is 204 whatever the token', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodies(validToken()), async (m) => {
        await hostile('/auth/logout', m, RefreshTokenBody, (got) => {
          expectStatus(got, 204)
          expect(got.text).toBe('')
        })
      }),
      fcParams(150)
    )
  })
})

describe('GET /dev/mail', () => {
  it('lists only the mail to the address asked for, in any case and with blanks', async () => {
    const recipients = [h.a.email, 'nobody@example.com']
    const to = fc
      .tuple(fc.constantFrom(...recipients), fc.constantFrom('', ' ', '%20', '%09'), fc.boolean())
      .map(([email, pad, upper]) => pad + encodeURIComponent(upper ? email.toUpperCase() : email) + pad)
    await fc.assert(
      fc.asyncProperty(to, async (q) => {
        ledger.cases++
        const got = await send(h, { method: 'GET', path: `/dev/mail?to=${q}`, headers: {} })
        assertRestInvariants(got)
        expect(got.status).toBe(200)
        const asked = normal(decodeURIComponent(q))
        for (const message of got.json.messages) expect(message.to).toBe(asked)
        if (asked === h.a.email) expect(got.json.messages.length).toBeGreaterThan(0)
      }),
      fcParams(30)
    )
  })

  it('answers any query string with 200 for exactly one valid `to`, else 400 validation_failed, storing nothing', async () => {
    const key = fc.oneof(
      { weight: 4, arbitrary: fc.constant('to') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'To',
          'TO',
          'to[]',
          'to[0]',
          'to.x',
          '__proto__',
          'constructor',
          'prototype',
          '__proto__[to]',
          'constructor[prototype][polluted]',
          ''
        ),
      },
      { weight: 1, arbitrary: hostileString.map((s) => s.slice(0, 100)) }
    )
    const value = fc.oneof(
      { weight: 3, arbitrary: fc.oneof(emailAddress, fc.constant(h.a.email)) },
      { weight: 3, arbitrary: hostileString.map((s) => s.slice(0, 2000)) },
      {
        weight: 1,
        arbitrary: emailAddress.chain((e) =>
          fc.constantFrom(
            `${e}\u0000`,
            `${e}\n`,
            ` ${e} `,
            `${e}@x.io`,
            `"${e}"`,
            `${e},${e}`,
            e.replace('@', '%40'),
            e.toUpperCase(),
            `${e}${'a'.repeat(260)}`
          )
        ),
      }
    )
    const query = fc
      .array(fc.tuple(key, value, fc.boolean()), { maxLength: 4 })
      .map((pairs) =>
        pairs
          .map(
            ([k, val, raw]) => `${raw ? k.replace(/[&=#\s]/g, '') : encodeLoose(k)}=${raw ? val.replace(/[&#\s%]/g, '') : encodeLoose(val)}`
          )
          .join('&')
      )
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        ledger.cases++
        const before = await rowCounts(h)
        const got = await send(h, { method: 'GET', path: `/dev/mail?${q}`, headers: {} })
        assertRestInvariants(got)
        // As the URL parser leaves it (it strips trailing controls and blanks from the whole URL).
        const all = new URL(`http://localhost/dev/mail?${q}`).searchParams.getAll('to')
        const valid = all.length === 1 && v.safeParse(Email, all[0]).success
        ledger.tally(`/dev/mail ${valid ? 'valid' : 'invalid'} ${got.status}`)
        if (valid) {
          expectStatus(got, 200)
          for (const message of got.json.messages) expect(message.to).toBe(normal(all[0]!))
        } else expectStatus(got, 400, 'validation_failed')
        expect(delta(before, await rowCounts(h))).toEqual({})
      }),
      fcParams(150)
    )
  })
})

it('left no prototype polluted', () => {
  assertNoPollution(prototypesBefore)
})
