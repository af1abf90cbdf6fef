// bun run bench/dashboard.ts — the dashboard's reads for an organization with 100,000 sessions
// (issues 17 and 18), on the PostgreSQL server (TEST_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test) in a throwaway database that is dropped afterwards.
// Each operation goes the whole way: POST /graphql through app.handle (JWT, rate limit, Yoga,
// resolver, SQL). Targets (issues 17, 18): listSessions and verdictStats p95 < 100 ms,
// simulateThresholds p95 < 200 ms.
import { loadavg } from 'node:os'
import postgres from 'postgres'
import { createHarness } from '../tests/helpers/harness'
import { createTestDb } from '../tests/helpers/db'

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100_000)
const OTHER_ORG_SESSIONS = Number(process.env.BENCH_OTHER_SESSIONS ?? 50_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 100)

const testDb = await createTestDb('postgres')
const h = await createHarness({ testDb, env: { RATE_LIMIT_GRAPHQL_PER_MIN: '1000000' } })
// Generation runs on its own connection: the app's pool times statements out after 5 s.
const sql = postgres(testDb.url!, { max: 1, onnotice: () => {} })

/** n sessions of one organization over the last 90 days: scored with the default thresholds, ~2 % unscored, ~3 % insufficient, ~3 % labelled */
async function generate(orgId: string, n: number) {
  const t0 = performance.now()
  await sql`
    insert into sessions (org_id, session_id, sdk_type, usage_month, first_seen_at, last_batch_at, signal_count, batch_count,
      scored_batches, hcs, m3_score, verdict, reasons, model_version, scored_at, label, labeled_at, labeled_by)
    select ${orgId}, gen_random_uuid(), 'web', date_trunc('month', seen)::date, seen, seen + interval '20 seconds',
      200 + (r1 * 800)::int, 3, case when r2 < 0.02 then null else 3 end,
      case when r2 < 0.02 then null else round((r1 * 100)::numeric, 1) end,
      case when r2 < 0.02 then null else round(r1::numeric, 4) end,
      case when r2 < 0.02 then null when r2 < 0.05 then 'insufficient_data'
           when r1 >= 0.7 then 'human_verified' when r1 >= 0.3 then 'suspicious' else 'bot' end,
      case when r2 < 0.02 then '{}'::text[] when r1 >= 0.7 then '{pointer_dynamics_natural}'::text[] else '{pointer_constant_velocity}'::text[] end,
      case when r2 < 0.02 then null else 'm4-2026.11.0' end,
      case when r2 < 0.02 then null else seen + interval '40 seconds' end,
      case when r3 < 0.02 then 'human' when r3 < 0.03 then 'bot' end,
      case when r3 < 0.03 then seen + interval '1 hour' end,
      case when r3 < 0.03 then 'bench' end
    from (select now() - random() * interval '90 days' as seen, random() as r1, random() as r2, random() as r3
          from generate_series(1, ${n})) g`
  return performance.now() - t0
}

const gen = [await generate(h.a.orgId, SESSIONS), await generate(h.b.orgId, OTHER_ORG_SESSIONS)]
for (let i = 0; i < 3; i++) {
  const org = await h.seedOrg(`Bench other ${i}`)
  gen.push(await generate(org.orgId, 10_000))
}
await sql`vacuum analyze sessions`
console.error(`generated ${SESSIONS} + ${OTHER_ORG_SESSIONS} + 3 × 10,000 sessions in ${(gen.reduce((a, b) => a + b) / 1000).toFixed(1)} s`)

async function gql(query: string, variables?: Record<string, unknown>) {
  const res = await h.app.handle(
    new Request('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.a.jwt}` },
      body: JSON.stringify({ query, variables }),
    })
  )
  const body = (await res.json()) as { data?: any; errors?: unknown[] }
  if (res.status !== 200 || body.errors) throw new Error(`graphql ${res.status}: ${JSON.stringify(body.errors)}`)
  return body.data
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

async function measure(name: string, run: (i: number) => Promise<unknown>, target: number) {
  for (let i = 0; i < 5; i++) await run(i) // warm-up: plans, caches
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    await run(i)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  const row = { name, p50: pct(times, 50), p95: pct(times, 95), max: times[times.length - 1]!, target }
  console.log(
    `| ${name} | ${row.p50.toFixed(1)} | ${row.p95.toFixed(1)} | ${row.max.toFixed(1)} | < ${target} | ${row.p95 < target ? 'yes' : '**no**'} |`
  )
  return row
}

const LIST = `query($first: Int, $after: String, $verdict: Verdict, $label: Label, $from: String, $to: String) {
  listSessions(first: $first, after: $after, verdict: $verdict, label: $label, from: $from, to: $to) {
    sessions { sessionId hcs verdict signals batches firstSeenAt lastSeenAt label reasons { code meaning } } endCursor hasNextPage } }`

// cursors spread through the whole list (every 40th page of 25), for pages deep in the history
const cursors: string[] = []
{
  let after: string | null = null
  for (let page = 0; page < 4000; page++) {
    const r: any = (await gql(LIST, { first: 100, after })).listSessions
    if (page % 10 === 0 && r.endCursor) cursors.push(r.endCursor)
    if (!r.hasNextPage) break
    after = r.endCursor
  }
}
const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10)

console.log(
  `\n${SESSIONS.toLocaleString('en-US')} sessions in the measured organization, ${(OTHER_ORG_SESSIONS + 30_000).toLocaleString('en-US')} in four others; ${RUNS} runs each after 5 warm-up runs; load average at start ${loadavg()[0]!.toFixed(2)}\n`
)
console.log('| operation | p50 ms | p95 ms | max ms | target p95 ms | met |')
console.log('|---|---:|---:|---:|---:|---|')
await measure('listSessions(first: 25), first page', () => gql(LIST, { first: 25 }), 100)
await measure('listSessions(first: 25, after: cursor) deep pages', (i) => gql(LIST, { first: 25, after: cursors[i % cursors.length] }), 100)
await measure('listSessions(first: 100) deep pages', (i) => gql(LIST, { first: 100, after: cursors[(i * 7) % cursors.length] }), 100)
await measure(
  'listSessions(verdict: bot), deep pages',
  (i) => gql(LIST, { first: 25, verdict: 'bot', after: cursors[i % cursors.length] }),
  100
)
await measure('listSessions(label: human)', () => gql(LIST, { first: 25, label: 'human' }), 100)
await measure(
  'listSessions(verdict: insufficient_data, from/to: a 7-day window)',
  (i) => gql(LIST, { first: 25, verdict: 'insufficient_data', from: day(30 + (i % 50)), to: day(23 + (i % 50)) }),
  100
)
await measure('verdictStats(days: 90)', () => gql('{ verdictStats(days: 90) { total days { day bot } hcsHistogram { count } } }'), 100)
await measure('verdictStats(days: 30)', () => gql('{ verdictStats(days: 30) { total days { day bot } hcsHistogram { count } } }'), 100)
await measure(
  `simulateThresholds (all ${SESSIONS.toLocaleString('en-US')} sessions)`,
  (i) =>
    gql(
      `{ simulateThresholds(botBelow: ${20 + (i % 10)}, humanAbove: ${60 + (i % 20)}) { verdicts { bot } current { bot } rates { botsLetThrough { share low high } } } }`
    ),
  200
)
await measure('errorRates (all time)', () => gql('{ errorRates { humansCalledBot { share low high } } }'), 200)

await sql.end()
await h.close()
