import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { sha256Hex } from '../../src/server/platform/crypto'
import { createHarness, type Harness } from '../helpers/harness'
import { PASSWORD, latestCode, signedUp, dashboardProbe } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

let h: Harness
let probe: ReturnType<typeof dashboardProbe>
beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_AUTH_PER_MIN: '10000' } })
  probe = dashboardProbe(h)
}, 30_000)
afterAll(() => h.close())

const refresh = (refresh_token: unknown) => h.json('POST', '/auth/refresh', { body: { refresh_token } })
const logout = (refresh_token: unknown) => h.json('POST', '/auth/logout', { body: { refresh_token } })
const expectDead = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401)
  expect(res.body.error.code).toBe('unauthorized')
}
const whoAmI = async (token: string) =>
  (await probe.handle(new Request('http://localhost/probe/dashboard', { headers: { authorization: `Bearer ${token}` } }))).json()

describe('refresh', () => {
  it('rotates: the presented token dies, the new pair works, the family stays the same', async () => {
    const s = await signedUp(h)
    const next = await refresh(s.refresh_token)
    expect(next.status).toBe(200)
    expect(Object.keys(next.body).sort()).toEqual(['access_token', 'expires_in', 'organization', 'refresh_token', 'token_type', 'user'])
    expect(next.body.user).toEqual(s.user)
    const rows = await h.deps.db.sql`select token_hash, family_id, rotated_at from refresh_tokens
      where token_hash in ${h.deps.db.sql([sha256Hex(s.refresh_token), sha256Hex(next.body.refresh_token)])} order by created_at`
    expect(rows).toHaveLength(2)
    expect(rows[0]!.family_id).toBe(rows[1]!.family_id)
    expect((await whoAmI(next.body.access_token)).userId).toBe(s.user.user_id)
    const third = await refresh(next.body.refresh_token)
    expect(third.status).toBe(200)
    expectDead(await refresh(s.refresh_token))
  })

  it('stores only the SHA-256 of a refresh token', async () => {
    const s = await signedUp(h)
    const [row] = await h.deps.db.sql`select * from refresh_tokens where token_hash = ${sha256Hex(s.refresh_token)}`
    expect(row).toBeDefined()
    expect(JSON.stringify(row)).not.toContain(s.refresh_token.slice(3))
    const [expires] = await h.deps.db.sql`select extract(epoch from expires_at - created_at)::int as secs
      from refresh_tokens where token_hash = ${sha256Hex(s.refresh_token)}`
    expect(expires!.secs).toBe(30 * 24 * 3600)
  })

  it('revokes the whole family when an already-rotated token comes back (theft detection)', async () => {
    const s = await signedUp(h)
    const second = await refresh(s.refresh_token)
    const third = await refresh(second.body.refresh_token)
    expect(third.status).toBe(200)
    // Another login of the same user is a separate family and must survive.
    const otherLogin = await h.json('POST', '/auth/login', { body: { email: s.email, password: PASSWORD } })
    const otherCode = await latestCode(h, s.email)
    const other = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: otherLogin.body.challenge_id, code: otherCode } })
    expect(other.status).toBe(200)

    expectDead(await refresh(s.refresh_token))
    // The newest token of the family died with it.
    expectDead(await refresh(third.body.refresh_token))
    expectDead(await refresh(second.body.refresh_token))
    expect(h.logs.some((l) => l.includes('refresh token reused'))).toBe(true)
    expect((await refresh(other.body.refresh_token)).status).toBe(200)
  })

  it('lets exactly one of two concurrent uses of the same token through', async () => {
    const s = await signedUp(h)
    const results = await Promise.all([refresh(s.refresh_token), refresh(s.refresh_token)])
    expect(results.map((r) => r.status).sort()).toEqual([200, 401])
  })

  it('expires a refresh token 30 days after it was issued', async () => {
    const s = await signedUp(h)
    h.clock.advance(30 * 24 * 3600 * 1000 - 60_000)
    const next = await refresh(s.refresh_token)
    expect(next.status).toBe(200)
    h.clock.advance(30 * 24 * 3600 * 1000 + 1000)
    expectDead(await refresh(next.body.refresh_token))
  })

  it('answers the same 401 for unknown, garbage and odd tokens', async () => {
    const bodies = []
    for (const token of ['rt_' + 'a'.repeat(52), 'x', 'rt_\u0000\u202e💥', ' '.repeat(512), '\ud800'.repeat(10)]) {
      const res = await refresh(token)
      expectDead(res)
      bodies.push({ ...res.body.error, request_id: 0 })
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
  })

  it('ends the session of a member removed from the organization', async () => {
    const s = await signedUp(h)
    await h.deps.db.sql`delete from memberships where user_id = ${s.user.user_id}`
    expectDead(await refresh(s.refresh_token))
  })

  it('puts the current role in the next access token', async () => {
    const s = await signedUp(h)
    await h.deps.db.sql`update memberships set role = 'admin' where user_id = ${s.user.user_id}`
    const next = await refresh(s.refresh_token)
    expect(next.body.organization.role).toBe('admin')
    const claims = JSON.parse(Buffer.from(next.body.access_token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({ sub: s.user.user_id, org: s.organization.org_id, role: 'admin' })
  })

  it('validates the body', async () => {
    for (const body of [{}, { refresh_token: 42 }, { refresh_token: '' }, { refresh_token: 'r'.repeat(513) }, { refresh_token: null }]) {
      const res = await h.json('POST', '/auth/refresh', { body })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details[0].path).toBe('refresh_token')
    }
    expect(
      (await h.json('POST', '/auth/refresh', { rawBody: '{"refresh_token":', headers: { 'content-type': 'application/json' } })).body.error
        .code
    ).toBe('invalid_json')
    expect(
      (
        await h.json('POST', '/auth/refresh', {
          rawBody: 'refresh_token=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status
    ).toBe(415)
  })
})

describe('logout', () => {
  it('kills the presented token with 204', async () => {
    const s = await signedUp(h)
    const res = await h.request('POST', '/auth/logout', { body: { refresh_token: s.refresh_token } })
    expect(res.status).toBe(204)
    expectDead(await refresh(s.refresh_token))
  })

  it("ends the whole login: the family's newest token dies even when an older one is presented", async () => {
    const s = await signedUp(h)
    const next = await refresh(s.refresh_token)
    expect((await logout(s.refresh_token)).status).toBe(204)
    expectDead(await refresh(next.body.refresh_token))
  })

  it('is idempotent: a dead, unknown or garbage token still gets 204', async () => {
    const s = await signedUp(h)
    expect((await logout(s.refresh_token)).status).toBe(204)
    expect((await logout(s.refresh_token)).status).toBe(204)
    expect((await logout('rt_' + 'b'.repeat(52))).status).toBe(204)
    expect((await logout('not-a-token')).status).toBe(204)
  })

  it('does not touch other families or users', async () => {
    const one = await signedUp(h)
    const two = await signedUp(h)
    await logout(one.refresh_token)
    expect((await refresh(two.refresh_token)).status).toBe(200)
  })

  it('answers 400 for a malformed body', async () => {
    for (const body of [{}, { refresh_token: 1 }, { refresh_token: '' }, { refresh_token: 'r'.repeat(513) }, []]) {
      const res = await h.json('POST', '/auth/logout', { body })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
    }
    expect((await h.json('POST', '/auth/logout', { rawBody: 'nope', headers: { 'content-type': 'application/json' } })).status).toBe(400)
  })
})
