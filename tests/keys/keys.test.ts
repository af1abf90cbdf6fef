import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { httpPipeline } from '../../src/server/http'
import { sha256Hex } from '../../src/server/platform/crypto'
import { authPlugin } from '../../src/server/plugins/auth'
import { createUser } from '../../tenants/provision'
import { codes, gql } from '../graphql/gql'
import { createHarness, type Harness } from '../helpers/harness'

// Probe routes on the real credential plugin (same deps, so the same resolver and key cache as h.app).
let h: Harness
let probe: Elysia<any, any, any, any, any, any, any>
let memberJwt: string
let adminJwt: string

beforeAll(async () => {
  h = await createHarness()
  probe = new Elysia()
    .use(httpPipeline(h.deps))
    .use(authPlugin(h.deps.credentials))
    .get('/probe/secret', ({ principal }) => principal, { auth: ['secret'] })
    .get('/probe/browser', ({ principal }) => principal, { auth: ['public', 'secret'] })
  const sql = h.deps.db.sql
  const memberId = await createUser(sql, { orgId: h.a.orgId, email: 'member@org-a.test', password: 'member-password-1', role: 'member' })
  memberJwt = await h.deps.tokens.sign({ sub: memberId, org: h.a.orgId, role: 'member' })
  const adminId = await createUser(sql, { orgId: h.a.orgId, email: 'admin@org-a.test', password: 'admin-password-1', role: 'admin' })
  adminJwt = await h.deps.tokens.sign({ sub: adminId, org: h.a.orgId, role: 'admin' })
}, 30_000)
afterAll(() => h.close())

const probeGet = async (path: string, headers: Record<string, string>) => {
  const res = await probe.handle(new Request(`http://localhost${path}`, { headers }))
  return { status: res.status, body: (await res.json()) as any }
}

const CREATE = /* GraphQL */ `
  mutation Create($name: String!, $sdkType: SdkType!, $origins: [String!]) {
    createApiKey(name: $name, sdkType: $sdkType, allowedOrigins: $origins) {
      keyPairId name sdkType publicKey secretKey createdAt lastUsedAt revokedAt allowedOrigins
    }
  }`
const REVOKE = `mutation($id: ID!) { revokeApiKey(keyPairId: $id) { keyPairId revokedAt secretKey } }`
const ROTATE = `mutation($id: ID!) { rotateApiKey(keyPairId: $id) { keyPairId publicKey secretKey revokedAt } }`
const LIST = `{ listApiKeys { keyPairId name sdkType publicKey secretKey revokedAt allowedOrigins } }`

async function createKey(jwt: string, variables: Record<string, unknown> = {}) {
  const res = await gql(h.app, { jwt }, CREATE, { name: 'Checkout', sdkType: 'WEB', ...variables })
  expect(res.status).toBe(200)
  expect(res.body.errors).toBeUndefined()
  return res.body.data.createApiKey as {
    keyPairId: string
    name: string
    sdkType: string
    publicKey: string
    secretKey: string
    createdAt: string
    lastUsedAt: string | null
    revokedAt: string | null
    allowedOrigins: string[]
  }
}

