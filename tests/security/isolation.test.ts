import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createHarness, type Harness, tinyBatch } from '../helpers/harness'
import { codes, gql } from '../graphql/gql'

/**
 * The tenant isolation matrix: for every endpoint and GraphQL operation, organization B's
 * credentials aimed at A's resources get 404 / NOT_FOUND (or act on B's own data) and change
 * nothing of A's. Each row snapshots all of A's rows before and after.
 */
let h: Harness
let aSession: string
let aTicket: string
beforeAll(async () => {
  h = await createHarness()
  aSession = crypto.randomUUID()
  const res = await h.json('POST', '/v1/ingest', { headers: { 'x-api-key': h.a.secretKey }, body: batch(aSession) })
  expect(res.status).toBe(200)
  const ticket = await h.json('POST', '/v1/support/tickets', {
    headers: { 'x-api-key': h.a.secretKey },
    body: { subject: 'A only', message: 'secret A text' },
  })
  aTicket = ticket.body.ticket_id
})
afterAll(() => h.close())

const batch = (sessionId: string, extra: Record<string, unknown> = {}) => tinyBatch(h, { session_id: sessionId, ...extra })

/** Everything organization A owns, as one comparable value. */
async function snapshotA() {
  const sql = h.deps.db.sql
  const org = h.a.orgId
  return {
    org: await sql`select name, plan_id from organizations where org_id = ${org}`,
    members: await sql`select user_id, role from memberships where org_id = ${org} order by user_id`,
    keys: await sql`select key_pair_id, name, public_key, secret_hash, revoked_at, rotated_at from api_key_pairs where org_id = ${org} order by key_pair_id`,
    sessions:
      await sql`select session_id, batch_count, signal_count, hcs, verdict, scored_at from sessions where org_id = ${org} order by session_id`,
    batches: await sql`select session_id, seq, batch_hash from session_batches where org_id = ${org} order by session_id, seq`,
    usage: await sql`select month, sessions_used from usage_counters where org_id = ${org}`,
    tickets: await sql`select ticket_id, subject, status from support_tickets where org_id = ${org} order by ticket_id`,
    labels: await sql`select session_id, label, label_note, labeled_at, labeled_by from sessions where org_id = ${org} order by session_id`,
    thresholds: await sql`select bot_below, human_above, updated_at from verdict_thresholds where org_id = ${org}`,
    thresholdChanges: await sql`select changed_at, changed_by, bot_below, human_above from threshold_changes where org_id = ${org}`,
  }
}

async function unchangedA(action: () => Promise<void>) {
  const before = await snapshotA()
  await action()
  expect(await snapshotA()).toEqual(before)
}

const asB = { 'x-api-key': '' }
beforeAll(() => {
  asB['x-api-key'] = h.b.secretKey
})

describe('REST: B aimed at A', () => {
  it('GET /v1/session/:id of A with B secret key → 404', () =>
    unchangedA(async () => {
      const res = await h.json('GET', `/v1/session/${aSession}`, { headers: asB })
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('not_found')
      expect(JSON.stringify(res.body)).not.toContain(h.a.orgId)
    }))

  it('POST /v1/ingest with A’s session id and B’s key → a separate B session; A untouched', () =>
    unchangedA(async () => {
      const res = await h.json('POST', '/v1/ingest', { headers: asB, body: batch(aSession, { signals: [{ t: 0, k: 'kd', kc: 'char' }] }) })
      expect(res.status).toBe(200)
      expect(res.body.batches).toBe(1) // a new session of B, not A's second batch
      const [row] = await h.deps.db.sql`select org_id from sessions where session_id = ${aSession} and org_id = ${h.b.orgId}`
      expect(row?.org_id).toBe(h.b.orgId)
    }))

  it('POST /v1/ingest with B’s public key and an org_id in the body → counted for B only', () =>
    unchangedA(async () => {
      const res = await h.json('POST', '/v1/ingest', {
        headers: { 'x-api-key': h.b.publicKey },
        body: batch(crypto.randomUUID(), { org_id: h.a.orgId }),
      })
      expect(res.status).toBe(202)
    }))

  it('GET /v1/org/usage with B’s key and JWT → B’s numbers only', () =>
    unchangedA(async () => {
      for (const headers of [asB, { authorization: `Bearer ${h.b.jwt}` }]) {
        const res = await h.json('GET', `/v1/org/usage?org_id=${h.a.orgId}`, { headers })
        expect(res.status).toBe(200)
        const [{ n }] = await h.deps.db
          .sql`select coalesce(sum(sessions_used), 0)::int as n from usage_counters where org_id = ${h.b.orgId}`
        expect(res.body.sessions_used).toBe(n)
      }
    }))

  it('POST /v1/support/tickets naming A in the body → lands in B', () =>
    unchangedA(async () => {
      const res = await h.json('POST', '/v1/support/tickets', {
        headers: asB,
        body: { subject: 'x', message: 'y', org_id: h.a.orgId, organization_id: h.a.orgId },
      })
      expect(res.status).toBe(201)
      const [row] = await h.deps.db.sql`select org_id from support_tickets where ticket_id = ${res.body.ticket_id}`
      expect(row!.org_id).toBe(h.b.orgId)
    }))

  it('GET /demo/result/:id of A’s session → 404 (the demo shows only the demo organization)', () =>
    unchangedA(async () => {
      const res = await h.json('GET', `/demo/result/${aSession}`)
      expect(res.status).toBe(404)
    }))
})

