// Ingest throughput and latency over loopback, next to a bare Elysia endpoint that only
// validates the same body (the ceiling). Run by hand: `bun run bench/ingest.ts` (see bench/README.md).
//
//   DATABASE_URL   PostgreSQL database for the service (a fresh one is created and dropped when unset)
//   BENCH_ADMIN_URL  server to create that database on (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_LEVELS   concurrency levels (default 1,4,16,64)
//   BENCH_SECONDS  measured seconds per level (default 8), after 1 s of warm-up
//   BENCH_BATCHES  batches per session: 1 new + the rest continuing (default 5)
//   BENCH_PROFILE  folder for a CPU profile of the service (markdown, written when it stops)
//   BENCH_ONLY     `ingest` or `ceiling`: run one side only (e.g. with BENCH_PROFILE)
//   BENCH_LOG      file for the service's log (one JSON line per request, with duration_ms)
//   BENCH_LAG      file for the service's event-loop lag, CPU and heap every 250 ms (bench/lag-probe.ts)
//   BENCH_GC       1: the service logs every JSC garbage collection to stderr (BUN_JSC_logGC)
//   BENCH_TRACE    file for the open loop's requests: when due, how late sent, latency, status
import { readdirSync, readFileSync } from 'node:fs'
import { Elysia } from 'elysia'
import postgres from 'postgres'
import { createKeyPair } from '../src/server/modules/keys/service'
import { ingestBody } from '../src/server/modules/ingest/model'
import { humanSession } from '../ml/synth/human'
import { createRng } from '../ml/synth/prng'
import type { Signal } from '../src/scoring/signals'
import { createOrganization } from '../tenants/provision'
import { waitFor } from './lib'

const SIGNALS_PER_BATCH = 200

if (process.argv[2] === '--ceiling') {
  // The ceiling: HTTP + JSON parsing + the same valibot validation, no credential, no database.
  const port = Number(process.argv[3])
  new Elysia()
    .post('/v1/ingest', ({ body, status }) => status(202, { session_id: body.session_id, accepted: body.signals.length }), {
      body: ingestBody(() => new Date()),
    })
    .listen({ port, hostname: '127.0.0.1' })
} else {
  await main()
}

type Target = { name: string; url: string; key: string }
type Run = { concurrency: number; rps: number; p50: number; p99: number; errors: number; statuses: Record<number, number> }

