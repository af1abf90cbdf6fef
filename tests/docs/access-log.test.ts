import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness'

// The access log carries the status that went out (GraphQL builds its own Response, which set.status
// never saw: 400 and 401 were logged as 200) and the GraphQL error code.

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})
afterAll(() => h.close())

/** The access-log line of the request with this id. */
function lineOf(requestId: string): Record<string, unknown> {
  const lines = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.request_id === requestId)
  expect(lines).toHaveLength(1)
  return lines[0]
}

async function graphql(query: string, headers: Record<string, string> = {}) {
  const res = await h.json('POST', '/graphql', { body: { query }, headers })
  // onAfterResponse runs once the response is out: give it its turn.
  await Bun.sleep(5)
  return { ...res, line: lineOf(res.headers.get('x-request-id')!) }
}

describe('access log', () => {
  test('GraphQL without a JWT: 401 UNAUTHENTICATED, logged as such', async () => {
    const { status, line } = await graphql('{ getPlanUsage { planId } }')
    expect(status).toBe(401)
    expect(line).toMatchObject({ route: '/graphql', status: 401, graphql_code: 'UNAUTHENTICATED' })
  })

  test('GraphQL syntax error: 400 BAD_USER_INPUT, logged as such', async () => {
    const { status, body, line } = await graphql('{ getPlanUsage {', { authorization: `Bearer ${h.a.jwt}` })
    expect(status).toBe(400)
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT')
    expect(line).toMatchObject({ status: 400, graphql_code: 'BAD_USER_INPUT', org_id: h.a.orgId })
  })

  test('a resolver error is a 200 with its code in the log; a clean answer has no code', async () => {
    const missing = await graphql(`mutation { revokeApiKey(keyPairId: "${crypto.randomUUID()}") { keyPairId } }`, {
      authorization: `Bearer ${h.a.jwt}`,
    })
    expect(missing.status).toBe(200)
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND')
    expect(missing.line).toMatchObject({ status: 200, graphql_code: 'NOT_FOUND' })

    const ok = await graphql('{ getPlanUsage { planId } }', { authorization: `Bearer ${h.a.jwt}` })
    expect(ok.status).toBe(200)
    expect(ok.line.status).toBe(200)
    expect(ok.line).not.toHaveProperty('graphql_code')
  })

  test('REST errors and handler-built responses keep their real status', async () => {
    const absent = await h.json('GET', `/v1/session/${crypto.randomUUID()}`, { headers: { 'x-api-key': h.a.secretKey } })
    const sdl = await h.request('GET', '/graphql/schema.graphql')
    await Bun.sleep(5)
    expect(absent.status).toBe(404)
    expect(lineOf(absent.headers.get('x-request-id')!)).toMatchObject({ status: 404, route: '/v1/session/:session_id' })
    expect(lineOf(sdl.headers.get('x-request-id')!)).toMatchObject({ status: 200 })
    expect(lineOf(sdl.headers.get('x-request-id')!)).not.toHaveProperty('graphql_code')
  })
})
