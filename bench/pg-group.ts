// PostgreSQL's CPU for the ingest write alone: ingest_write_group (the statement the service sends per
// group) called by pgbench with no service, groups shaped like the side-by-side load's (24 batches, 8 of
// them new sessions, 16 continuing ones, each with the same 200-signal packed bytes). Prints the backend
// CPU per batch, WAL per batch and, when the server has pg_stat_statements, the function's statements.
// The floor to compare with is this statement's own cost, not a single-row one (bench/README.md, seventh
// part of issue 14). Run by hand: `bun run bench/pg-group.ts`.
//
//   BENCH_ADMIN_URL  server (on this machine) to create the throw-away database on
//                    (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SECONDS    seconds (default 10); BENCH_CLIENTS pgbench clients (default 1: one group of an
//                    organization in flight, as the service writes them)
//   BENCH_GROUP      batches per group (default 24); BENCH_NEW new sessions among them (default 8)
//   BENCH_KEEP       keep the database (its name is printed) for EXPLAIN / auto_explain by hand
import { readFileSync } from 'node:fs'
import postgres from 'postgres'
import { pgbenchCpu, scratchDatabase, sideBySideBatch } from './lib'
import { packSignals } from '../src/server/modules/ingest/codec'
import { openDb } from '../src/server/platform/db'
import { migrate } from '../src/server/platform/db/migrate'
import { createOrganization, syncPlans } from '../tenants/provision'

const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const clients = Number(process.env.BENCH_CLIENTS ?? 1)
const size = Number(process.env.BENCH_GROUP ?? 24)
const fresh = Number(process.env.BENCH_NEW ?? 8)
const SESSIONS = 20_000
const GROUPS = 8_000

