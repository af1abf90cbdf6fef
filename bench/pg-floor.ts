// PostgreSQL's own floor for storing ingest batches: the rows one public-key batch writes (its
// session_batches row with the same packed bytes, and its session row's counters), written by pgbench
// with no service, no row-level security and no checks, durable commits, prepared statements. What the service's
// PostgreSQL CPU per batch is compared with (bench/README.md). Run by hand: `bun run bench/pg-floor.ts`.
//
//   BENCH_ADMIN_URL  server (on this machine) to create the throw-away database on
//                    (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SECONDS    seconds per variant (default 10); BENCH_CLIENTS pgbench clients (default 8)
import { readFileSync } from 'node:fs'
import { pgbenchCpu, scratchDatabase, sideBySideBatch } from './lib'
import { packSignals } from '../src/server/modules/ingest/codec'
import { openDb } from '../src/server/platform/db'
import { migrate } from '../src/server/platform/db/migrate'
import { createOrganization, syncPlans } from '../tenants/provision'

const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const clients = Number(process.env.BENCH_CLIENTS ?? 8)
const SESSIONS = 20_000

const { created, admin, url, postmaster } = await scratchDatabase('bss_floor', adminUrl)
try {
  const db = await openDb({ url: url.toString() })
  await migrate(db)
  await syncPlans(db.sql)
  const orgId = await createOrganization(db.sql, { name: 'Floor', planId: 'enterprise' })
  const now = new Date()
  await db.sql`select session_batches_add_partition(${now.toISOString().slice(0, 10)}::date)`
  await db.sql`
    insert into sessions (org_id, session_id, sdk_type, usage_month, first_seen_at, last_batch_at)
    select ${orgId}::uuid, gen_random_uuid(), 'web', date_trunc('month', ${now}::timestamptz)::date, ${now}, ${now} from generate_series(1, ${SESSIONS})`
  await db.sql`create table floor_ids as select row_number() over () as n, session_id, first_seen_at from sessions`
  await db.sql`create unique index on floor_ids (n)`
  // The side-by-side workload's batch: 200 pointer moves (../shared/bench/ingest.lua).
  const signals = sideBySideBatch()
  const packed = Buffer.from(packSignals(signals)).toString('hex')
  const features = `{${Array.from({ length: 34 }, () => Math.random().toFixed(3)).join(',')}}`
  await db.close()

  // One statement per transaction (autocommit, no begin/commit round trips): the session's counters
  // move on (a HOT update, as the service writes them) and the batch's row goes in with the new seq.
  const step = (where: string) => `with s as (
  update sessions s set last_batch_at = now(), batch_count = s.batch_count + 1, signal_count = s.signal_count + 200, client_features = '${features}'
  from floor_ids f where ${where} and s.org_id = '${orgId}' and s.session_id = f.session_id
  returning s.session_id, s.batch_count, s.first_seen_at)
insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, packed, received_at)
select '${orgId}', session_id, batch_count, first_seen_at, now(), md5(random()::text), 200, '\\x${packed}'::bytea, now() from s;
`
  const one = `\\set n random(1, ${SESSIONS})\n${step('f.n = :n')}`
  const eight = `\\set n random(1, ${SESSIONS - 8})\n${step('f.n between :n and :n + 7')}`
  const many = `\\set n random(1, ${SESSIONS - 24})\n${step('f.n between :n and :n + 23')}`
  for (const [name, script, per] of [
    ['one batch per transaction', one, 1],
    ['eight batches per transaction', eight, 8],
    ['24 batches per transaction', many, 24],
  ] as const) {
    const { out, cpu, wall } = await pgbenchCpu({
      script,
      name: `${created}-${per}`,
      url: url.toString(),
      clients,
      seconds,
      postmaster,
      database: created,
    })
    const tps = Number(out.match(/tps = ([\d.]+)/)?.[1] ?? Number.NaN)
    const batches = tps * per * seconds
    console.log(
      `${name}: ${(tps * per).toFixed(0)} batches/s (${tps.toFixed(0)} commits/s), PostgreSQL backend CPU ${((cpu * 1000) / batches).toFixed(3)} ms per batch (${((cpu / wall) * 100).toFixed(0)} % of a core); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`
    )
  }
} finally {
  await admin.unsafe(`drop database if exists ${created} with (force)`).catch(() => {})
  await admin.end()
}