describe('createApiKey', () => {
  it('returns a key pair whose secret resolves to the caller organization', async () => {
    const key = await createKey(h.a.jwt, { name: '  Checkout page  ', sdkType: 'SERVER' })
    expect(key.publicKey).toMatch(/^svc_live_pk_[0-9A-Za-z]{32}$/)
    expect(key.secretKey).toMatch(/^svc_live_sk_[0-9A-Za-z]{40}$/)
    expect(key).toMatchObject({ name: 'Checkout page', sdkType: 'SERVER', lastUsedAt: null, revokedAt: null, allowedOrigins: [] })
    expect(key.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

    const res = await probeGet('/probe/secret', { 'x-api-key': key.secretKey })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ kind: 'secret', orgId: h.a.orgId, keyPairId: key.keyPairId })
  })

  it('stores only the SHA-256 of the secret', async () => {
    const key = await createKey(h.a.jwt)
    const [row]: [{ secret_hash: string }?] = await h.deps.db
      .sql`select secret_hash from api_key_pairs where key_pair_id = ${key.keyPairId}`
    expect(row!.secret_hash).toBe(sha256Hex(key.secretKey))
    const [hit]: [{ n: number }?] = await h.deps.db.sql`
      select count(*)::int as n from api_key_pairs where secret_hash = ${key.secretKey} or public_key = ${key.secretKey}`
    expect(hit!.n).toBe(0)
  })

  it('normalises and de-duplicates allowed origins', async () => {
    const key = await createKey(h.a.jwt, {
      origins: ['https://Shop.Example.com:443/', 'https://shop.example.com', 'http://localhost:3000'],
    })
    expect(key.allowedOrigins).toEqual(['https://shop.example.com', 'http://localhost:3000'])
  })

  it('refuses bad input with BAD_USER_INPUT and details, creating nothing', async () => {
    const before = await h.deps.db.sql`select count(*)::int as n from api_key_pairs where org_id = ${h.a.orgId}`
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ origins: ['https://shop.example.com/checkout'] }, 'allowedOrigins[0]'],
      [{ origins: ['ftp://files.example.com'] }, 'allowedOrigins[0]'],
      [{ origins: ['https://ok.example.com', 'https://*.example.com'] }, 'allowedOrigins[1]'],
      [{ origins: ['shop.example.com'] }, 'allowedOrigins[0]'],
      [{ origins: ['https://user:pw@shop.example.com'] }, 'allowedOrigins[0]'],
      [{ origins: ['https://shop.example.com?x=1'] }, 'allowedOrigins[0]'],
      [{ origins: ['null'] }, 'allowedOrigins[0]'],
      [{ origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`) }, 'allowedOrigins'],
    ]
    for (const [variables, path] of cases) {
      const res = await gql(h.app, { jwt: h.a.jwt }, CREATE, { name: 'Checkout', sdkType: 'WEB', ...variables })
      expect(res.status).toBe(200)
      expect(codes(res)).toEqual(['BAD_USER_INPUT'])
      expect(res.body.errors[0].extensions.details.map((d: any) => d.path)).toContain(path)
      expect(res.body.data).toBeNull()
    }
    const after = await h.deps.db.sql`select count(*)::int as n from api_key_pairs where org_id = ${h.a.orgId}`
    expect(after[0]!.n).toBe(before[0]!.n)
  })

  it('accepts exactly 100 characters and 20 origins', async () => {
    const key = await createKey(h.a.jwt, {
      name: 'n'.repeat(100),
      origins: Array.from({ length: 20 }, (_, i) => `https://s${i}.example.com`),
    })
    expect(key.name).toHaveLength(100)
    expect(key.allowedOrigins).toHaveLength(20)
  })

  it('refuses an unknown sdkType as a GraphQL input error', async () => {
    const res = await gql(h.app, { jwt: h.a.jwt }, CREATE, { name: 'x', sdkType: 'DESKTOP' })
    expect(res.status).toBe(400)
    expect(codes(res)).toEqual(['BAD_USER_INPUT'])
  })

  it('is allowed to an admin and forbidden to a member', async () => {
    expect((await createKey(adminJwt)).secretKey).toMatch(/^svc_live_sk_/)
    const res = await gql(h.app, { jwt: memberJwt }, CREATE, { name: 'Nope', sdkType: 'WEB' })
    expect(codes(res)).toEqual(['FORBIDDEN'])
    expect(res.body.data).toBeNull()
    const [row]: [{ n: number }?] = await h.deps.db.sql`select count(*)::int as n from api_key_pairs where name = 'Nope'`
    expect(row!.n).toBe(0)
  })
})

