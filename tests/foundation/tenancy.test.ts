import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { httpPipeline } from '../../src/server/http'
import { authPlugin } from '../../src/server/plugins/auth'
import { createHarness, type Harness } from '../helpers/harness'

// Probe routes on the real credential plugin; the feature modules' own tests cover their routes.
let h: Harness
let app: Elysia<any, any, any, any, any, any, any>
beforeAll(async () => {
  h = await createHarness()
  app = new Elysia()
    .use(httpPipeline(h.deps))
    .use(authPlugin(h.deps.credentials))
    .get('/probe/secret', ({ principal }) => principal, { auth: ['secret'] })
    .get('/probe/any-key', ({ principal }) => principal, { auth: ['public', 'secret'] })
    .get('/probe/dashboard', ({ principal }) => principal, { auth: ['secret', 'jwt'] })
})
afterAll(() => h.close())

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers }))
  return { status: res.status, body: await res.json() }
}

describe('credential resolution', () => {
  it('resolves a secret key to its organization', async () => {
    const res = await get('/probe/secret', { 'x-api-key': h.a.secretKey })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ kind: 'secret', orgId: h.a.orgId, planId: 'free', keyPairId: h.a.keyPairId })
  })

  it('answers 401 without a credential, with a malformed one and with an unknown one', async () => {
    expect((await get('/probe/secret')).status).toBe(401)
    expect((await get('/probe/secret', { 'x-api-key': 'svc_live_sk_short' })).body.error.code).toBe('unauthorized')
    expect((await get('/probe/secret', { 'x-api-key': 'svc_live_sk_' + 'A'.repeat(40) })).status).toBe(401)
  })

  it('answers 403 for a public key on a secret-only route', async () => {
    const res = await get('/probe/secret', { 'x-api-key': h.a.publicKey })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('forbidden')
  })

  it('accepts a public key in ?key= only where public keys are accepted, and never a secret key', async () => {
    expect((await get(`/probe/any-key?key=${h.a.publicKey}`)).body.orgId).toBe(h.a.orgId)
    expect((await get(`/probe/any-key?key=${h.a.secretKey}`)).status).toBe(401)
    expect((await get(`/probe/secret?key=${h.a.secretKey}`)).status).toBe(401)
  })

  it('resolves a dashboard JWT, refuses a tampered one', async () => {
    const ok = await get('/probe/dashboard', { authorization: `Bearer ${h.b.jwt}` })
    expect(ok.body).toMatchObject({ kind: 'jwt', orgId: h.b.orgId, userId: h.b.userId, role: 'owner' })
    const tampered = h.b.jwt.slice(0, -3) + (h.b.jwt.endsWith('A') ? 'BBB' : 'AAA')
    expect((await get('/probe/dashboard', { authorization: `Bearer ${tampered}` })).status).toBe(401)
    expect((await get('/probe/secret', { authorization: `Bearer ${h.b.jwt}` })).status).toBe(401)
  })

  it('stops accepting a revoked key once the cache entry expires (≤ KEY_CACHE_TTL_MS)', async () => {
    const org = await h.seedOrg('Revoked')
    expect((await get('/probe/secret', { 'x-api-key': org.secretKey })).status).toBe(200)
    await h.deps.db.sql`update api_key_pairs set revoked_at = now() where key_pair_id = ${org.keyPairId}`
    await Bun.sleep(h.deps.config.keyCacheTtlMs + 50)
    expect((await get('/probe/secret', { 'x-api-key': org.secretKey })).status).toBe(401)
  })
})
