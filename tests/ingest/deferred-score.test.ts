import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { loadReal } from '../../ml/data/load'
import { BOT_FAMILIES, BOT_FAMILY_NAMES } from '../../ml/synth/bots'
import { humanSession } from '../../ml/synth/human'
import { createRng } from '../../ml/synth/prng'
import { FEATURE_WINDOW, extractFeatures } from '../../src/scoring/features'
import { scoreSession } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { createHarness, type Harness, type SeededOrg } from '../helpers/harness'
import { FEATURES, ingest, makeBatch, makeSignals, midMonth, rowCounts, withKey, unlimitEnterprise } from './support'
import { storedBatches } from '../helpers/stored-signals'

// Issue 14: a public-key batch is stored without scoring; the score is computed when a secret key asks
// (ingest or GET) over every stored signal. These tests hold the deferred score to a full recomputation
// (scoreSession over all stored signals, the latest batch's client vector), the result every batch
// used to store, on synthetic and real development sessions.

let h: Harness
let org: SeededOrg
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
  await unlimitEnterprise(h)
  org = await h.seedOrg('Equivalence', 'enterprise')
}, 60_000)
afterAll(() => h.close())

/** What an SDK sends: batches of at most `size` events, cut also wherever t goes back (t never goes back within a batch). */
function cut(signals: readonly Signal[], size: number): Signal[][] {
  const out: Signal[][] = []
  let current: Signal[] = []
  for (const s of signals) {
    const last = current[current.length - 1]
    if (current.length >= size || (last && s.t < last.t)) {
      out.push(current)
      current = []
    }
    current.push(s)
  }
  if (current.length) out.push(current)
  return out
}

/** The client's vector over what it has sent so far, as the SDK computes it (non-finite values would be a 400). */
const clientVector = (sent: readonly Signal[]) => extractFeatures(sent.slice(-FEATURE_WINDOW)).map((v) => (Number.isFinite(v) ? v : 0))

/** Every stored signal of the session in seq order: what the old code rescored after each batch. */
async function storedSignals(sessionId: string): Promise<Signal[]> {
  return (await storedBatches(h.deps.db.sql, org.orgId, sessionId)).flatMap((r) => r.signals ?? [])
}

const scoreOf = (body: Record<string, unknown>) => ({
  hcs: body.hcs,
  m3_score: body.m3_score,
  verdict: body.verdict,
  reasons: body.reasons,
  model_version: body.model_version,
})

/**
 * Sends the session batch by batch, every third batch with the secret key (whose answer is compared with
 * a full recomputation of the stored prefix), the rest with the public key; then GET compares the
 * whole session.
 */
async function checkSession(signals: Signal[], batchSize: number): Promise<void> {
  const sessionId = crypto.randomUUID()
  const batches = cut(signals, batchSize)
  const sent: Signal[] = []
  let features: number[] = FEATURES
  for (const [i, batch] of batches.entries()) {
    sent.push(...batch)
    features = clientVector(sent)
    h.clock.advance(1000)
    const body = { session_id: sessionId, sdk_type: 'web', captured_at: h.clock.now().toISOString(), signals: batch, features }
    const secret = i % 3 === 2
    const res = await ingest(h, secret ? org.secretKey : org.publicKey, body)
    expect(res.status).toBe(secret ? 200 : 202)
    if (secret) {
      const expected = scoreSession({ signals: await storedSignals(sessionId), clientFeatures: features, replayed: false })
      expect(scoreOf(res.body)).toEqual(expected)
      expect(res.body).toMatchObject({ batches: i + 1, signals: sent.length })
    }
  }
  const stored = await storedSignals(sessionId)
  expect(stored).toHaveLength(signals.length)
  const read = await h.json('GET', `/v1/session/${sessionId}`, { headers: withKey(org.secretKey) })
  expect(read.status).toBe(200)
  expect(scoreOf(read.body)).toEqual(scoreSession({ signals: stored, clientFeatures: features, replayed: false }))
  expect(read.body).toMatchObject({ batches: batches.length, signals: signals.length })
}