const { created, admin, url, postmaster } = await scratchDatabase('bss_group', adminUrl)
const hasStatements = (await admin`select 1 from pg_extension where extname = 'pg_stat_statements'`).length > 0
try {
  const db = await openDb({ url: url.toString(), timeoutMs: 300_000 }) // the setup inserts 8,000 groups in one statement
  await migrate(db)
  await syncPlans(db.sql)
  await db.sql`update plans set sessions_limit = 2000000000 where plan_id = 'enterprise'`
  const orgId = await createOrganization(db.sql, { name: 'Group', planId: 'enterprise' })
  const now = new Date()
  const month = `${now.toISOString().slice(0, 7)}-01`
  await db.sql`select session_batches_add_partition(${now.toISOString().slice(0, 10)}::date)`
  // Continuing sessions: started now (the 30-minute window stays open for the run), one batch each.
  await db.sql`
    insert into sessions (org_id, session_id, sdk_type, usage_month, first_seen_at, last_batch_at, batch_count, signal_count)
    select ${orgId}::uuid, gen_random_uuid(), 'web', ${month}::date, ${now}, ${now}, 1, 200 from generate_series(1, ${SESSIONS}::int)`
  await db.sql`
    insert into session_batches (org_id, session_id, seq, session_started_at, captured_at, batch_hash, signal_count, packed)
    select org_id, session_id, 1, first_seen_at, first_seen_at, 'p1:' || md5(session_id::text), 200, '\\x00'::bytea from sessions`
  await db.sql`create table bench_ids as select (row_number() over () - 1)::int as n, session_id as id from sessions`
  await db.sql`create unique index on bench_ids (n)`
  await db.sql`insert into usage_counters (org_id, month, sessions_used) values (${orgId}, ${month}::date, ${SESSIONS})`
  // The side-by-side workload's batch: 200 pointer moves (../shared/bench/ingest.lua).
  const signals = sideBySideBatch()
  const one = Buffer.from(packSignals(signals))
  const features = Array.from({ length: 34 }, () => Math.random().toFixed(3)).join(',')
  // Every group's parameters, made beforehand (each used once: its new sessions must be new), sessions in
  // order as the service sends them; pgbench takes the next one from a sequence.
  await db.sql`create table bench_groups (n integer primary key, session uuid[], print text[], hash text[], count integer[], packed_end integer[], features float8[])`
  await db.sql`
    insert into bench_groups
    select g, s.session, s.print, s.hash, array_fill(200, array[${size}::int]),
      (select array_agg(i * ${one.length}::int) from generate_series(1, ${size}::int) i), ${`{${Array(size).fill(features).join(',')}}`}::float8[]
    from generate_series(1, ${GROUPS}::int) g,
    lateral (
      select array_agg(id order by id) as session, array_agg(case when fresh then 'bench-print' end order by id) as print,
        array_agg('p1:' || md5(random()::text || id::text) order by id) as hash
      from (
        select gen_random_uuid() as id, true as fresh from generate_series(1, ${fresh}::int) where g > 0
        union all
        select i.id, false from bench_ids i where i.n in (select (g * ${size - fresh}::int + j) % ${SESSIONS}::int from generate_series(0, ${size - fresh - 1}::int) j)
      ) x
    ) s`
  await db.sql`create table bench_const (packed bytea)`
  await db.sql`insert into bench_const values (${Buffer.concat(Array(size).fill(one))})`
  await db.sql`create sequence bench_next`
  await db.sql`vacuum analyze`
  await db.close()

  const call = `select w.* from bench_groups g, bench_const c, ingest_write_group('${orgId}'::uuid, '${month}'::date, 1800000, 50000,
  g.session, array_fill(null::uuid, array[${size}]), array_fill('web'::text, array[${size}]), array_fill(now(), array[${size}]), g.print,
  g.hash, array_fill(null::text, array[${size}]), array_fill(now(), array[${size}]), g.count, c.packed, g.packed_end, g.features) w
where g.n = (select nextval('bench_next'));
`
  if (hasStatements) await admin`select pg_stat_statements_reset()`
  const [wal0] = await admin`select wal_records, wal_bytes, wal_fpi, pg_current_wal_lsn() as lsn from pg_stat_wal`
  const { out, err, cpu, wall } = await pgbenchCpu({
    script: call,
    name: created,
    url: url.toString(),
    clients,
    seconds,
    postmaster,
    database: created,
  })
  const [wal1] = await admin`select wal_records, wal_bytes, wal_fpi from pg_stat_wal`
  const check = postgres(url.toString(), { max: 1, onnotice: () => {} })
  const [{ n: batches }] = await check<{ n: number }[]>`select count(*)::int - ${SESSIONS} as n from session_batches`
  const [{ n: groups }] = await check<{ n: number }[]>`select last_value::int as n from bench_next`
  await check.end()
  if (!batches) throw new Error(`no batch stored: ${out}\n${err}`)
  const d = (k: string) => Number(wal1![k]) - Number(wal0![k])
  console.log(
    `${groups} groups of ${size} (${fresh} new), ${batches} batches stored, ${(batches / wall).toFixed(0)} batches/s; PostgreSQL backend CPU ${((cpu * 1000) / batches).toFixed(4)} ms per batch (${((cpu / wall) * 100).toFixed(0)} % of a core); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`
  )
  console.log(
    `WAL per batch: ${(d('wal_records') / batches).toFixed(2)} records, ${(d('wal_bytes') / batches).toFixed(0)} bytes, ${(d('wal_fpi') / batches).toFixed(3)} full-page images (whole server)`
  )
  if (hasStatements) {
    const rows = await admin<{ query: string; calls: number; exec: number }[]>`
      select regexp_replace(left(query, 100), '\\s+', ' ', 'g') as query, calls::int, total_exec_time as exec
      from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = ${created} order by total_exec_time desc limit 16`
    console.log('exec ms per batch, calls, statement (pg_stat_statements)')
    for (const r of rows) console.log(`  ${(r.exec / batches).toFixed(4)}  ${String(r.calls).padStart(7)}  ${r.query}`)
  }
} finally {
  if (process.env.BENCH_KEEP) console.log(`kept database ${created}`)
  else await admin.unsafe(`drop database if exists ${created} with (force)`).catch(() => {})
  await admin.end()
}
