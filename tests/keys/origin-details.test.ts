import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { codes, gql } from '../graphql/gql'
import { createHarness, type Harness } from '../helpers/harness'

// Issue 17: a list of allowed origins with several bad entries names every one of them (the
// dashboard marks the field with all of them), never only the first, and never echoes a password.
let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 30_000)
afterAll(() => h.close())

const CREATE = `mutation($o: [String!]) { createApiKey(name: "origins", sdkType: WEB, allowedOrigins: $o) { keyPairId } }`
const UPDATE = `mutation($id: ID!, $o: [String!]!) { updateApiKeyOrigins(keyPairId: $id, allowedOrigins: $o) { allowedOrigins } }`
const BAD = ['https://shop.example.com/checkout', 'ftp://files.example.com', 'https://user:hunter2@shop.example.com', 'shop.example.com']
const LIST = ['https://ok.example.com', BAD[0], BAD[1], 'http://localhost:3000', BAD[2], BAD[3]]

function expectEveryBadOriginNamed(res: Awaited<ReturnType<typeof gql>>) {
  expect(codes(res)).toEqual(['BAD_USER_INPUT'])
  const error = res.body.errors[0]
  const details = error.extensions.details as { path: string; message: string }[]
  expect(details.map((d) => d.path)).toEqual(['allowedOrigins[1]', 'allowedOrigins[2]', 'allowedOrigins[4]', 'allowedOrigins[5]'])
  expect(details[0]!.message).toContain('"https://shop.example.com/checkout"')
  expect(details[1]!.message).toContain('"ftp://files.example.com"')
  expect(details[2]!.message).toContain('"https://…@shop.example.com"')
  expect(details[3]!.message).toContain('"shop.example.com"')
  for (const d of details) expect(d.message).toContain('is not an origin')
  // The summary message lists them all too; the password appears nowhere.
  for (const d of details) expect(error.message).toContain(d.message)
  expect(JSON.stringify(res.body)).not.toContain('hunter2')
}

describe('origin validation names every bad origin', () => {
  it('createApiKey', async () => {
    const res = await gql(h.app, { jwt: h.a.jwt }, CREATE, { o: LIST })
    expectEveryBadOriginNamed(res)
    expect(res.body.data).toBeNull()
  })

  it('updateApiKeyOrigins, leaving the list unchanged', async () => {
    const created = await gql(h.app, { jwt: h.a.jwt }, CREATE, { o: ['https://keep.example.com'] })
    const id = created.body.data.createApiKey.keyPairId
    expectEveryBadOriginNamed(await gql(h.app, { jwt: h.a.jwt }, UPDATE, { id, o: LIST }))
    const listed = await gql(h.app, { jwt: h.a.jwt }, '{ listApiKeys { keyPairId allowedOrigins } }')
    expect(listed.body.data.listApiKeys.find((k: any) => k.keyPairId === id).allowedOrigins).toEqual(['https://keep.example.com'])
  })
})
