// Per-batch latency against the session's length: does batch 200 of a session cost what batch 1 does?
// Run by hand: `bun run bench/session-length.ts` (≈ 1–2 minutes; see bench/README.md, "Session length").
//
//   DATABASE_URL     PostgreSQL database for the service (a fresh one is created and dropped when unset)
//   BENCH_ADMIN_URL  server to create that database on (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_SESSIONS   sessions sent one after another (default 5), each BENCH_DEPTH batches of 200 signals
//   BENCH_DEPTH      batches per session (default 200: 40,000 signals, under the 50,000 bound)
//   BENCH_KEY        `public` (default; 202, no score) or `secret` (200 with the session's score)
//
// One client, one request at a time: the latency is the service's own cost for that batch, not queueing.
// Also prints the CPU time per batch of the service process and of the PostgreSQL backends serving its
// database (utime + stime from /proc, Linux only; PostgreSQL must run on this machine).
import { readdirSync, readFileSync } from 'node:fs'
import postgres from 'postgres'
import { humanSession } from '../ml/synth/human'
import { createRng } from '../ml/synth/prng'
import type { Signal } from '../src/scoring/signals'
import { createKeyPair } from '../src/server/modules/keys/service'
import { createOrganization } from '../tenants/provision'
import { waitFor } from './lib'

const PER_BATCH = 200
const sessions = Number(process.env.BENCH_SESSIONS ?? 5)
const depth = Number(process.env.BENCH_DEPTH ?? 200)
const keyKind = process.env.BENCH_KEY === 'secret' ? 'secret' : 'public'
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU seconds of the PostgreSQL backends serving `database` (their command line names it; shared writers excluded). */
function backendCpuSeconds(database: string): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (cmdline.startsWith('postgres: ') && cmdline.split(' ').includes(database)) total += cpuSeconds(Number(entry))
    } catch {} // the process ended, or is not readable
  }
  return total
}

let databaseUrl = process.env.DATABASE_URL
let created: string | undefined
if (!databaseUrl) {
  created = `bss_bench_len_${Date.now().toString(36)}`
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database ${created}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${created}`
  databaseUrl = url.toString()
}
const port = 38_000 + Math.floor(Math.random() * 500)
const service = Bun.spawn([process.execPath, 'src/server/main.ts'], {
  env: {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-only-secret-bench-only-secret-0123456789',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_KEY_PER_MIN: '1000000',
    RATE_LIMIT_ORG_PER_MIN: '10000000',
  },
  stdout: 'ignore',
  stderr: 'inherit',
})
try {
  await waitFor(`http://127.0.0.1:${port}/health`)
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  await sql`update plans set rate_limit_per_minute = null where plan_id = 'enterprise'`
  const orgId = await createOrganization(sql, { name: 'Bench', planId: 'enterprise' })
  const { keyPair, secretKey } = await createKeyPair(sql, orgId, { name: 'bench', sdkType: 'web' })
  await sql.end()
  const key = keyKind === 'secret' ? secretKey : keyPair.public_key

  // One long synthetic human stream; each session shifts it so its trajectory (fingerprint) is its own.
  const rng = createRng(7)
  const stream: Signal[] = []
  while (stream.length < depth * PER_BATCH) {
    const offset = stream.length ? stream[stream.length - 1]!.t + 500 : 0
    for (const s of humanSession(rng)) stream.push({ ...s, t: s.t + offset })
  }
  const features = JSON.stringify(Array.from({ length: 34 }, (_, i) => (i % 5) / 10))

  const send = async (sessionId: string, b: number, shift: number) => {
    const events = stream
      .slice(b * PER_BATCH, (b + 1) * PER_BATCH)
      .map((e) => (e.x === undefined ? e : { ...e, x: e.x + shift, y: (e.y ?? 0) + shift }))
    const body = `{"session_id":"${sessionId}","sdk_type":"web","captured_at":"${new Date().toISOString()}","signals":${JSON.stringify(events)},"features":${features}}`
    const t0 = performance.now()
    const res = await fetch(`http://127.0.0.1:${port}/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body,
    })
    await res.arrayBuffer()
    if (res.status >= 300) throw new Error(`batch ${b + 1}: ${res.status}`)
    return performance.now() - t0
  }
  // Warm-up (not measured): 20 short sessions, so batch 1 is not the JIT's first request.
  for (let w = 0; w < 20; w++) {
    const sessionId = crypto.randomUUID()
    for (let b = 0; b < 3; b++) await send(sessionId, b, 1000 + w)
  }

  // latency[b] = the latencies of batch b + 1 over all sessions
  const latency: number[][] = Array.from({ length: depth }, () => [])
  const database = new URL(databaseUrl).pathname.slice(1)
  const cpuBefore = cpuSeconds(service.pid)
  const pgBefore = backendCpuSeconds(database)
  const wallStart = performance.now()
  for (let s = 0; s < sessions; s++) {
    const sessionId = crypto.randomUUID()
    for (let b = 0; b < depth; b++) latency[b]!.push(await send(sessionId, b, s))
  }
  const cpu = cpuSeconds(service.pid) - cpuBefore
  const pgCpu = backendCpuSeconds(database) - pgBefore
  const wall = (performance.now() - wallStart) / 1000

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b)
    return s[Math.floor(s.length / 2)]!
  }
  // Batch n: the median over the sessions of batches n-2 … n+2 (just batch 1 at the start), against the scheduler's noise.
  const at = (n: number) => median(latency.slice(Math.max(0, n - 3), Math.min(depth, n + 2)).flat())
  console.log(`# ${keyKind} key, ${sessions} sessions × ${depth} batches of ${PER_BATCH} signals, one request at a time`)
  console.log('| batch | signals stored after it | p50 ms |')
  console.log('|---:|---:|---:|')
  for (const n of [1, 10, 50, 200].filter((n) => n <= depth))
    console.log(`| ${n} | ${n * PER_BATCH} | ${(n === 1 ? median(latency[0]!) : at(n)).toFixed(2)} |`)
  const first = median(latency[0]!)
  console.log(`\nbatch ${depth} / batch 1: ${(at(depth) / first).toFixed(2)}×`)
  console.log(`service CPU per batch: ${((cpu / (sessions * depth)) * 1000).toFixed(2)} ms (${cpu.toFixed(1)} s over ${wall.toFixed(1)} s)`)
  // Backends only: the WAL writer, checkpointer and autovacuum serve every database and are left out.
  console.log(`PostgreSQL backend CPU per batch: ${((pgCpu / (sessions * depth)) * 1000).toFixed(2)} ms`)
} finally {
  service.kill()
  await service.exited
  if (created) {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`drop database if exists ${created} with (force)`).catch(() => {})
    await admin.end()
  }
}
