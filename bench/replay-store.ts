/**
 * The reused-material store (issue 13: replay-store.ts, session_replay of migration 0020) on a real
 * database: one organization receives every SapiMouse window of ml/data/real and then a bot farm of
 * 200 sessions stitched from one fold's people (so its corpus is in the organization already), each
 * session one secret-key batch (so each is scored: lookup, judge, store). Then 200 jittered replays of
 * stored windows are sent with the public key and judged by findReuse alone. Then organization b gets
 * a farm sending one recording 2,000 times (secret key), and findReuse is timed for its next session
 * after 50, 500 and 2,000 of them. Prints the time of a lookup, the caught shares and the bytes stored
 * per session.
 *
 *   flock /work/cpu.lock bun run bench/replay-store.ts             (PGlite)
 *   TEST_DB=postgres flock /work/cpu.lock bun run bench/replay-store.ts   (PostgreSQL at TEST_DATABASE_URL)
 */
import { loadAllReal } from '../ml/data/load'
import { replayWithJitter, stitchStrokes } from '../ml/generators/stitch'
import { humanFold } from '../ml/training/real'
import { createRng, deriveSeed } from '../ml/synth/prng'
import { extractFeatures } from '../src/scoring/features'
import type { Signal } from '../src/scoring/signals'
import { findReuse, sessionMaterial } from '../src/server/modules/ingest/replay-store'
import { createHarness, type SeededOrg } from '../tests/helpers/harness'
import { makeBatch } from '../tests/ingest/support'

const h = await createHarness()
const sapi = loadAllReal().filter((s) => s.source === 'sapimouse')
const corpus = sapi.filter((s) => humanFold(s) === 0)
const quantile = (a: number[], q: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))]!

async function send(signals: readonly Signal[]) {
  const body = makeBatch(h, { signals, features: extractFeatures(signals) })
  const t = performance.now()
  const res = await h.json('POST', '/v1/ingest', { body, headers: { 'x-api-key': h.a.secretKey } })
  const ms = performance.now() - t
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${JSON.stringify(res.body)}`)
  h.clock.advance(1000)
  return { ms, reasons: res.body.reasons as string[] }
}

// the bench sends hundreds of sessions a minute: no plan limit may interfere
await h.deps.db.sql`update plans set rate_limit_per_minute = null, sessions_limit = 1000000`
const real: number[] = []
for (const s of sapi) real.push((await send(s.signals)).ms)
const farm: { ms: number; caught: boolean }[] = []
for (let i = 0; i < 200; i++) {
  const rng = createRng(deriveSeed(7, 'bench-farm', i))
  const pick = Array.from({ length: 8 }, () => corpus[rng.int(0, corpus.length - 1)]!)
  const r = await send(
    stitchStrokes(
      rng,
      pick.map((s) => s.signals),
      { people: pick.map((s) => s.user) }
    )
  )
  farm.push({ ms: r.ms, caught: r.reasons.includes('replayed_strokes') })
}
/**
 * findReuse alone, timed, for a new session of these signals in the organization. The session must exist
 * (its start bounds the lookup): it is sent with the public key, so it is stored, not scored.
 */
async function timedLookup(org: SeededOrg, signals: readonly Signal[]): Promise<{ ms: number; reused: boolean }> {
  const body = makeBatch(h, { signals, features: extractFeatures(signals) })
  const sent = await h.json('POST', '/v1/ingest', { body, headers: { 'x-api-key': org.publicKey } })
  if (sent.status !== 202) throw new Error(`ingest answered ${sent.status}`)
  h.clock.advance(1000)
  const m = sessionMaterial(org.orgId, signals)
  const t = performance.now()
  const reuse = await h.deps.db.tenant(org.orgId, (tx) => findReuse(tx, org.orgId, body.session_id, m))
  return { ms: performance.now() - t, reused: reuse.strokes }
}

// lookups alone: jittered replays of stored windows, judged against the organization (not stored)
const lookups: number[] = []
let found = 0
for (let i = 0; i < 200; i++) {
  const rng = createRng(deriveSeed(7, 'bench-replay', i))
  const signals = replayWithJitter(rng, sapi[rng.int(0, sapi.length - 1)]!.signals)
  const r = await timedLookup(h.a, signals)
  lookups.push(r.ms)
  if (r.reused) found++
}
const [size] = await h.deps.db.sql<{ rows: number; bytes: number; keys: number }[]>`
  select (select count(*) from session_replay)::int as rows, (select count(*) from session_replay_keys)::int as keys,
    (select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent in ('session_replay'::regclass, 'session_replay_keys'::regclass))::float8 as bytes`
// a farm repeating one recording in organization b: every key of it is shared by every session it sent
// so far, so a lookup that counted all sharers would grow with the farm (KEY_FANOUT_LIMIT bounds it);
// findReuse timed for the farm's next session after 50, 500 and 2,000 repeats
const repeated = sapi[0]!.signals.filter((e) => e.t < 20_000)
const repeatLookups: { after: number; p50: number; p99: number; reused: boolean }[] = []
for (let i = 1; i <= 2000; i++) {
  const body = makeBatch(h, { signals: repeated, features: extractFeatures(repeated) })
  const res = await h.json('POST', '/v1/ingest', { body, headers: { 'x-api-key': h.b.secretKey } })
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${JSON.stringify(res.body)}`)
  h.clock.advance(1000)
  if (i === 50 || i === 500 || i === 2000) {
    const times: number[] = []
    let reused = true
    for (let j = 0; j < 50; j++) {
      const r = await timedLookup(h.b, repeated)
      times.push(r.ms)
      reused &&= r.reused
    }
    repeatLookups.push({ after: i, p50: quantile(times, 0.5), p99: quantile(times, 0.99), reused })
  }
}
const fmt = (v: number) => v.toFixed(1)
console.log(`database: ${process.env.TEST_DB === 'postgres' ? 'PostgreSQL' : 'PGlite'}`)
console.log(
  `secret-key batch of a real window (ingest + score + lookup + store), ms: p50 ${fmt(quantile(real, 0.5))}, p99 ${fmt(quantile(real, 0.99))}`
)
console.log(
  `secret-key batch of a farm session, ms: p50 ${fmt(
    quantile(
      farm.map((f) => f.ms),
      0.5
    )
  )}, p99 ${fmt(
    quantile(
      farm.map((f) => f.ms),
      0.99
    )
  )}`
)
console.log(
  `farm caught: 1–10 ${farm.slice(0, 10).filter((f) => f.caught).length}/10, 11–50 ${farm.slice(10, 50).filter((f) => f.caught).length}/40, 51–200 ${farm.slice(50).filter((f) => f.caught).length}/150`
)
console.log(
  `findReuse alone (${size!.rows} sessions stored), ms: p50 ${fmt(quantile(lookups, 0.5))}, p99 ${fmt(quantile(lookups, 0.99))}; replays found ${found}/200`
)
for (const r of repeatLookups)
  console.log(
    `farm repeating one recording, after ${r.after} sessions: findReuse p50 ${fmt(r.p50)}, p99 ${fmt(r.p99)} ms; next session judged reused: ${r.reused}`
  )
console.log(
  `stored: ${size!.rows} sessions' material and ${size!.keys} keys, ${fmt(size!.bytes / 1024)} KiB with indexes, ${Math.round(size!.bytes / size!.rows)} bytes per session`
)
await h.close()
