import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { httpPipeline } from '../../src/server/http'
import { authPlugin } from '../../src/server/plugins/auth'
import { createUser } from '../../tenants/provision'
import { codes, gql } from '../graphql/gql'
import { createHarness, type Harness } from '../helpers/harness'

// rotateApiKey with a grace period and updateApiKeyOrigins (API.md; issue 16). The default key cache
// (KEY_CACHE_TTL_MS = 5000) is on, so the tests also show it never keeps an old secret past its end.
let h: Harness
let probe: Elysia<any, any, any, any, any, any, any>
let memberJwt: string
let adminJwt: string

beforeAll(async () => {
  h = await createHarness({ env: { KEY_CACHE_TTL_MS: '5000' } })
  probe = new Elysia()
    .use(httpPipeline(h.deps))
    .use(authPlugin(h.deps.credentials))
    .get('/probe/secret', ({ principal }) => principal, { auth: ['secret'] })
    .get('/probe/browser', ({ principal }) => principal, { auth: ['public', 'secret'] })
  const memberId = await createUser(h.deps.db.sql, { orgId: h.a.orgId, email: 'm@rot.test', password: 'member-password-1', role: 'member' })
  memberJwt = await h.deps.tokens.sign({ sub: memberId, org: h.a.orgId, role: 'member' })
  const adminId = await createUser(h.deps.db.sql, { orgId: h.a.orgId, email: 'a@rot.test', password: 'admin-password-1', role: 'admin' })
  adminJwt = await h.deps.tokens.sign({ sub: adminId, org: h.a.orgId, role: 'admin' })
}, 30_000)
afterAll(() => h.close())

const status = async (path: string, headers: Record<string, string>) =>
  (await probe.handle(new Request(`http://localhost${path}`, { headers }))).status
const withSecret = (key: string) => status('/probe/secret', { 'x-api-key': key })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const CREATE = `mutation($o: [String!]) { createApiKey(name: "rot", sdkType: WEB, allowedOrigins: $o) { keyPairId publicKey secretKey } }`
const ROTATE = `mutation($id: ID!, $g: Int) {
  rotateApiKey(keyPairId: $id, gracePeriodSeconds: $g) { keyPairId secretKey previousSecretExpiresAt } }`
const ORIGINS = `mutation($id: ID!, $o: [String!]!) { updateApiKeyOrigins(keyPairId: $id, allowedOrigins: $o) { keyPairId allowedOrigins secretKey } }`

async function newPair(origins?: string[]) {
  const res = await gql(h.app, { jwt: h.a.jwt }, CREATE, { o: origins ?? null })
  expect(res.body.errors).toBeUndefined()
  return res.body.data.createApiKey as { keyPairId: string; publicKey: string; secretKey: string }
}

describe('rotateApiKey(keyPairId, gracePeriodSeconds)', () => {
  it('keeps the old secret working until previousSecretExpiresAt, then not (through the key cache)', async () => {
    const pair = await newPair()
    expect(await withSecret(pair.secretKey)).toBe(200) // now cached for up to 5 s
    const before = Date.now()
    const res = await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: pair.keyPairId, g: 2 })
    expect(res.body.errors).toBeUndefined()
    const rotated = res.body.data.rotateApiKey
    expect(rotated.secretKey).toMatch(/^svc_live_sk_/)
    expect(rotated.secretKey).not.toBe(pair.secretKey)
    const ends = Date.parse(rotated.previousSecretExpiresAt)
    expect(ends).toBeGreaterThanOrEqual(before + 1500)
    expect(ends).toBeLessThanOrEqual(Date.now() + 2500)
    expect(await withSecret(rotated.secretKey)).toBe(200)
    expect(await withSecret(pair.secretKey)).toBe(200)
    // listApiKeys reports the grace period; the secret itself is never listed.
    const listed = await gql(h.app, { jwt: h.a.jwt }, '{ listApiKeys { keyPairId secretKey previousSecretExpiresAt } }')
    const row = listed.body.data.listApiKeys.find((k: any) => k.keyPairId === pair.keyPairId)
    expect(row).toEqual({ keyPairId: pair.keyPairId, secretKey: null, previousSecretExpiresAt: rotated.previousSecretExpiresAt })
    // Past its end: refused, though the key cache (5 s) last read it less than 5 s ago.
    await sleep(Math.max(0, ends - Date.now()) + 50)
    expect(await withSecret(pair.secretKey)).toBe(401)
    h.deps.credentials.forget()
    expect(await withSecret(pair.secretKey)).toBe(401)
    expect(await withSecret(rotated.secretKey)).toBe(200)
    const after = await gql(h.app, { jwt: h.a.jwt }, '{ listApiKeys { keyPairId previousSecretExpiresAt } }')
    expect(after.body.data.listApiKeys.find((k: any) => k.keyPairId === pair.keyPairId).previousSecretExpiresAt).toBeNull()
  })

  it('without a grace period (the default) stops the old secret at once', async () => {
    const pair = await newPair()
    expect(await withSecret(pair.secretKey)).toBe(200)
    const res = await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: pair.keyPairId })
    expect(res.body.data.rotateApiKey.previousSecretExpiresAt).toBeNull()
    expect(await withSecret(pair.secretKey)).toBe(401)
    expect(await withSecret(res.body.data.rotateApiKey.secretKey)).toBe(200)
  })

  it("a second rotation ends the first one's grace period; revoking ends every secret", async () => {
    const pair = await newPair()
    const first = (await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: pair.keyPairId, g: 3600 })).body.data.rotateApiKey
    const second = (await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: pair.keyPairId, g: 3600 })).body.data.rotateApiKey
    expect(await withSecret(pair.secretKey)).toBe(401)
    expect(await withSecret(first.secretKey)).toBe(200)
    expect(await withSecret(second.secretKey)).toBe(200)
    await gql(h.app, { jwt: h.a.jwt }, `mutation($id: ID!) { revokeApiKey(keyPairId: $id) { keyPairId } }`, { id: pair.keyPairId })
    expect(await withSecret(first.secretKey)).toBe(401)
    expect(await withSecret(second.secretKey)).toBe(401)
  })

  it('refuses a grace period outside 0 … 604800 or not whole, changing nothing', async () => {
    const pair = await newPair()
    for (const g of [-1, 604_801, 1.5]) {
      const res = await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: pair.keyPairId, g })
      expect(codes(res)).toEqual(['BAD_USER_INPUT'])
      // 1.5 is no Int: GraphQL refuses the variable itself, before the resolver's own check.
      if (Number.isInteger(g)) expect(res.body.errors[0].extensions.details[0].path).toBe('gracePeriodSeconds')
    }
    expect(await withSecret(pair.secretKey)).toBe(200)
    const max = await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: pair.keyPairId, g: 604_800 })
    expect(Date.parse(max.body.data.rotateApiKey.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(604_790_000)
  })

  it("answers NOT_FOUND for another organization's pair; a member is FORBIDDEN, an admin may", async () => {
    const other = await gql(h.app, { jwt: h.b.jwt }, ROTATE, { id: h.a.keyPairId, g: 60 })
    expect(codes(other)).toEqual(['NOT_FOUND'])
    expect(await withSecret(h.a.secretKey)).toBe(200)
    const pair = await newPair()
    expect(codes(await gql(h.app, { jwt: memberJwt }, ROTATE, { id: pair.keyPairId, g: 60 }))).toEqual(['FORBIDDEN'])
    expect(await withSecret(pair.secretKey)).toBe(200)
    const admin = await gql(h.app, { jwt: adminJwt }, ROTATE, { id: pair.keyPairId, g: 60 })
    expect(admin.body.data.rotateApiKey.secretKey).toMatch(/^svc_live_sk_/)
  })
})

