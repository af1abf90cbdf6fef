import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { createAccessTokens } from '../../src/server/platform/access-token'
import { createHarness, type Harness } from '../helpers/harness'
import { signedUp, dashboardProbe } from './support'

// argon2id (64 MiB per hash) is slow on a loaded machine; no assertion here is about time.
setDefaultTimeout(30_000)

// The dashboard JWT from verify-otp, checked by the tenancy plugin on a probe route.
let h: Harness
let probe: ReturnType<typeof dashboardProbe>
let session: Awaited<ReturnType<typeof signedUp>>
beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_AUTH_PER_MIN: '10000' } })
  probe = dashboardProbe(h)
  session = await signedUp(h)
}, 30_000)
afterAll(() => h.close())

const call = async (token: string) => {
  const res = await probe.handle(new Request('http://localhost/probe/dashboard', { headers: { authorization: `Bearer ${token}` } }))
  return { status: res.status, body: await res.json() }
}
const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const hs256 = (header: object, payload: object, secret: string) => {
  const input = `${b64url(header)}.${b64url(payload)}`
  const sig = new Bun.CryptoHasher('sha256', secret).update(input).digest('base64url')
  return `${input}.${sig}`
}
const now = () => Math.floor(Date.now() / 1000)
const claims = (over: object = {}) => ({
  sub: session.user.user_id,
  org: session.organization.org_id,
  role: 'owner',
  iss: 'bss',
  aud: 'bss-dashboard',
  iat: now(),
  exp: now() + 600,
  ...over,
})
const expect401 = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401)
  expect(res.body.error.code).toBe('unauthorized')
}

describe('dashboard access token', () => {
  it('carries user, organization and role, expires in 15 minutes, and opens a JWT route', async () => {
    const payload = JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString())
    expect(payload).toMatchObject({ sub: session.user.user_id, org: session.organization.org_id, role: 'owner' })
    expect(payload.exp - payload.iat).toBe(900)
    expect(JSON.parse(Buffer.from(session.access_token.split('.')[0]!, 'base64url').toString()).alg).toBe('HS256')
    const res = await call(session.access_token)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ kind: 'jwt', userId: session.user.user_id, orgId: session.organization.org_id })
  })

  it('accepts a hand-made token with our secret (so the refusals below test the right thing)', async () => {
    expect((await call(hs256({ alg: 'HS256', typ: 'JWT' }, claims(), h.deps.config.jwtSecret))).status).toBe(200)
  })

  it('refuses a tampered token', async () => {
    const [header, , sig] = session.access_token.split('.')
    const forged = `${header}.${b64url(claims({ role: 'owner', org: h.b.orgId }))}.${sig}`
    expect401(await call(forged))
    const flipped = session.access_token.slice(0, -2) + (session.access_token.endsWith('AA') ? 'BB' : 'AA')
    expect401(await call(flipped))
  })

  it('refuses an expired token', async () => {
    expect401(await call(hs256({ alg: 'HS256', typ: 'JWT' }, claims({ iat: now() - 2000, exp: now() - 60 }), h.deps.config.jwtSecret)))
  })

  it('refuses alg: none', async () => {
    expect401(await call(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}.`))
    expect401(await call(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}`))
  })

  it('refuses a token signed with another secret', async () => {
    const other = createAccessTokens('another-secret-that-is-at-least-32-characters')
    expect401(await call(await other.sign({ sub: session.user.user_id, org: session.organization.org_id, role: 'owner' })))
  })

  it('refuses another algorithm even with our secret', async () => {
    const input = `${b64url({ alg: 'HS512', typ: 'JWT' })}.${b64url(claims())}`
    const sig = new Bun.CryptoHasher('sha512', h.deps.config.jwtSecret).update(input).digest('base64url')
    expect401(await call(`${input}.${sig}`))
  })

  it('refuses a refresh token or garbage as a bearer token', async () => {
    expect401(await call(session.refresh_token))
    expect401(await call('a.b.c'))
  })
})
