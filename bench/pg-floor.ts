// PostgreSQL's own floor for storing ingest batches: the rows one public-key batch writes (its
// session_batches row with the same packed bytes, and its session row's counters), written by pgbench
// with no service, no row-level security and no checks, durable commits, prepared statements. What the service's
// PostgreSQL CPU per batch is compared with (bench/README.md). Run by hand: `bun run bench/pg-floor.ts`.
//
//   BENCH_ADMIN_URL  server (on this machine) to create the throw-away database on
//                    (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SECONDS    seconds per variant (default 10); BENCH_CLIENTS pgbench clients (default 8)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { packSignals } from '../src/server/modules/ingest/codec'
import { openDb } from '../src/server/platform/db'
import { migrate } from '../src/server/platform/db/migrate'
import type { Signal } from '../src/scoring/signals'
import { createOrganization, syncPlans } from '../tenants/provision'

const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const clients = Number(process.env.BENCH_CLIENTS ?? 8)
const SESSIONS = 20_000

const cpuOf = (pid: string) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 }
}
/** CPU seconds so far of each backend of `database` (pgbench's backends exit with it: sample while it runs). */
function backendsCpu(postmaster: number, database: string, seen: Map<string, number>): void {
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    try {
      const { ppid, cpu } = cpuOf(e)
      if (ppid === postmaster && readFileSync(`/proc/${e}/cmdline`, 'utf8').split(' ').includes(database)) seen.set(e, cpu)
    } catch {}
  }
}

const created = `bss_floor_${Date.now().toString(36)}`
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`create database ${created}`)
const url = new URL(adminUrl)
url.pathname = `/${created}`
const [{ pid }] = await admin<{ pid: number }[]>`select pg_backend_pid() as pid`
const postmaster = cpuOf(String(pid)).ppid
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
  const signals: Signal[] = Array.from({ length: 200 }, (_, i) => ({
    t: (i + 1) * 16,
    k: 'mm',
    x: 100 + (i + 1) * 3 + Math.floor(Math.random() * 5),
    y: 200 + Math.floor(Math.random() * 41),
    n: 1 + Math.floor(Math.random() * 4),
  })) as Signal[]
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
    const file = join(tmpdir(), `${created}-${per}.sql`)
    writeFileSync(file, script)
    const seen = new Map<string, number>()
    const t0 = performance.now()
    const run = Bun.spawn(
      ['pgbench', '-n', '-M', 'prepared', '-c', String(clients), '-j', '1', '-T', String(seconds), '-f', file, url.toString()],
      {
        stdout: 'pipe',
        stderr: 'pipe',
      }
    )
    const sampler = setInterval(() => backendsCpu(postmaster, created, seen), 100)
    const out = await new Response(run.stdout).text()
    await run.exited
    clearInterval(sampler)
    const wall = (performance.now() - t0) / 1000
    // pgbench's backends start with it, so what they used is their CPU at the last sample.
    const cpu = [...seen.values()].reduce((a, b) => a + b, 0)
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
