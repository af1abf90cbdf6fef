import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { extractFeatures } from '../../src/scoring/features'
import { verdictFor } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { rate, wilson } from '../../src/server/modules/ingest/dashboard'
import { gql } from '../graphql/gql'
import { createHarness, type Harness, type SeededOrg } from '../helpers/harness'
import { ask, codes, data, fixtureSessions, scoredSession } from '../sessions/support'

/** Issue 18: labels (REST and GraphQL), thresholds, error rates, the simulation, the export. */
let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h?.close())

const label = (org: SeededOrg, id: string, body: unknown, headers: Record<string, string> = { 'x-api-key': org.secretKey }) =>
  h.json('POST', `/v1/session/${id}/label`, { headers, body })

const stored = async (org: SeededOrg, id: string) => {
  const [row] = await h.deps.db.sql`
    select label, label_note, labeled_at, labeled_by from sessions where org_id = ${org.orgId} and session_id = ${id}`
  return row!
}

/** A member (not owner/admin) of a fresh organization: its JWT. */
async function memberOf(name: string): Promise<SeededOrg> {
  const org = await h.seedOrg(name)
  await h.deps.db.sql`update memberships set role = 'member' where org_id = ${org.orgId} and user_id = ${org.userId}`
  return org
}

describe('POST /v1/session/:session_id/label', () => {
  it('labels a session (200 with the contract body); GET shows it; who and when are stored', async () => {
    const id = await scoredSession(h, h.a)
    const res = await label(h.a, id, { label: 'bot', note: 'chargeback' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ session_id: id, label: 'bot', labeled_at: h.clock.now().toISOString() })
    expect(await stored(h.a, id)).toEqual({
      label: 'bot',
      label_note: 'chargeback',
      labeled_at: h.clock.now(),
      labeled_by: 'api key Org A key',
    })
    const got = await h.json('GET', `/v1/session/${id}`, { headers: { 'x-api-key': h.a.secretKey } })
    expect(got.body.label).toBe('bot')
  })

  it('relabelling replaces label, note and time', async () => {
    const id = await scoredSession(h, h.a)
    await label(h.a, id, { label: 'bot', note: 'first' })
    h.clock.advance(60_000)
    const res = await label(h.a, id, { label: 'human' })
    expect(res.body.label).toBe('human')
    expect(await stored(h.a, id)).toMatchObject({ label: 'human', label_note: null, labeled_at: h.clock.now() })
  })

  it('an unlabelled session’s result has label null', async () => {
    const id = await scoredSession(h, h.a)
    expect((await h.json('GET', `/v1/session/${id}`, { headers: { 'x-api-key': h.a.secretKey } })).body.label).toBeNull()
  })

  it('bad body → 400 with the error envelope naming the field; nothing written', async () => {
    const id = await scoredSession(h, h.a)
    for (const [body, path] of [
      [{}, 'label'],
      [{ label: 'maybe' }, 'label'],
      [{ label: 'HUMAN' }, 'label'],
      [{ label: 'human', note: 'x'.repeat(501) }, 'note'],
      [{ label: 'human', note: 5 }, 'note'],
    ] as const) {
      const res = await label(h.a, id, body)
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('validation_failed')
      expect(res.body.error.details[0].path).toBe(path)
      expect(res.body.error.request_id).toBeString()
    }
    const raw = await h.json('POST', `/v1/session/${id}/label`, {
      headers: { 'x-api-key': h.a.secretKey, 'content-type': 'application/json' },
      rawBody: '{"label":',
    })
    expect(raw.status).toBe(400)
    expect(raw.body.error.code).toBe('invalid_json')
    expect(await stored(h.a, id)).toMatchObject({ label: null, labeled_at: null })
    expect((await label(h.a, 'not-a-uuid', { label: 'human' })).status).toBe(400)
  })

  it('a note of exactly 500 characters is taken', async () => {
    const id = await scoredSession(h, h.a)
    expect((await label(h.a, id, { label: 'human', note: 'n'.repeat(500) })).status).toBe(200)
  })

  it('public key → 403; unknown session → 404; another organization’s → 404; no key → 401', async () => {
    const id = await scoredSession(h, h.a)
    const pub = await label(h.a, id, { label: 'human' }, { 'x-api-key': h.a.publicKey })
    expect(pub.status).toBe(403)
    expect(pub.body.error.code).toBe('forbidden')
    const unknown = await label(h.a, crypto.randomUUID(), { label: 'human' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('not_found')
    const other = await label(h.b, id, { label: 'human' })
    expect(other.status).toBe(404)
    expect((await label(h.a, id, { label: 'human' }, {})).status).toBe(401)
    expect(await stored(h.a, id)).toMatchObject({ label: null })
  })
})

const LABEL =
  'mutation($id: ID!, $label: Label!, $note: String) { labelSession(sessionId: $id, label: $label, note: $note) { sessionId label note labeledAt labeledBy } }'

describe('GraphQL labelSession', () => {
  it('labels with the user’s e-mail as who; relabel replaces; listSessions shows it and filters by it', async () => {
    const id = await scoredSession(h, h.a)
    const first = (await data(h, h.a, LABEL, { id, label: 'human', note: 'known customer' })).labelSession
    expect(first).toEqual({
      sessionId: id,
      label: 'human',
      note: 'known customer',
      labeledAt: h.clock.now().toISOString(),
      labeledBy: h.a.email,
    })
    const again = (await data(h, h.a, LABEL, { id, label: 'bot' })).labelSession
    expect(again).toMatchObject({ label: 'bot', note: null })
    const list = await data(h, h.a, '{ listSessions(first: 100, label: bot) { sessions { sessionId label labelNote labeledAt } } }')
    expect(list.listSessions.sessions.find((s: any) => s.sessionId === id)).toEqual({
      sessionId: id,
      label: 'bot',
      labelNote: null,
      labeledAt: h.clock.now().toISOString(),
    })
  })

  it('a member may label', async () => {
    const m = await memberOf('Labelling member')
    const id = await scoredSession(h, m)
    expect((await data(h, m, LABEL, { id, label: 'human' })).labelSession.label).toBe('human')
  })

  it('bad arguments → BAD_USER_INPUT; unknown or another organization’s session → NOT_FOUND; no JWT → 401', async () => {
    const id = await scoredSession(h, h.a)
    expect(codes(await ask(h, h.a, LABEL, { id, label: 'human', note: 'x'.repeat(501) }))).toEqual(['BAD_USER_INPUT'])
    expect(codes(await ask(h, h.a, LABEL, { id, label: 'robot' }))).toEqual(['BAD_USER_INPUT'])
    expect(codes(await ask(h, h.a, LABEL, { id: 'x', label: 'human' }))).toEqual(['BAD_USER_INPUT'])
    expect(codes(await ask(h, h.a, LABEL, { id: crypto.randomUUID(), label: 'human' }))).toEqual(['NOT_FOUND'])
    expect(codes(await ask(h, h.b, LABEL, { id, label: 'human' }))).toEqual(['NOT_FOUND'])
    expect((await gql(h.app, {}, LABEL, { id, label: 'human' })).status).toBe(401)
    expect(await stored(h.a, id)).toMatchObject({ label: null })
  })
})

const SET = 'mutation($b: Float!, $h: Float!) { setVerdictThresholds(botBelow: $b, humanAbove: $h) { botBelow humanAbove } }'
const READ =
  '{ verdictThresholds { botBelow humanAbove } thresholdHistory { changedAt changedBy previous { botBelow humanAbove } next { botBelow humanAbove } } }'

/** keyboard only (no trajectory fingerprint, so no replay between copies): a script's fixed rhythm */
function typing(n: number): Signal[] {
  const out: Signal[] = []
  for (let i = 0; i < n; i++) out.push({ t: i * 100, k: 'kd', kc: 'char' }, { t: i * 100 + 80, k: 'ku', kc: 'char' })
  return out
}
/** keyboard only, with the uneven rhythm and holds of a person */
function naturalTyping(n: number): Signal[] {
  const out: Signal[] = []
  let t = 0
  for (let i = 0; i < n; i++) {
    out.push({ t, k: 'kd', kc: 'char' }, { t: t + 70 + ((i * 53) % 60), k: 'ku', kc: 'char' })
    t += 140 + ((i * 97) % 230)
  }
  return out
}
async function honestSession(org: SeededOrg, signals: Signal[]) {
  const session_id = crypto.randomUUID()
  const res = await h.json('POST', '/v1/ingest', {
    headers: { 'x-api-key': org.secretKey },
    body: { session_id, sdk_type: 'server', captured_at: h.clock.now().toISOString(), signals, features: extractFeatures(signals) },
  })
  expect(res.status).toBe(200)
  return res.body as { session_id: string; hcs: number; verdict: string; reasons: string[] }
}

describe('verdict thresholds', () => {
  it('defaults 70/30 and an empty history', async () => {
    const org = await h.seedOrg('Thresholds default')
    expect(await data(h, org, READ)).toEqual({ verdictThresholds: { botBelow: 30, humanAbove: 70 }, thresholdHistory: [] })
  })

  it('owner sets them; every change is listed newest first with who, old and new', async () => {
    const org = await h.seedOrg('Thresholds history')
    expect((await data(h, org, SET, { b: 20, h: 80 })).setVerdictThresholds).toEqual({ botBelow: 20, humanAbove: 80 })
    const t1 = h.clock.now().toISOString()
    h.clock.advance(1000)
    await data(h, org, SET, { b: 25.5, h: 25.5 })
    const read = await data(h, org, READ)
    expect(read.verdictThresholds).toEqual({ botBelow: 25.5, humanAbove: 25.5 })
    expect(read.thresholdHistory).toEqual([
      {
        changedAt: h.clock.now().toISOString(),
        changedBy: org.email,
        previous: { botBelow: 20, humanAbove: 80 },
        next: { botBelow: 25.5, humanAbove: 25.5 },
      },
      { changedAt: t1, changedBy: org.email, previous: { botBelow: 30, humanAbove: 70 }, next: { botBelow: 20, humanAbove: 80 } },
    ])
    expect((await data(h, org, '{ thresholdHistory(first: 1) { changedAt } }')).thresholdHistory).toHaveLength(1)
  })

  it('bad thresholds → BAD_USER_INPUT naming the field, nothing changed; a member → FORBIDDEN; no JWT → 401', async () => {
    const org = await h.seedOrg('Thresholds refused')
    for (const [b, hv, field] of [
      [0, 70, 'botBelow'],
      [-1, 70, 'botBelow'],
      [30, 100, 'humanAbove'],
      [71, 70, 'botBelow'],
    ] as const) {
      const res = await ask(h, org, SET, { b, h: hv })
      expect(codes(res)).toEqual(['BAD_USER_INPUT'])
      expect(res.body.errors[0].message).toStartWith(`${field}:`)
    }
    expect(codes(await ask(h, org, '{ thresholdHistory(first: 0) { changedAt } }'))).toEqual(['BAD_USER_INPUT'])
    const m = await memberOf('Thresholds member')
    expect(codes(await ask(h, m, SET, { b: 10, h: 90 }))).toEqual(['FORBIDDEN'])
    expect(await data(h, m, READ)).toEqual({ verdictThresholds: { botBelow: 30, humanAbove: 70 }, thresholdHistory: [] })
    expect(await data(h, org, READ)).toEqual({ verdictThresholds: { botBelow: 30, humanAbove: 70 }, thresholdHistory: [] })
    expect((await gql(h.app, {}, SET, { b: 10, h: 90 })).status).toBe(401)
  })

  it('apply to that organization’s verdicts computed after the change only; hcs and other organizations unchanged', async () => {
    const org = await h.seedOrg('Thresholds apply')
    const other = await h.seedOrg('Thresholds other')
    // the same keys are sent again below to get the same hcs: 20 presses, under the 25 a replayed typing
    // rhythm needs to be recognised (replay.ts), so the copy is not capped as one
    const signals = naturalTyping(20)
    const before = await honestSession(org, signals)
    expect(before.verdict).not.toBe('insufficient_data')
    expect(before.hcs).toBeGreaterThan(0.1)
    // thresholds that turn this hcs's verdict around
    const t = before.hcs >= 50 ? { botBelow: 99.9, humanAbove: 99.9 } : { botBelow: 0.1, humanAbove: 0.1 }
    expect(verdictFor(before.hcs, true, t)).not.toBe(before.verdict)
    await data(h, org, SET, { b: t.botBelow, h: t.humanAbove })
    const after = await honestSession(org, signals)
    expect(after.hcs).toBe(before.hcs)
    expect(after.verdict).toBe(verdictFor(before.hcs, true, t))
    // the reasons follow the organization's thresholds too: a verdict they turned around still names why
    expect(after.reasons.length).toBeGreaterThan(0)
    expect(after.reasons).not.toContain('low_model_score')
    // the session scored before the change keeps its verdict
    const old = await h.json('GET', `/v1/session/${before.session_id}`, { headers: { 'x-api-key': org.secretKey } })
    expect(old.body.verdict).toBe(before.verdict)
    const elsewhere = await honestSession(other, signals)
    expect(elsewhere).toMatchObject({ hcs: before.hcs, verdict: before.verdict })
  })
})

describe('Wilson interval', () => {
  it('matches reference values (z = 1.96) and its edges', () => {
    const close = (got: { low: number; high: number } | null, low: number, high: number) => {
      expect(got!.low).toBeCloseTo(low, 5)
      expect(got!.high).toBeCloseTo(high, 5)
    }
    close(wilson(2, 6), 0.096771, 0.700007)
    close(wilson(1, 4), 0.045587, 0.699358)
    close(wilson(0, 4), 0, 0.489891)
    close(wilson(4, 4), 0.510109, 1)
    expect(wilson(0, 0)).toBeNull()
    expect(rate(0, 0)).toEqual({ count: 0, total: 0, share: null, low: null, high: null })
  })
})

const RATES = `{ count total share low high }`
const ER = `query($from: String, $to: String) { errorRates(from: $from, to: $to) { thresholds { botBelow humanAbove } labelledHumans labelledBots
  humansCalledBot ${RATES} humansCalledSuspicious ${RATES} botsLetThrough ${RATES} } }`
const SIM = `query($b: Float!, $h: Float!, $from: String, $to: String) { simulateThresholds(botBelow: $b, humanAbove: $h, from: $from, to: $to) {
  rates { thresholds { botBelow humanAbove } labelledHumans labelledBots humansCalledBot ${RATES} humansCalledSuspicious ${RATES} botsLetThrough ${RATES} }
  verdicts { humanVerified suspicious bot insufficientData unscored } current { humanVerified suspicious bot insufficientData unscored } } }`

describe('error rates and the threshold simulation (hand-made rows)', () => {
  let org: SeededOrg
  const jan = (d: number) => new Date(Date.UTC(2026, 0, d, 12))
  beforeAll(async () => {
    org = await h.seedOrg('Rates')
    const v = (hcs: number) => (hcs >= 70 ? 'human_verified' : hcs >= 30 ? 'suspicious' : 'bot')
    await fixtureSessions(h, org, [
      // labelled humans: 2 called bot, 1 suspicious, 3 verified, 1 insufficient, 1 unscored (the last two in no rate)
      ...[10, 20, 50, 80, 90, 95].map((hcs, i) => ({ hcs, verdict: v(hcs), label: 'human' as const, at: jan(1 + i) })),
      { hcs: 50, verdict: 'insufficient_data', label: 'human', at: jan(2) },
      { hcs: null, verdict: null, label: 'human', at: jan(2) },
      // labelled bots: 2 caught, 1 suspicious, 1 let through
      ...[5, 25, 60, 75].map((hcs, i) => ({ hcs, verdict: v(hcs), label: 'bot' as const, at: jan(10 + i) })),
      // unlabelled
      ...[0, 29.9, 30, 69.9, 70, 100].map((hcs) => ({ hcs, verdict: v(hcs), at: jan(20) })),
      { hcs: 12, verdict: 'insufficient_data', at: jan(20) },
      { hcs: null, verdict: null, at: jan(21) },
    ])
  })

  it('errorRates at the default thresholds: counts, shares, Wilson intervals, how many labels they rest on', async () => {
    const r = (await data(h, org, ER)).errorRates
    expect(r.thresholds).toEqual({ botBelow: 30, humanAbove: 70 })
    expect(r.labelledHumans).toBe(8)
    expect(r.labelledBots).toBe(4)
    expect(r.humansCalledBot).toMatchObject({ count: 2, total: 6 })
    expect(r.humansCalledBot.share).toBeCloseTo(1 / 3, 10)
    expect(r.humansCalledBot.low).toBeCloseTo(0.096771, 5)
    expect(r.humansCalledBot.high).toBeCloseTo(0.700007, 5)
    expect(r.humansCalledSuspicious).toMatchObject({ count: 1, total: 6 })
    expect(r.humansCalledSuspicious.low).toBeCloseTo(0.030053, 5)
    expect(r.botsLetThrough).toMatchObject({ count: 1, total: 4, share: 0.25 })
    expect(r.botsLetThrough.high).toBeCloseTo(0.699358, 5)
  })

  it('a period: only sessions first seen in it (to exclusive); none → null shares', async () => {
    const r = (await data(h, org, ER, { from: '2026-01-10', to: '2026-01-12' })).errorRates
    expect(r).toMatchObject({ labelledHumans: 0, labelledBots: 2 })
    expect(r.botsLetThrough).toEqual({ count: 0, total: 2, share: 0, low: 0, high: expect.any(Number) })
    expect(r.humansCalledBot).toEqual({ count: 0, total: 0, share: null, low: null, high: null })
  })

  it('simulateThresholds: the rates and verdict counts as if, and the stored counts', async () => {
    const s = (await data(h, org, SIM, { b: 50, h: 90 })).simulateThresholds
    expect(s.rates.thresholds).toEqual({ botBelow: 50, humanAbove: 90 })
    expect(s.rates.humansCalledBot).toMatchObject({ count: 2, total: 6 })
    expect(s.rates.humansCalledSuspicious).toMatchObject({ count: 2, total: 6 })
    expect(s.rates.botsLetThrough).toMatchObject({ count: 0, total: 4 })
    expect(s.current).toEqual({ humanVerified: 6, suspicious: 4, bot: 6, insufficientData: 2, unscored: 2 })
    // ≥ 90: 90, 95, 100; 50–90: 50, 80, 60, 75, 69.9, 70; < 50: 10, 20, 5, 25, 0, 29.9, 30
    expect(s.verdicts).toEqual({ humanVerified: 3, suspicious: 6, bot: 7, insufficientData: 2, unscored: 2 })
  })

  it('the simulation equals re-verdicting the same rows with verdictFor, for any thresholds, and writes nothing', async () => {
    const rows = await h.deps.db.sql<{ hcs: string | null; verdict: string | null; label: string | null }[]>`
      select hcs, verdict, label from sessions where org_id = ${org.orgId}`
    const snapshot = async () => [
      await h.deps.db.sql`select * from sessions where org_id = ${org.orgId} order by session_id`,
      await h.deps.db.sql`select * from verdict_thresholds where org_id = ${org.orgId}`,
    ]
    const before = await snapshot()
    for (const t of [
      { botBelow: 30, humanAbove: 70 },
      { botBelow: 29.9, humanAbove: 69.95 },
      { botBelow: 50, humanAbove: 50 },
      { botBelow: 0.1, humanAbove: 99.9 },
      { botBelow: 12, humanAbove: 80 },
    ]) {
      const expected = { humanVerified: 0, suspicious: 0, bot: 0, insufficientData: 0, unscored: 0 }
      let humans = 0
      let humansBot = 0
      for (const r of rows) {
        if (r.verdict === null) expected.unscored++
        else {
          const v = verdictFor(Number(r.hcs), r.verdict !== 'insufficient_data', t)
          expected[
            ({ human_verified: 'humanVerified', suspicious: 'suspicious', bot: 'bot', insufficient_data: 'insufficientData' } as const)[v]
          ]++
          if (r.label === 'human' && v !== 'insufficient_data') {
            humans++
            if (v === 'bot') humansBot++
          }
        }
      }
      const s = (await data(h, org, SIM, { b: t.botBelow, h: t.humanAbove })).simulateThresholds
      expect(s.verdicts).toEqual(expected)
      expect(s.rates.humansCalledBot).toMatchObject({ count: humansBot, total: humans })
    }
    expect(await snapshot()).toEqual(before)
  })

  it('errorRates uses the organization’s current thresholds (= the simulation at them)', async () => {
    await data(h, org, SET, { b: 50, h: 90 })
    const r = (await data(h, org, ER)).errorRates
    const s = (await data(h, org, SIM, { b: 50, h: 90 })).simulateThresholds
    expect(r).toEqual(s.rates)
    expect(r.humansCalledSuspicious).toMatchObject({ count: 2, total: 6 })
    await data(h, org, SET, { b: 30, h: 70 })
  })

  it('bad arguments → BAD_USER_INPUT; no JWT → 401', async () => {
    for (const vars of [
      { b: 0, h: 70 },
      { b: 30, h: 100 },
      { b: 80, h: 70 },
      { b: 30, h: 70, from: 'soon' },
      { b: 30, h: 70, from: '2026-02-01', to: '2026-01-01' },
    ])
      expect(codes(await ask(h, org, SIM, vars))).toEqual(['BAD_USER_INPUT'])
    expect(codes(await ask(h, org, ER, { to: '01/02/2026' }))).toEqual(['BAD_USER_INPUT'])
    expect((await gql(h.app, {}, SIM, { b: 30, h: 70 })).status).toBe(401)
    expect((await gql(h.app, {}, ER)).status).toBe(401)
  })
})

describe('GET /v1/labels/export', () => {
  const exportOf = async (org: SeededOrg, query = '') => {
    const res = await h.request('GET', `/v1/labels/export${query}`, { headers: { authorization: `Bearer ${org.jwt}` } })
    const text = await res.text()
    return {
      res,
      text,
      lines:
        res.status === 200
          ? text
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l))
          : [],
    }
  }

  it('streams every labelled session (signals and label), oldest first, across pages; nothing else', async () => {
    const org = await h.seedOrg('Export')
    const signals = typing(12)
    const withSignals = await honestSession(org, signals)
    await label(org, withSignals.session_id, { label: 'bot', note: 'scripted' })
    const jan = (d: number) => new Date(Date.UTC(2026, 0, 1, 0, d))
    const ids = await fixtureSessions(
      h,
      org,
      Array.from({ length: 120 }, (_, i) => ({ hcs: i % 100, verdict: 'suspicious', label: i % 3 ? ('human' as const) : null, at: jan(i) }))
    )
    const { res, lines } = await exportOf(org)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/x-ndjson')
    const labelled = ids.filter((_, i) => i % 3)
    expect(lines.map((l) => l.session_id)).toEqual([...labelled, withSignals.session_id])
    expect(lines.at(-1)).toEqual({
      session_id: withSignals.session_id,
      label: 'bot',
      note: 'scripted',
      labeled_at: h.clock.now().toISOString(),
      hcs: withSignals.hcs,
      m3_score: expect.any(Number),
      verdict: withSignals.verdict,
      model_version: expect.any(String),
      first_seen_at: h.clock.now().toISOString(),
      signals,
    })
    const period = await exportOf(org, '?from=2026-01-01T00:10:00Z&to=2026-01-01T00:20:00Z')
    expect(period.lines.map((l) => l.session_id)).toEqual(ids.slice(10, 20).filter((_, i) => (i + 10) % 3))
  })

  it('owner/admin only (a member → 403); bad period → 400; another organization’s labels never appear', async () => {
    const m = await memberOf('Export member')
    const refused = await exportOf(m)
    expect(refused.res.status).toBe(403)
    expect(JSON.parse(refused.text).error.code).toBe('forbidden')
    const bad = await exportOf(h.a, '?from=yesterday')
    expect(bad.res.status).toBe(400)
    expect(JSON.parse(bad.text).error.code).toBe('validation_failed')
    const backwards = await exportOf(h.a, '?from=2026-02-01&to=2026-01-01')
    expect(backwards.res.status).toBe(400)
    const aLabelled = await h.deps.db.sql`select session_id from sessions where org_id = ${h.a.orgId} and label is not null`
    const fromB = await exportOf(h.b)
    for (const r of aLabelled) expect(fromB.text).not.toContain(r.session_id)
  })
})