async function main() {
  const levels = (process.env.BENCH_LEVELS ?? '1,4,16,64').split(',').map(Number)
  const seconds = Number(process.env.BENCH_SECONDS ?? 8)
  const batchesPerSession = Number(process.env.BENCH_BATCHES ?? 5)
  const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  let databaseUrl = process.env.DATABASE_URL
  let created: string | undefined
  if (!databaseUrl) {
    created = `bss_bench_${Date.now().toString(36)}`
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create database ${created}`)
    await admin.end()
    const url = new URL(adminUrl)
    url.pathname = '/' + created
    databaseUrl = url.toString()
  }

  const children: ReturnType<typeof Bun.spawn>[] = []
  const cleanup = async () => {
    for (const child of children) child.kill()
    await Promise.all(children.map((child) => child.exited))
    if (created) {
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
      await admin.unsafe(`drop database if exists ${created} with (force)`).catch(() => {})
      await admin.end()
    }
  }
  try {
    const servicePort = 39_000 + Math.floor(Math.random() * 500)
    const ceilingPort = servicePort + 500
    children.push(
      // BENCH_PROFILE=dir writes the service's CPU profile (markdown) there when it stops.
      Bun.spawn(
        [
          process.execPath,
          ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
          ...(process.env.BENCH_LAG ? ['--preload', `${import.meta.dir}/lag-probe.ts`] : []),
          'src/server/main.ts',
        ],
        {
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl,
            PORT: String(servicePort),
            HOST: '127.0.0.1',
            NODE_ENV: 'production',
            JWT_SECRET: 'bench-only-secret-bench-only-secret-0123456789',
            LOG_LEVEL: 'info',
            RATE_LIMIT_KEY_PER_MIN: '1000000',
            RATE_LIMIT_ORG_PER_MIN: '10000000',
            ...(process.env.BENCH_GC ? { BUN_JSC_logGC: '1' } : {}),
          },
          stdout: process.env.BENCH_LOG ? Bun.file(process.env.BENCH_LOG) : 'ignore',
          stderr: 'inherit',
        }
      )
    )
    children.push(
      Bun.spawn([process.execPath, import.meta.path, '--ceiling', String(ceilingPort)], { stdout: 'ignore', stderr: 'inherit' })
    )
    await waitFor(`http://127.0.0.1:${servicePort}/health`)
    await waitFor(`http://127.0.0.1:${ceilingPort}/v1/ingest`)

    // An enterprise organization, so the monthly limit is never reached. Its plan's own rate limit
    // (30,000/min) is lifted in this throw-away database so the bench measures ingest, not 429s.
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
    await sql`update plans set rate_limit_per_minute = null where plan_id = 'enterprise'`
    const orgId = await createOrganization(sql, { name: 'Bench', planId: 'enterprise' })
    const { keyPair } = await createKeyPair(sql, orgId, { name: 'bench', sdkType: 'web' })
    await sql.end()

    const workload = makeWorkload(batchesPerSession)
    const ceiling: Target = { name: 'ceiling', url: `http://127.0.0.1:${ceilingPort}/v1/ingest`, key: keyPair.public_key }
    const ingest: Target = { name: 'ingest', url: `http://127.0.0.1:${servicePort}/v1/ingest`, key: keyPair.public_key }

    console.log(
      `# ${SIGNALS_PER_BATCH} signals per batch, sessions of ${batchesPerSession} batches (1 new + ${batchesPerSession - 1} continuing), ${seconds} s per level`
    )
    const results: Record<string, Run[]> = { ceiling: [], ingest: [] }
    const only = process.env.BENCH_ONLY
    for (const target of [ceiling, ingest].filter((t) => !only || t.name === only)) {
      for (const c of levels) {
        await closedLoop(target, workload, c, 1) // warm-up
        const run = await closedLoop(target, workload, c, seconds)
        results[target.name]!.push(run)
        console.log(
          `${target.name.padEnd(8)} c=${String(c).padStart(3)}  ${run.rps.toFixed(0).padStart(6)} req/s  p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms  non-2xx ${run.errors} ${JSON.stringify(run.statuses)}`
        )
      }
    }

    if (only) return
    const peak = Math.max(...results.ingest!.map((r) => r.rps))
    const dbName = new URL(databaseUrl).pathname.slice(1)
    const ours = [process.pid, ...children.map((child) => child.pid)]
    const before = cpuSnapshot(ours, dbName)
    const half = await openLoop(ingest, workload, peak / 2, seconds)
    const outside = outsideLoad(before, cpuSnapshot(ours, dbName))
    const ceilingPeak = Math.max(...results.ceiling!.map((r) => r.rps))

    console.log(
      '\n| concurrency | ingest req/s | ingest p50 ms | ingest p99 ms | ceiling req/s | ceiling p50 ms | ceiling p99 ms | ingest / ceiling |'
    )
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|')
    levels.forEach((c, i) => {
      const a = results.ingest![i]!
      const b = results.ceiling![i]!
      console.log(
        `| ${c} | ${a.rps.toFixed(0)} | ${a.p50.toFixed(2)} | ${a.p99.toFixed(2)} | ${b.rps.toFixed(0)} | ${b.p50.toFixed(2)} | ${b.p99.toFixed(2)} | ${((a.rps / b.rps) * 100).toFixed(0)}% |`
      )
    })
    console.log(
      `\npeak ingest ${peak.toFixed(0)} req/s = ${((peak / ceilingPeak) * 100).toFixed(0)}% of the ceiling's peak ${ceilingPeak.toFixed(0)} req/s`
    )
    console.log(
      `open loop at half of peak (${(peak / 2).toFixed(0)} req/s offered): ${half.rps.toFixed(0)} req/s done, p50 ${half.p50.toFixed(2)} ms, p99 ${half.p99.toFixed(2)} ms, non-2xx ${half.errors}`
    )
    // On the shared 2-core VM, work outside this bench (other people's jobs) decides the tail: say how much there was.
    if (outside !== undefined) console.log(`CPU outside the bench during the open loop: ${outside.toFixed(0)} % of one core (mean)`)
  } finally {
    await cleanup()
  }
}

type CpuSnapshot = { at: number; busy: number; ours: number }

/**
 * Jiffies the machine was busy, and those of this bench's own processes (client, service, ceiling) and of
 * PostgreSQL's backends for the bench's database and its shared background processes. Linux only.
 */
function cpuSnapshot(pids: number[], dbName: string): CpuSnapshot | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    const busy = cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!
    const ticks = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return Number(f[11]) + Number(f[12])
    }
    let ours = 0
    for (const name of readdirSync('/proc')) {
      const pid = Number(name)
      if (!pid) continue
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        const pg = cmd.startsWith('postgres: ') && (cmd.includes(` ${dbName} `) || /walwriter|checkpointer|background writer/.test(cmd))
        if (pids.includes(pid) || pg) ours += ticks(pid)
      } catch {}
    }
    return { at: performance.now(), busy, ours }
  } catch {
    return undefined
  }
}

