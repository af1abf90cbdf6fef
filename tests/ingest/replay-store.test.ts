import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { replayWithJitter, stitchStrokes } from '../../ml/generators/stitch'
import { generatorFamily } from '../../ml/generators/index'
import { createRng } from '../../ml/synth/prng'
import { extractFeatures } from '../../src/scoring/features'
import { CANDIDATE_LIMIT, KEY_FANOUT_LIMIT, MemoryReplayStore, materialKeys, replayMaterial } from '../../src/scoring/replay'
import type { Signal } from '../../src/scoring/signals'
import * as repo from '../../src/server/modules/ingest/repo'
import { purgeOldSignals } from '../../src/server/modules/ingest/service'
import fixture from '../fixtures/scoring/sapimouse-mouse-only.json'
import { createHarness, type Harness, type SeededOrg } from '../helpers/harness'
import { ingest, makeBatch, midMonth, withKey } from './support'

// Cross-session reuse of real human material (issue 13, replay-store.ts, migration 0020), through
// POST /v1/ingest and GET /v1/session on the test database (PGlite, or PostgreSQL with TEST_DATABASE_URL).
const people = (fixture as { sessions: { user: string; signals: Signal[] }[] }).sessions

let h: Harness
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
}, 60_000)
afterAll(() => h.close())

const REUSE_CODES = ['replayed_strokes', 'replayed_typing_rhythm']

/** one session of one batch, scored by the secret key's answer; the clock moves on a minute after it */
async function send(org: SeededOrg, signals: readonly Signal[]) {
  const body = makeBatch(h, { signals, features: extractFeatures(signals) })
  const res = await ingest(h, org.secretKey, body)
  expect(res.status).toBe(200)
  h.clock.advance(60_000)
  return res.body as { session_id: string; hcs: number; verdict: string; reasons: string[] }
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10)

/** whether both replay tables have the partition of this day */
async function replayPartition(day: string): Promise<boolean> {
  const rows = await h.deps.db.sql`
    select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where (i.inhparent = 'session_replay'::regclass and c.relname = ${`session_replay_${day.replaceAll('-', '')}`})
       or (i.inhparent = 'session_replay_keys'::regclass and c.relname = ${`session_replay_keys_${day.replaceAll('-', '')}`})`
  if (rows.length === 1) throw new Error('one replay table has the partition, the other not')
  return rows.length === 2
}

