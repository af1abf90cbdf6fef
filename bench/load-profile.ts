// Where the time of ingest goes under load: the shared side-by-side workload (../shared/bench/ingest.lua,
// wrk -t1 -c50) against the service alone, with the service's and PostgreSQL's CPU per batch, the group
// sizes actually achieved, commits, WAL and fsyncs per batch, lock waits seen by PostgreSQL, and (when the
// server has pg_stat_statements) the statements per batch. Run by hand: `bun run bench/load-profile.ts`.
//
//   BENCH_ADMIN_URL  server to create the throw-away database on (default postgres://postgres@127.0.0.1:5432/postgres);
//                    it must run on this machine (CPU is read from /proc)
//   BENCH_SECONDS    measured seconds (default 10), after 3 s of warm-up
//   BENCH_CONNS      wrk connections (default 50)
//   BENCH_RATE       open loop instead: wrk2 is not assumed; this drives a fixed rate from this process (req/s)
//   BENCH_PROFILE    folder for a CPU profile of the service (bun --cpu-prof, markdown)
//   BENCH_LOG        file for the service's log (LOG_LEVEL=info: one line per request with duration_ms)
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { createKeyPair } from '../src/server/modules/keys/service'
import { createOrganization } from '../tenants/provision'
import { waitFor } from './lib'

// BENCH_SHARED: the shared bench folder (ingest.lua), when this runs from a copy of the project elsewhere.
const shared = process.env.BENCH_SHARED ?? join(import.meta.dir, '..', '..', 'shared', 'bench')
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const conns = Number(process.env.BENCH_CONNS ?? 50)

function cpuSeconds(pid: number | string): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU seconds of the children of the postmaster `postmaster`: the backends of `database`, and the rest (WAL writer, checkpointer, …). */
function postgresCpu(postmaster: number, database: string): { backends: number; other: number } {
  let backends = 0
  let other = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')
      if (Number(stat[1]) !== postmaster) continue
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      const cpu = (Number(stat[11]) + Number(stat[12])) / 100
      if (cmdline.split(' ').includes(database)) backends += cpu
      else other += cpu
    } catch {} // ended meanwhile
  }
  return { backends, other }
}