/** Mean CPU (% of one core) used between two snapshots by processes that are not the bench's (USER_HZ = 100). */
function outsideLoad(a: CpuSnapshot | undefined, b: CpuSnapshot | undefined): number | undefined {
  if (!a || !b || b.at <= a.at) return undefined
  return Math.max(0, (b.busy - a.busy - (b.ours - a.ours)) / 100 / ((b.at - a.at) / 1000)) * 100
}

/** Pointer/keyboard/scroll streams from the scoring module's synthetic humans, cut into 200-event batches. */
function makeWorkload(batchesPerSession: number) {
  const rng = createRng(42)
  const pools: Signal[][] = []
  for (let p = 0; p < 40; p++) {
    const stream: Signal[] = []
    let offset = 0
    while (stream.length < SIGNALS_PER_BATCH * batchesPerSession) {
      const part = humanSession(rng)
      for (const s of part) stream.push({ ...s, t: s.t + offset })
      offset = stream.length ? stream[stream.length - 1]!.t + 500 : 0
    }
    pools.push(stream.slice(0, SIGNALS_PER_BATCH * batchesPerSession))
  }
  const features = JSON.stringify(Array.from({ length: 34 }, (_, i) => (i % 5) / 10))
  let sessionCounter = 0

  /** One virtual user: sessions one after another, each `batchesPerSession` batches long. */
  return function user() {
    let session = ''
    let pool: Signal[] = []
    let shift = 0
    let batch = batchesPerSession
    return (): string => {
      if (batch === batchesPerSession) {
        session = crypto.randomUUID()
        pool = pools[sessionCounter++ % pools.length]!
        shift = sessionCounter % 97
        batch = 0
      }
      // A per-session offset and a random one-pixel wobble: each session's trajectory (and so its
      // fingerprint) is its own, as real ones are, while the workload keeps its realistic shape.
      const events = pool
        .slice(batch * SIGNALS_PER_BATCH, (batch + 1) * SIGNALS_PER_BATCH)
        .map((s) => (s.x === undefined ? s : { ...s, x: s.x + shift + (Math.random() < 0.1 ? 1 : 0), y: (s.y ?? 0) + shift }))
      batch++
      return `{"session_id":"${session}","sdk_type":"web","captured_at":"${new Date().toISOString()}","signals":${JSON.stringify(events)},"features":${features}}`
    }
  }
}

type Workload = ReturnType<typeof makeWorkload>

async function send(target: Target, body: string): Promise<number> {
  const res = await fetch(target.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': target.key }, body })
  await res.arrayBuffer()
  return res.status
}

function summarise(concurrency: number, latencies: number[], statuses: Record<number, number>, elapsedMs: number): Run {
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN
  const errors = Object.entries(statuses).reduce((n, [s, count]) => (Number(s) >= 300 ? n + count : n), 0)
  return { concurrency, rps: (latencies.length / elapsedMs) * 1000, p50: pct(50), p99: pct(99), errors, statuses }
}

/** `concurrency` users each sending their next batch as soon as the previous one is answered. */
async function closedLoop(target: Target, workload: Workload, concurrency: number, seconds: number): Promise<Run> {
  const latencies: number[] = []
  const statuses: Record<number, number> = {}
  const start = performance.now()
  const end = start + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const next = workload()
      while (performance.now() < end) {
        const body = next()
        const t0 = performance.now()
        const status = await send(target, body)
        latencies.push(performance.now() - t0)
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    })
  )
  return summarise(concurrency, latencies, statuses, performance.now() - start)
}

/** Requests at a fixed rate whatever the answers do; latency counts from the scheduled send time. */
async function openLoop(target: Target, workload: Workload, rate: number, seconds: number): Promise<Run> {
  const latencies: number[] = []
  const statuses: Record<number, number> = {}
  const users = Array.from({ length: 256 }, () => workload())
  const total = Math.floor(rate * seconds)
  const start = performance.now()
  const pending: Promise<void>[] = []
  const trace: string[] = []
  const wallStart = Date.now() - (performance.now() - start)
  for (let i = 0; i < total; i++) {
    const due = start + (i / rate) * 1000
    const wait = due - performance.now()
    if (wait > 1) await Bun.sleep(wait)
    const body = users[i % users.length]!()
    const sent = performance.now()
    pending.push(
      send(target, body).then((status) => {
        const latency = performance.now() - due
        latencies.push(latency)
        statuses[status] = (statuses[status] ?? 0) + 1
        if (process.env.BENCH_TRACE)
          trace.push(`${(wallStart + (due - start)).toFixed(1)} ${(sent - due).toFixed(2)} ${latency.toFixed(2)} ${status}`)
      })
    )
  }
  await Promise.all(pending)
  if (process.env.BENCH_TRACE) await Bun.write(process.env.BENCH_TRACE, `${trace.join('\n')}\n`)
  return summarise(0, latencies, statuses, performance.now() - start)
}
