import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Signal } from '../../src/scoring/signals'
import { createPartitionsAhead } from '../../src/server/modules/ingest'
import { encodeColumns, packSignals } from '../../src/server/modules/ingest/codec'
import * as repo from '../../src/server/modules/ingest/repo'
import { SESSION_WINDOW_MS } from '../../src/server/modules/ingest/service'
import { createHarness, type Harness } from '../helpers/harness'
import { FEATURES, ingest, makeBatch, makeSignals, midMonth, rowCounts } from './support'

/**
 * The retry key (sql/0016): a batch stored now is keyed by a hash of its packed columns ('p1:…'); a batch
 * keyed the way before it (SHA-256 over captured_at and the events' JSON) — stored before the deploy,
 * or by an instance still running the code before it — is still recognised when it is retried.
 */
let h: Harness
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
  await createPartitionsAhead(h.deps.db, h.clock.now(), 1)
}, 60_000)
afterAll(() => h.close())

type Body = ReturnType<typeof makeBatch>

/** The key before 0016, computed here independently of the service's code. */
const oldKey = (b: Body) =>
  new Bun.CryptoHasher('sha256').update(`${new Date(b.captured_at).toISOString()}\n${JSON.stringify(b.signals)}`).digest('hex')

/** Writes a batch exactly as the code before 0016 did: 0014's ingest_write_group, keyed by the JSON hash. */
async function writeAsBefore(orgId: string, b: Body): Promise<string> {
  const month = `${h.clock.now().toISOString().slice(0, 8)}01`
  const packed = Buffer.from(packSignals(b.signals as Signal[])).toString('hex')
  const [row] = await h.deps.db.sql<{ outcome: string }[]>`
    select outcome from ingest_write_group(${orgId}::uuid, ${month}::date, ${SESSION_WINDOW_MS}::int, 50000::int,
      ${[b.session_id]}::uuid[], ${[null]}::uuid[], ${['web']}::text[], ${[h.clock.now().toISOString()]}::timestamptz[],
      ${[null]}::text[], ${[oldKey(b)]}::text[], ${[b.captured_at]}::timestamptz[], ${[b.signals.length]}::int[],
      ${[packed]}::text[], ${b.features}::float8[])`
  return row!.outcome
}

async function keysOf(orgId: string, sessionId: string): Promise<string[]> {
  const rows = await h.deps.db.sql<{ batch_hash: string }[]>`
    select batch_hash from session_batches where org_id = ${orgId} and session_id = ${sessionId} order by seq`
  return rows.map((r) => r.batch_hash)
}