const created = `bss_prof_${Date.now().toString(36)}`
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`create database ${created}`)
const url = new URL(adminUrl)
url.pathname = `/${created}`
const databaseUrl = url.toString()
const [{ pid: adminPid }] = await admin<{ pid: number }[]>`select pg_backend_pid() as pid`
const postmaster = Number(readFileSync(`/proc/${adminPid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
const hasStatements = (await admin`select 1 from pg_extension where extname = 'pg_stat_statements'`).length > 0

const port = 37_000 + Math.floor(Math.random() * 500)
const profile = process.env.BENCH_PROFILE
const service = Bun.spawn(
  [process.execPath, ...(profile ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${profile}`] : []), 'src/server/main.ts'],
  {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'bss-prof-')),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.BENCH_LOG ? 'info' : 'warn',
      RATE_LIMIT_KEY_PER_MIN: '1000000',
      RATE_LIMIT_ORG_PER_MIN: '10000000',
    },
    stdout: process.env.BENCH_LOG ? Bun.file(process.env.BENCH_LOG) : 'ignore',
    stderr: 'inherit',
  }
)
const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} })
try {
  await waitFor(`http://127.0.0.1:${port}/health`)
  await sql`update plans set rate_limit_per_minute = null, sessions_limit = 2000000000 where plan_id = 'enterprise'`
  const orgId = await createOrganization(sql, { name: 'Bench', planId: 'enterprise' })
  const { keyPair } = await createKeyPair(sql, orgId, { name: 'bench', sdkType: 'web' })
  const wrk = (secs: number) =>
    Bun.spawn(['wrk', '-t1', `-c${conns}`, `-d${secs}s`, '-s', join(shared, 'ingest.lua'), `http://127.0.0.1:${port}`], {
      env: { ...process.env, KEY: keyPair.public_key },
      stdout: 'pipe',
    })
  await wrk(3).exited // warm-up: JIT, pool, plans, partitions

  const stats = async () => {
    const [db] =
      await sql`select xact_commit::bigint as commits, xact_rollback::bigint as rollbacks from pg_stat_database where datname = ${created}`
    const [wal] = await sql`select wal_records, wal_fpi, wal_bytes, wal_write, wal_sync, wal_write_time, wal_sync_time from pg_stat_wal`
    const [batches] = await sql`select count(*)::int as n from session_batches`
    return { db: db!, wal: wal!, batches: Number(batches!.n) }
  }
  if (hasStatements) await admin`select pg_stat_statements_reset()`
  const before = await stats()
  const cpu0 = { service: cpuSeconds(service.pid), pg: postgresCpu(postmaster, created), wall: performance.now() }
  // Wait events of the database's backends, sampled every 20 ms while wrk runs.
  const waits = new Map<string, number>()
  let samples = 0
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const rows = await admin<{ w: string; n: number }[]>`
        select coalesce(wait_event_type || ':' || wait_event, state) as w, count(*)::int as n
        from pg_stat_activity where datname = ${created} and pid <> pg_backend_pid() and state <> 'idle' group by 1`
      samples++
      for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + r.n)
      await Bun.sleep(20)
    }
  })()
  const run = wrk(seconds)
  const out = await new Response(run.stdout).text()
  sampling = false
  await sampler
  const cpu1 = { service: cpuSeconds(service.pid), pg: postgresCpu(postmaster, created), wall: performance.now() }
  const after = await stats()

  const n = after.batches - before.batches
  const ms = (s: number) => ((s * 1000) / n).toFixed(3)
  console.log(`wrk -t1 -c${conns} -d${seconds}s: ${out.trim().split('\n').pop()}`)
  console.log(
    `batches stored ${n} (${((n / (cpu1.wall - cpu0.wall)) * 1000).toFixed(0)}/s); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`
  )
  console.log(
    `CPU per batch: service ${ms(cpu1.service - cpu0.service)} ms, PostgreSQL backends ${ms(cpu1.pg.backends - cpu0.pg.backends)} ms, other PostgreSQL processes ${ms(cpu1.pg.other - cpu0.pg.other)} ms`
  )
  const commits = Number(after.db.commits) - Number(before.db.commits)
  const d = (k: string) => Number(after.wal[k]) - Number(before.wal[k])
  console.log(
    `commits ${commits} (${(n / commits).toFixed(2)} batches per commit, all transactions of the database), rollbacks ${Number(after.db.rollbacks) - Number(before.db.rollbacks)}`
  )
  console.log(
    `WAL per batch: ${(d('wal_records') / n).toFixed(1)} records, ${(d('wal_bytes') / n).toFixed(0)} bytes, ${(d('wal_fpi') / n).toFixed(2)} full-page images; fsyncs ${d('wal_sync')} (${(d('wal_sync') / n).toFixed(2)} per batch, ${(d('wal_sync_time') / Math.max(1, d('wal_sync'))).toFixed(2)} ms each when timed), writes ${d('wal_write')}`
  )
  // Group sizes: the batches one transaction stored share its xmin (the partitions are day tables).
  const groups = await sql<{ size: number; groups: number }[]>`
    select size, count(*)::int as groups from (select xmin::text, count(*)::int as size from session_batches group by 1) g group by size order by size`
  const totalGroups = groups.reduce((a, g) => a + g.groups, 0)
  const stored = groups.reduce((a, g) => a + g.size * g.groups, 0)
  console.log(
    `group sizes (whole run incl. warm-up): mean ${(stored / totalGroups).toFixed(2)} batches per write transaction; ${groups
      .map((g) => `${g.size}×${g.groups}`)
      .join(' ')}`
  )
  const active = [...waits.entries()].sort((a, b) => b[1] - a[1])
  console.log(`busy backends per sample (${samples} samples): ${active.map(([w, c]) => `${w} ${(c / samples).toFixed(2)}`).join(', ')}`)
  if (hasStatements) {
    const rows = await admin<{ query: string; calls: number; exec: number; plan: number; rows: number }[]>`
      select regexp_replace(left(query, 90), '\\s+', ' ', 'g') as query, calls::int, total_exec_time as exec, total_plan_time as plan, rows::int
      from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = ${created} order by total_exec_time desc limit 25`
    const calls = rows.reduce((a, r) => a + r.calls, 0)
    console.log(`statements: ${(calls / n).toFixed(2)} per batch (top 25); exec ms per batch, calls, statement`)
    for (const r of rows) console.log(`  ${(r.exec / n).toFixed(4)}  ${String(r.calls).padStart(6)}  ${r.query}`)
  }
} finally {
  service.kill('SIGTERM')
  await service.exited
  await sql.end()
  await admin.unsafe(`drop database if exists ${created} with (force)`).catch(() => {})
  await admin.end()
}
