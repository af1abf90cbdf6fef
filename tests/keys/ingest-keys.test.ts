import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { codes, gql } from '../graphql/gql'
import { createHarness, type Harness, tinyBatch } from '../helpers/harness'

// The same key lifecycle as keys.test.ts, through the real POST /v1/ingest instead of a probe route.
let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 30_000)
afterAll(() => h.close())

const batch = () => tinyBatch(h, { sdk_type: 'web' })

const ingest = (key: string, origin?: string) =>
  h.request('POST', '/v1/ingest', { body: batch(), headers: { 'x-api-key': key, ...(origin ? { origin } : {}) } })

async function createKey(origins: string[] = []) {
  const res = await gql(
    h.app,
    { jwt: h.a.jwt },
    `mutation($o: [String!]) { createApiKey(name: "site", sdkType: WEB, allowedOrigins: $o) { keyPairId publicKey secretKey } }`,
    { o: origins }
  )
  expect(codes(res)).toEqual([])
  return res.body.data.createApiKey as { keyPairId: string; publicKey: string; secretKey: string }
}

describe('keys created over GraphQL, used on POST /v1/ingest', () => {
  it('accepts the public key from an allowed origin (202, CORS echo) and refuses another origin (403)', async () => {
    const key = await createKey(['https://shop.example.com'])
    const ok = await ingest(key.publicKey, 'https://shop.example.com')
    expect(ok.status).toBe(202)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example.com')
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Quota-Remaining')
    const other = await ingest(key.publicKey, 'https://evil.example.net')
    expect(other.status).toBe(403)
    expect(((await other.json()) as any).error.code).toBe('forbidden')
  })

  it('accepts the secret key (200) until the pair is revoked (401 at once)', async () => {
    const key = await createKey()
    expect((await ingest(key.secretKey)).status).toBe(200)
    await gql(h.app, { jwt: h.a.jwt }, `mutation($id: ID!) { revokeApiKey(keyPairId: $id) { revokedAt } }`, { id: key.keyPairId })
    expect((await ingest(key.secretKey)).status).toBe(401)
    expect((await ingest(key.publicKey)).status).toBe(401)
  })

  it('after rotation refuses the old secret and accepts the new one', async () => {
    const key = await createKey()
    expect((await ingest(key.secretKey)).status).toBe(200)
    const res = await gql(h.app, { jwt: h.a.jwt }, `mutation($id: ID!) { rotateApiKey(keyPairId: $id) { secretKey } }`, {
      id: key.keyPairId,
    })
    const fresh = res.body.data.rotateApiKey.secretKey as string
    expect((await ingest(key.secretKey)).status).toBe(401)
    expect((await ingest(fresh)).status).toBe(200)
    expect((await ingest(key.publicKey)).status).toBe(202)
  })
})