describe('listApiKeys', () => {
  it("lists the caller organization's pairs, never a secret, never another organization's", async () => {
    const created = await createKey(h.b.jwt, { name: 'B only' })
    const a = await gql(h.app, { jwt: h.a.jwt }, LIST)
    const b = await gql(h.app, { jwt: h.b.jwt }, LIST)
    const aIds = a.body.data.listApiKeys.map((k: any) => k.keyPairId)
    const bIds = b.body.data.listApiKeys.map((k: any) => k.keyPairId)
    expect(aIds).toContain(h.a.keyPairId)
    expect(aIds).not.toContain(h.b.keyPairId)
    expect(aIds).not.toContain(created.keyPairId)
    expect(bIds).toEqual(expect.arrayContaining([h.b.keyPairId, created.keyPairId]))
    expect(bIds).not.toContain(h.a.keyPairId)
    for (const key of [...a.body.data.listApiKeys, ...b.body.data.listApiKeys]) expect(key.secretKey).toBeNull()
    expect(a.text).not.toContain('svc_live_sk_')
  })

  it('is allowed to a member', async () => {
    const res = await gql(h.app, { jwt: memberJwt }, LIST)
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.listApiKeys.map((k: any) => k.keyPairId)).toContain(h.a.keyPairId)
  })
})

describe('revokeApiKey', () => {
  it('stops both keys at once on this instance; a second revoke keeps the first revocation time', async () => {
    const key = await createKey(h.a.jwt)
    // Warm the key cache first: the revoke must not wait for the cache to expire.
    expect((await probeGet('/probe/secret', { 'x-api-key': key.secretKey })).status).toBe(200)
    expect((await probeGet('/probe/browser', { 'x-api-key': key.publicKey })).status).toBe(200)

    const first = await gql(h.app, { jwt: h.a.jwt }, REVOKE, { id: key.keyPairId })
    expect(first.body.data.revokeApiKey).toMatchObject({ keyPairId: key.keyPairId, secretKey: null })
    expect(first.body.data.revokeApiKey.revokedAt).toMatch(/Z$/)

    const secret = await probeGet('/probe/secret', { 'x-api-key': key.secretKey })
    expect(secret.status).toBe(401)
    expect(secret.body.error.code).toBe('unauthorized')
    expect((await probeGet('/probe/browser', { 'x-api-key': key.publicKey })).status).toBe(401)

    const second = await gql(h.app, { jwt: h.a.jwt }, REVOKE, { id: key.keyPairId })
    expect(second.body.data.revokeApiKey.revokedAt).toBe(first.body.data.revokeApiKey.revokedAt)

    const list = await gql(h.app, { jwt: h.a.jwt }, LIST)
    const listed = list.body.data.listApiKeys.find((k: any) => k.keyPairId === key.keyPairId)
    expect(listed.revokedAt).toBe(first.body.data.revokeApiKey.revokedAt)
  })

  it("answers NOT_FOUND for another organization's pair and leaves it working", async () => {
    const res = await gql(h.app, { jwt: h.a.jwt }, REVOKE, { id: h.b.keyPairId })
    expect(codes(res)).toEqual(['NOT_FOUND'])
    expect(res.body.data).toBeNull()
    expect(res.text).not.toContain(h.b.publicKey)
    expect((await probeGet('/probe/secret', { 'x-api-key': h.b.secretKey })).status).toBe(200)
    const [row]: [{ revoked_at: Date | null }?] = await h.deps.db
      .sql`select revoked_at from api_key_pairs where key_pair_id = ${h.b.keyPairId}`
    expect(row!.revoked_at).toBeNull()
  })

  it('answers NOT_FOUND for an unknown id and BAD_USER_INPUT for a malformed one', async () => {
    expect(codes(await gql(h.app, { jwt: h.a.jwt }, REVOKE, { id: crypto.randomUUID() }))).toEqual(['NOT_FOUND'])
    const malformed = await gql(h.app, { jwt: h.a.jwt }, REVOKE, { id: "1' or '1'='1" })
    expect(malformed.status).toBe(200)
    expect(codes(malformed)).toEqual(['BAD_USER_INPUT'])
    expect(malformed.body.errors[0].extensions.details[0].path).toBe('keyPairId')
  })

  it('is forbidden to a member, which changes nothing', async () => {
    const key = await createKey(h.a.jwt)
    const res = await gql(h.app, { jwt: memberJwt }, REVOKE, { id: key.keyPairId })
    expect(codes(res)).toEqual(['FORBIDDEN'])
    expect((await probeGet('/probe/secret', { 'x-api-key': key.secretKey })).status).toBe(200)
  })
})