describe('GraphQL: B’s JWT aimed at A', () => {
  it('listApiKeys never shows A’s keys', () =>
    unchangedA(async () => {
      const res = await gql(h.app, { jwt: h.b.jwt }, '{ listApiKeys { keyPairId publicKey } }')
      expect(res.status).toBe(200)
      const ids = res.body.data.listApiKeys.map((k: { keyPairId: string }) => k.keyPairId)
      expect(ids).toContain(h.b.keyPairId)
      expect(ids).not.toContain(h.a.keyPairId)
      expect(res.text).not.toContain(h.a.publicKey)
    }))

  for (const op of ['revokeApiKey', 'rotateApiKey']) {
    it(`${op}(A’s key pair) → NOT_FOUND, A’s secret key still works`, () =>
      unchangedA(async () => {
        const res = await gql(h.app, { jwt: h.b.jwt }, `mutation($id: ID!) { ${op}(keyPairId: $id) { keyPairId secretKey } }`, {
          id: h.a.keyPairId,
        })
        expect(codes(res)).toEqual(['NOT_FOUND'])
        expect(res.body.data).toBeNull()
        expect((await h.json('GET', `/v1/session/${aSession}`, { headers: { 'x-api-key': h.a.secretKey } })).status).toBe(200)
      }))
  }

  it('getPlanUsage answers B’s plan usage', () =>
    unchangedA(async () => {
      const res = await gql(h.app, { jwt: h.b.jwt }, '{ getPlanUsage { planId sessionsUsed } }')
      const [{ n }] = await h.deps.db.sql`select coalesce(sum(sessions_used), 0)::int as n from usage_counters where org_id = ${h.b.orgId}`
      expect(res.body.data.getPlanUsage.sessionsUsed).toBe(n)
    }))

  it('listSupportTickets never shows A’s tickets', () =>
    unchangedA(async () => {
      const res = await gql(h.app, { jwt: h.b.jwt }, '{ listSupportTickets { ticketId subject message } }')
      expect(res.status).toBe(200)
      expect(res.body.data.listSupportTickets.map((t: { ticketId: string }) => t.ticketId)).not.toContain(aTicket)
      expect(res.text).not.toContain('secret A text')
    }))

  it('createApiKey creates the key in B, whatever it is called', () =>
    unchangedA(async () => {
      const res = await gql(h.app, { jwt: h.b.jwt }, 'mutation { createApiKey(name: "A", sdkType: WEB) { keyPairId } }')
      const [row] = await h.deps.db.sql`select org_id from api_key_pairs where key_pair_id = ${res.body.data.createApiKey.keyPairId}`
      expect(row!.org_id).toBe(h.b.orgId)
    }))
})