describe('updateApiKeyOrigins(keyPairId, allowedOrigins)', () => {
  const ingestFrom = (publicKey: string, origin?: string) =>
    status('/probe/browser', { 'x-api-key': publicKey, ...(origin ? { origin } : {}) })

  it('replaces the allow-list with the same normalisation as createApiKey, and it applies at once', async () => {
    const pair = await newPair(['https://old.example.com'])
    expect(await ingestFrom(pair.publicKey, 'https://old.example.com')).toBe(200)
    const res = await gql(h.app, { jwt: h.a.jwt }, ORIGINS, {
      id: pair.keyPairId,
      o: ['HTTPS://Shop.Example.com/', 'https://shop.example.com', 'http://localhost:5173'],
    })
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.updateApiKeyOrigins).toEqual({
      keyPairId: pair.keyPairId,
      allowedOrigins: ['https://shop.example.com', 'http://localhost:5173'],
      secretKey: null,
    })
    expect(await ingestFrom(pair.publicKey, 'https://old.example.com')).toBe(403)
    expect(await ingestFrom(pair.publicKey, 'https://shop.example.com')).toBe(200)
    // [] lifts the restriction.
    await gql(h.app, { jwt: h.a.jwt }, ORIGINS, { id: pair.keyPairId, o: [] })
    expect(await ingestFrom(pair.publicKey, 'https://anywhere.example')).toBe(200)
  })

  it('refuses what createApiKey refuses, changing nothing', async () => {
    const pair = await newPair(['https://keep.example.com'])
    const cases = [
      ['https://*.example.com'],
      ['https://shop.example.com/path'],
      ['ftp://x.example'],
      Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`),
    ]
    for (const o of cases) {
      const res = await gql(h.app, { jwt: h.a.jwt }, ORIGINS, { id: pair.keyPairId, o })
      expect(codes(res)).toEqual(['BAD_USER_INPUT'])
    }
    const listed = await gql(h.app, { jwt: h.a.jwt }, '{ listApiKeys { keyPairId allowedOrigins } }')
    expect(listed.body.data.listApiKeys.find((k: any) => k.keyPairId === pair.keyPairId).allowedOrigins).toEqual([
      'https://keep.example.com',
    ])
  })

  it("answers NOT_FOUND for another organization's pair, FORBIDDEN to a member, BAD_USER_INPUT for a revoked pair", async () => {
    expect(codes(await gql(h.app, { jwt: h.b.jwt }, ORIGINS, { id: h.a.keyPairId, o: ['https://evil.example'] }))).toEqual(['NOT_FOUND'])
    const pair = await newPair()
    expect(codes(await gql(h.app, { jwt: memberJwt }, ORIGINS, { id: pair.keyPairId, o: ['https://m.example'] }))).toEqual(['FORBIDDEN'])
    expect((await gql(h.app, { jwt: adminJwt }, ORIGINS, { id: pair.keyPairId, o: ['https://a.example'] })).body.data).toBeTruthy()
    await gql(h.app, { jwt: h.a.jwt }, `mutation($id: ID!) { revokeApiKey(keyPairId: $id) { keyPairId } }`, { id: pair.keyPairId })
    expect(codes(await gql(h.app, { jwt: h.a.jwt }, ORIGINS, { id: pair.keyPairId, o: [] }))).toEqual(['BAD_USER_INPUT'])
  })
})