describe('the deferred score equals a full recomputation', () => {
  it('on synthetic humans and every synthetic bot family', async () => {
    const rng = createRng(1414)
    for (let i = 0; i < 4; i++) await checkSession([...humanSession(rng), ...humanSession(rng)], 300)
    for (const family of BOT_FAMILY_NAMES) await checkSession(BOT_FAMILIES[family](rng), 250)
  }, 120_000)

  it('on real development sessions (SapiMouse and DELBOT, humans and bots)', async () => {
    const pick = <T>(all: T[], n: number) => Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]!)
    const sapi = loadReal('sapimouse')
    const delbot = loadReal('delbot')
    const sessions = [
      ...pick(sapi, 6),
      ...pick(
        delbot.filter((s) => s.label === 'human'),
        6
      ),
      ...pick(
        delbot.filter((s) => s.label === 'bot'),
        6
      ),
    ]
    for (const s of sessions) await checkSession(s.signals, Math.max(20, Math.ceil(s.signals.length / 5)))
  }, 120_000)
})

describe('the stored score is a cache', () => {
  it('is computed once: a second read answers the stored score without recomputing it', async () => {
    const batch = makeBatch(h, { signals: makeSignals(80) })
    expect((await ingest(h, org.publicKey, batch)).status).toBe(202)
    const [before] = await h.deps.db.sql<{ scored_batches: number | null }[]>`
      select scored_batches from sessions where org_id = ${org.orgId} and session_id = ${batch.session_id}`
    expect(before!.scored_batches).toBeNull()
    const first = await h.json('GET', `/v1/session/${batch.session_id}`, { headers: withKey(org.secretKey) })
    expect(first.status).toBe(200)
    expect(first.body.scored_at).toBe(h.clock.now().toISOString())
    h.clock.advance(5000)
    const second = await h.json('GET', `/v1/session/${batch.session_id}`, { headers: withKey(org.secretKey) })
    // scored_at did not move with the clock: nothing was recomputed.
    expect(second.body).toEqual(first.body)
    // A new batch makes it stale; the next read covers it.
    const next = { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(20, 60_000) }
    expect((await ingest(h, org.publicKey, next)).status).toBe(202)
    const third = await h.json('GET', `/v1/session/${batch.session_id}`, { headers: withKey(org.secretKey) })
    expect(third.body).toMatchObject({ batches: 2, signals: 100, scored_at: h.clock.now().toISOString() })
  })

  it('a public-key batch reads no earlier signal and stores no score', async () => {
    const batch = makeBatch(h, { signals: makeSignals(30) })
    await ingest(h, org.secretKey, batch)
    const next = { ...batch, captured_at: h.clock.now().toISOString(), signals: makeSignals(30, 10_000) }
    h.clock.advance(1000)
    await ingest(h, org.publicKey, { ...next, captured_at: h.clock.now().toISOString() })
    const [row] = await h.deps.db.sql<{ batch_count: number; scored_batches: number; signal_count: number }[]>`
      select batch_count, scored_batches, signal_count from sessions where org_id = ${org.orgId} and session_id = ${batch.session_id}`
    expect(row).toEqual({ batch_count: 2, scored_batches: 1, signal_count: 60 })
  })
})

describe('at most 50,000 signals per session', () => {
  it('takes a session up to 50,000 signals, then answers 409 naming the bound and stores nothing', async () => {
    const sessionId = crypto.randomUUID()
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000)
      const body = {
        session_id: sessionId,
        sdk_type: 'web',
        captured_at: h.clock.now().toISOString(),
        signals: makeSignals(10_000, i * 200_000),
        features: FEATURES,
      }
      expect((await ingest(h, org.publicKey, body)).status).toBe(202)
    }
    const counts = await rowCounts(h, org)
    h.clock.advance(1000)
    const over = await ingest(h, org.publicKey, {
      session_id: sessionId,
      sdk_type: 'web',
      captured_at: h.clock.now().toISOString(),
      signals: makeSignals(1, 1_000_000),
      features: FEATURES,
    })
    expect(over.status).toBe(409)
    expect(over.body.error.code).toBe('conflict')
    expect(over.body.error.message).toContain('50,000 signals')
    expect(over.headers.get('x-quota-limit')).toBeString()
    expect(await rowCounts(h, org)).toEqual(counts)
    // An empty batch still fits, and the full session can be scored.
    const empty = await ingest(h, org.secretKey, {
      session_id: sessionId,
      sdk_type: 'web',
      captured_at: h.clock.now().toISOString(),
      signals: [],
      features: FEATURES,
    })
    expect(empty.status).toBe(200)
    expect(empty.body).toMatchObject({ signals: 50_000, batches: 6 })
  }, 60_000)
})