describe('reused human material across sessions of an organization', () => {
  it('flags a jittered replay of a real session of the same organization with replayed_strokes, and not in another organization', async () => {
    const original = await send(h.a, people[0]!.signals)
    expect(original.reasons.filter((c) => REUSE_CODES.includes(c))).toEqual([])
    const copy = replayWithJitter(createRng(11), people[0]!.signals, { positionNoisePx: 2, timeNoiseMs: 3 })

    const replayed = await send(h.a, copy)
    expect(replayed.reasons).toContain('replayed_strokes')
    // not an exact replay: the old fingerprint does not see it
    expect(replayed.reasons).not.toContain('replayed_trajectory')
    expect(replayed.hcs).toBeLessThanOrEqual(10)
    expect(replayed.verdict).toBe('bot')

    // tenant isolation: organization b has never seen the original
    const elsewhere = await send(h.b, copy)
    expect(elsewhere.reasons.filter((c) => REUSE_CODES.includes(c))).toEqual([])
    // and a GET gives the stored answer
    const read = await h.json('GET', `/v1/session/${replayed.session_id}`, { headers: withKey(h.a.secretKey) })
    expect(read.body.reasons).toContain('replayed_strokes')
  })

  it('stores material only under the session and organization it belongs to, invisible to another tenant', async () => {
    const rows = await h.deps.db.sql<{ org_id: string; n: number }[]>`
      select org_id, count(*)::int as n from session_replay group by org_id order by org_id`
    expect(rows.map((r) => r.org_id).sort()).toEqual([h.a.orgId, h.b.orgId].sort())
    const [keys] = await h.deps.db.sql<{ n: number }[]>`select count(*)::int as n from session_replay_keys where org_id = ${h.a.orgId}`
    expect(keys!.n).toBeGreaterThan(0)
    // under row-level security, organization b's transaction sees none of a's material or keys
    const seen = await h.deps.db.tenant(
      h.b.orgId,
      (tx) =>
        tx<{ n: number }[]>`select ((select count(*) from session_replay where org_id = ${h.a.orgId})
        + (select count(*) from session_replay_keys where org_id = ${h.a.orgId}))::int as n`
    )
    expect(seen[0]!.n).toBe(0)
    // and the tenant role without an organization sees no row at all
    await h.deps.db.sql.begin(async (tx) => {
      await tx`select set_config('role', 'bss_tenant', true)`
      const [none] = await tx<{ n: number }[]>`
        select ((select count(*) from session_replay) + (select count(*) from session_replay_keys))::int as n`
      expect(none!.n).toBe(0)
    })
  })

  it("does not flag another real person's session, nor strokes stitched from people the organization never saw", async () => {
    const other = await send(h.a, people[1]!.signals)
    expect(other.reasons.filter((c) => REUSE_CODES.includes(c))).toEqual([])
    // a stitched session made of people[2]'s strokes (never sent): the first use of a corpus cannot be caught
    const stitched = stitchStrokes(createRng(3), [people[2]!.signals], { durationMs: 15_000 })
    const first = await send(h.a, stitched)
    expect(first.reasons.filter((c) => REUSE_CODES.includes(c))).toEqual([])
    // the same corpus again: its strokes are now in the store
    const again = stitchStrokes(createRng(4), [people[2]!.signals], { durationMs: 15_000 })
    const second = await send(h.a, again)
    expect(second.reasons).toContain('replayed_strokes')
  })

  it('flags a replayed typing rhythm with replayed_typing_rhythm', async () => {
    const recording = generatorFamily('typing_real_figures').make(createRng(21))
    const first = await send(h.a, recording)
    expect(first.reasons).not.toContain('replayed_typing_rhythm')
    const replay = generatorFamily('typing_replayed_rhythm')
    // typing_replayed_rhythm keeps the key events of a recording and shifts them in time
    const copy = recording.filter((e) => e.k === 'kd' || e.k === 'ku').map((e) => ({ ...e, t: e.t + 1234 }))
    expect(replay.crossSessionOnly).toBe(true)
    const second = await send(h.a, copy)
    expect(second.reasons).toContain('replayed_typing_rhythm')
    expect(second.hcs).toBeLessThanOrEqual(10)
    const elsewhere = await send(h.b, copy)
    expect(elsewhere.reasons).not.toContain('replayed_typing_rhythm')
  })

  it('a farm repeating one recording: each key counts its most recent sharers only, as the eval store does', async () => {
    // an organization of its own, so that its store holds nothing but the farm
    const org = await h.seedOrg('Farm target')
    const farm = replayWithJitter(createRng(31), people[1]!.signals, { positionNoisePx: 1, timeNoiseMs: 2 })
    const sent: { id: string; at: number }[] = []
    for (let i = 0; i < KEY_FANOUT_LIMIT + 8; i++) {
      const at = h.clock.now().getTime()
      const res = await send(org, farm)
      if (i > 0) expect(res.reasons).toContain('replayed_strokes')
      sent.push({ id: res.session_id, at })
    }
    const self = sent.at(-1)!
    const { lookup } = materialKeys(org.orgId, replayMaterial(farm))
    const matches = await h.deps.db.tenant(org.orgId, (tx) =>
      repo.replayKeyMatches(tx, org.orgId, self.id, lookup, KEY_FANOUT_LIMIT, CANDIDATE_LIMIT)
    )
    // the 39 earlier copies share every key, but each key reads only its 32 most recent sharers
    const newest = sent.slice(0, -1).slice(-KEY_FANOUT_LIMIT)
    expect(matches.map((m) => m.session_id).sort()).toEqual(newest.map((s) => s.id).sort())
    // the eval's in-memory store picks the same sessions with the same counts
    const memory = new MemoryReplayStore()
    for (const s of sent.slice(0, -1)) memory.add(org.orgId, s.id, s.at, replayMaterial(farm))
    const expected = memory.candidates(org.orgId, self.id, self.at, lookup).map((c) => c.id)
    expect(matches.map((m) => m.session_id)).toEqual(expected)
  })

  it('retention drops the material with the raw signals of its day', async () => {
    const day = dayOf(h.clock.now())
    expect(await replayPartition(day)).toBe(true)
    h.clock.current = new Date(Date.parse(`${day}T00:00:00Z`) + 31 * 24 * 3600_000 + 30 * 60_000)
    expect(await purgeOldSignals(h.deps.db, h.clock.now(), 30)).toContain(day)
    expect(await replayPartition(day)).toBe(false)
    const [row] = await h.deps.db.sql<{ n: number }[]>`
      select ((select count(*) from session_replay where org_id = ${h.a.orgId}) + (select count(*) from session_replay_keys where org_id = ${h.a.orgId}))::int as n`
    expect(row!.n).toBe(0)
  })
})