describe('the retry key (sql/0016)', () => {
  it('keys a batch stored now by its packed columns, and recognises its retry', async () => {
    const batch = makeBatch(h)
    expect((await ingest(h, h.a.publicKey, batch)).status).toBe(202)
    const keys = await keysOf(h.a.orgId, batch.session_id)
    expect(keys).toHaveLength(1)
    // SHA-256 of captured_at and the validated events' columns (the packed layout before DEFLATE)
    const columns = encodeColumns(batch.signals as Signal[])
    expect(keys[0]).toBe(`p1:${new Bun.CryptoHasher('sha256').update(`${batch.captured_at}\n`).update(columns).digest('hex')}`)
    const counts = await rowCounts(h, h.a)
    expect((await ingest(h, h.a.publicKey, batch)).body).toEqual({ session_id: batch.session_id, accepted: 50 })
    expect(await rowCounts(h, h.a)).toEqual(counts)
  })

  it('recognises a retry of a batch stored with the JSON key before the deploy, and stores new batches once', async () => {
    const first = makeBatch(h, { signals: makeSignals(40) })
    expect(await writeAsBefore(h.a.orgId, first)).toBe('counted')
    expect(await keysOf(h.a.orgId, first.session_id)).toEqual([oldKey(first)])
    const counts = await rowCounts(h, h.a)

    const retry = await ingest(h, h.a.publicKey, first)
    expect(retry.status).toBe(202)
    expect(retry.body).toEqual({ session_id: first.session_id, accepted: 40 })
    const viaSecret = await ingest(h, h.a.secretKey, first)
    expect(viaSecret.status).toBe(200)
    expect(viaSecret.body).toMatchObject({ batches: 1, signals: 40 })
    expect(await rowCounts(h, h.a)).toEqual(counts)

    // A new batch of that session: stored once, keyed the new way; its own retry is recognised.
    h.clock.advance(5_000)
    const second = { ...first, captured_at: h.clock.now().toISOString(), signals: makeSignals(30, 10_000) }
    expect((await ingest(h, h.a.publicKey, second)).status).toBe(202)
    expect((await ingest(h, h.a.publicKey, second)).body).toEqual({ session_id: first.session_id, accepted: 30 })
    // The same captured_at and count as the old batch, other signals: a new batch, not a retry.
    const lookalike = { ...first, signals: makeSignals(40, 0, 7) }
    expect((await ingest(h, h.a.secretKey, lookalike)).body).toMatchObject({ batches: 3, signals: 110 })
    const keys = await keysOf(h.a.orgId, first.session_id)
    expect(keys[0]).toBe(oldKey(first))
    expect(keys.slice(1)).toEqual([expect.stringMatching(/^p1:/), expect.stringMatching(/^p1:/)])
    expect(await rowCounts(h, h.a)).toEqual({ ...counts, batches: counts.batches + 2 })
  })

  it('recognises a retry of a batch an instance running the code before 0016 stored in a session started by the new code', async () => {
    const first = makeBatch(h)
    expect((await ingest(h, h.a.publicKey, first)).status).toBe(202)
    h.clock.advance(5_000)
    const second = { ...first, captured_at: h.clock.now().toISOString(), signals: makeSignals(20, 10_000) }
    expect(await writeAsBefore(h.a.orgId, second)).toBe('stored')
    const counts = await rowCounts(h, h.a)
    h.clock.advance(5_000)
    for (const b of [second, first, second]) expect((await ingest(h, h.a.publicKey, b)).status).toBe(202)
    expect(await rowCounts(h, h.a)).toEqual(counts)
    expect(await keysOf(h.a.orgId, first.session_id)).toEqual([expect.stringMatching(/^p1:/), oldKey(second)])
  })

  it('asks for the JSON key only for a session holding a batch keyed so, and writes nothing for it until then', async () => {
    const old = makeBatch(h, { signals: makeSignals(10) })
    expect(await writeAsBefore(h.a.orgId, old)).toBe('counted')
    const fresh = makeBatch(h)
    expect((await ingest(h, h.a.publicKey, fresh)).status).toBe(202)
    const counts = await rowCounts(h, h.a)
    h.clock.advance(1_000)
    const row = (b: Body, legacyHash: string | null): repo.GroupRow => ({
      sessionId: b.session_id,
      keyPairId: null,
      sdkType: 'web',
      at: h.clock.now(),
      firstPrint: null,
      hash: `p1:${'0'.repeat(63)}${b === old ? 'a' : 'b'}`,
      legacyHash,
      capturedAt: h.clock.now(),
      signalCount: 5,
      packed: packSignals(makeSignals(5, 90_000) as Signal[]),
      features: FEATURES,
    })
    const month = `${h.clock.now().toISOString().slice(0, 8)}01`
    const g = { month, windowMs: SESSION_WINDOW_MS, maxSignals: 50_000 }
    const [a, b] = [old, fresh].sort((x, y) => (x.session_id < y.session_id ? -1 : 1)) as [Body, Body]
    const first = await repo.writeBatches(h.deps.db.sql, h.a.orgId, g, [row(a, null), row(b, null)])
    expect(first.map((d) => d.outcome)).toEqual([a, b].map((x) => (x === old ? 'legacy' : 'stored')))
    expect(await rowCounts(h, h.a)).toEqual({ ...counts, batches: counts.batches + 1 })
    // Given the JSON key (not this batch's), it is judged and stored like any other.
    const again = await repo.writeBatches(h.deps.db.sql, h.a.orgId, g, [row(old, 'f'.repeat(64))])
    expect(again.map((d) => d.outcome)).toEqual(['stored'])
    expect(await keysOf(h.a.orgId, old.session_id)).toEqual([oldKey(old), `p1:${'0'.repeat(63)}a`])
  })
})