describe('sessions, labels and thresholds (issues 17, 18): B aimed at A', () => {
  const asBJwt = () => ({ jwt: h.b.jwt })
  // A session id B never used (an earlier test gives B a session with aOnly's id).
  let aOnly: string
  beforeAll(async () => {
    aOnly = crypto.randomUUID()
    expect((await h.json('POST', '/v1/ingest', { headers: { 'x-api-key': h.a.secretKey }, body: batch(aOnly) })).status).toBe(200)
  })

  it('POST /v1/session/:id/label of A’s session with B’s secret key → 404, A’s session unlabelled', () =>
    unchangedA(async () => {
      const res = await h.json('POST', `/v1/session/${aOnly}/label`, { headers: asB, body: { label: 'bot' } })
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('not_found')
    }))

  it('labelSession(A’s session) with B’s JWT → NOT_FOUND', () =>
    unchangedA(async () => {
      const res = await gql(h.app, asBJwt(), 'mutation($id: ID!) { labelSession(sessionId: $id, label: bot) { labeledAt } }', {
        id: aOnly,
      })
      expect(codes(res)).toEqual(['NOT_FOUND'])
    }))

  it('session(A’s session) with B’s JWT → null', () =>
    unchangedA(async () => {
      const res = await gql(h.app, asBJwt(), 'query($id: ID!) { session(sessionId: $id) { durationMs } }', { id: aOnly })
      expect(res.body.errors).toBeUndefined()
      expect(res.body.data.session).toBeNull()
    }))

  it('listSessions (every filter) never lists A’s sessions; verdictStats, errorRates and simulateThresholds count B’s only', async () => {
    // A's session labelled by A, so the label filter and the rates would show it if they leaked.
    expect(
      (await h.json('POST', `/v1/session/${aOnly}/label`, { headers: { 'x-api-key': h.a.secretKey }, body: { label: 'human' } })).status
    ).toBe(200)
    await unchangedA(async () => {
      for (const args of ['', '(label: human)', '(verdict: insufficient_data)', '(verdict: bot)', '(from: "2000-01-01")']) {
        const res = await gql(h.app, asBJwt(), `{ listSessions${args} { sessions { sessionId } } }`)
        expect(res.body.errors).toBeUndefined()
        expect(res.text).not.toContain(aOnly)
      }
      const [{ n }] = await h.deps.db.sql`select count(*)::int as n from sessions where org_id = ${h.b.orgId}`
      const stats = await gql(h.app, asBJwt(), '{ verdictStats(days: 90) { total } }')
      expect(stats.body.data.verdictStats.total).toBe(n)
      const rates = await gql(h.app, asBJwt(), '{ errorRates { labelledHumans labelledBots } }')
      expect(rates.body.data.errorRates).toEqual({ labelledHumans: 0, labelledBots: 0 })
      const sim = await gql(
        h.app,
        asBJwt(),
        '{ simulateThresholds(botBelow: 10, humanAbove: 90) { rates { labelledHumans } current { unscored insufficientData humanVerified suspicious bot } } }'
      )
      const cur = sim.body.data.simulateThresholds.current
      expect(cur.unscored + cur.insufficientData + cur.humanVerified + cur.suspicious + cur.bot).toBe(n)
      expect(sim.body.data.simulateThresholds.rates.labelledHumans).toBe(0)
    })
  })

  it('GET /v1/labels/export with B’s JWT never contains A’s labelled session', () =>
    unchangedA(async () => {
      const res = await h.request('GET', '/v1/labels/export', { headers: { authorization: `Bearer ${h.b.jwt}` } })
      expect(res.status).toBe(200)
      expect(await res.text()).not.toContain(aOnly)
    }))

  it('setVerdictThresholds by B changes B’s thresholds only', () =>
    unchangedA(async () => {
      const res = await gql(h.app, asBJwt(), 'mutation { setVerdictThresholds(botBelow: 10, humanAbove: 95) { botBelow } }')
      expect(res.body.data.setVerdictThresholds.botBelow).toBe(10)
      const a = await gql(h.app, { jwt: h.a.jwt }, '{ verdictThresholds { botBelow humanAbove } thresholdHistory { changedAt } }')
      expect(a.body.data).toEqual({ verdictThresholds: { botBelow: 30, humanAbove: 70 }, thresholdHistory: [] })
    }))
})

describe('a JWT naming an organization its user does not belong to', () => {
  it('is refused (401) everywhere, even when correctly signed', () =>
    unchangedA(async () => {
      const forged = await h.deps.tokens.sign({ sub: h.b.userId, org: h.a.orgId, role: 'owner' })
      expect((await h.json('GET', '/v1/org/usage', { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401)
      const res = await gql(h.app, { jwt: forged }, `mutation($id: ID!) { revokeApiKey(keyPairId: $id) { keyPairId } }`, {
        id: h.a.keyPairId,
      })
      expect(res.status).toBe(401)
      expect(codes(res)).toEqual(['UNAUTHENTICATED'])
    }))
})