describe('rotateApiKey', () => {
  it('keeps the pair id and public key, returns a new secret once, and the old secret stops at once', async () => {
    const key = await createKey(h.a.jwt)
    expect((await probeGet('/probe/secret', { 'x-api-key': key.secretKey })).status).toBe(200)

    const res = await gql(h.app, { jwt: adminJwt }, ROTATE, { id: key.keyPairId })
    const rotated = res.body.data.rotateApiKey
    expect(rotated).toMatchObject({ keyPairId: key.keyPairId, publicKey: key.publicKey, revokedAt: null })
    expect(rotated.secretKey).toMatch(/^svc_live_sk_[0-9A-Za-z]{40}$/)
    expect(rotated.secretKey).not.toBe(key.secretKey)

    expect((await probeGet('/probe/secret', { 'x-api-key': key.secretKey })).status).toBe(401)
    const fresh = await probeGet('/probe/secret', { 'x-api-key': rotated.secretKey })
    expect(fresh.status).toBe(200)
    expect(fresh.body).toMatchObject({ orgId: h.a.orgId, keyPairId: key.keyPairId })
    expect((await probeGet('/probe/browser', { 'x-api-key': key.publicKey })).status).toBe(200)

    const list = await gql(h.app, { jwt: h.a.jwt }, LIST)
    expect(list.body.data.listApiKeys.find((k: any) => k.keyPairId === key.keyPairId).secretKey).toBeNull()
  })

  it('refuses a revoked pair with BAD_USER_INPUT', async () => {
    const key = await createKey(h.a.jwt)
    await gql(h.app, { jwt: h.a.jwt }, REVOKE, { id: key.keyPairId })
    const res = await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: key.keyPairId })
    expect(codes(res)).toEqual(['BAD_USER_INPUT'])
    expect((await probeGet('/probe/secret', { 'x-api-key': key.secretKey })).status).toBe(401)
  })

  it("answers NOT_FOUND for another organization's pair, whose secret keeps working", async () => {
    const res = await gql(h.app, { jwt: h.a.jwt }, ROTATE, { id: h.b.keyPairId })
    expect(codes(res)).toEqual(['NOT_FOUND'])
    expect(res.text).not.toContain('svc_live_sk_')
    expect((await probeGet('/probe/secret', { 'x-api-key': h.b.secretKey })).status).toBe(200)
  })

  it('is forbidden to a member', async () => {
    const key = await createKey(h.a.jwt)
    const res = await gql(h.app, { jwt: memberJwt }, ROTATE, { id: key.keyPairId })
    expect(codes(res)).toEqual(['FORBIDDEN'])
    expect(res.text).not.toContain('svc_live_sk_')
    expect((await probeGet('/probe/secret', { 'x-api-key': key.secretKey })).status).toBe(200)
  })
})

describe('keys on API routes', () => {
  it('refuses a public key on a secret-only route with 403', async () => {
    const key = await createKey(h.a.jwt)
    const res = await probeGet('/probe/secret', { 'x-api-key': key.publicKey })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('forbidden')
  })

  it("enforces a public key's origin allow-list", async () => {
    const key = await createKey(h.a.jwt, { origins: ['https://shop.example.com'] })
    const allowed = await probeGet('/probe/browser', { 'x-api-key': key.publicKey, origin: 'https://shop.example.com' })
    expect(allowed.status).toBe(200)
    expect(allowed.body.orgId).toBe(h.a.orgId)
    const other = await probeGet('/probe/browser', { 'x-api-key': key.publicKey, origin: 'https://evil.example.net' })
    expect(other.status).toBe(403)
    expect(other.body.error.code).toBe('forbidden')
    expect((await probeGet('/probe/browser', { 'x-api-key': key.publicKey })).status).toBe(403)
  })

  it('accepts a public key without an allow-list from any origin', async () => {
    const key = await createKey(h.a.jwt)
    expect((await probeGet('/probe/browser', { 'x-api-key': key.publicKey, origin: 'https://anything.example' })).status).toBe(200)
  })
})
