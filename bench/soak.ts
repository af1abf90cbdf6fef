// Soak: mixed traffic at a fixed rate for a long time, sampling the service's resident memory.
// Run by hand: `bun run bench/soak.ts` (10 minutes by default; see bench/README.md, "Soak").
//
//   BENCH_RATE         requests per second offered, open loop (default 180: half of the ingest peak when the
//                      soak was written; kept so that runs compare)
//   BENCH_SECONDS      length of the run (default 600)
//   BENCH_WARMUP       seconds excluded from the memory verdict (default 120)
//   BENCH_ADMIN_URL    PostgreSQL server to create the throw-away database on
//   BENCH_VACUUM_SECONDS  vacuum (analyze) the database this often (default 60 when the server's autovacuum
//                      is off, as on this machine; 0 = never)
import postgres from 'postgres'
import { createAccessTokens } from '../src/server/platform/access-token'
import { createKeyPair } from '../src/server/modules/keys/service'
import { createOrganization, createUser } from '../tenants/provision'
import { waitFor } from './lib'

const RATE = Number(process.env.BENCH_RATE ?? 180)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 600)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 120)
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const JWT_SECRET = 'soak-only-secret-soak-only-secret-0123456789'

const dbName = `bss_soak_${Date.now().toString(36)}`
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} })
await admin.unsafe(`create database ${dbName}`)
const url = new URL(ADMIN_URL)
url.pathname = '/' + dbName
const port = 41_000 + Math.floor(Math.random() * 1000)
const service = Bun.spawn([process.execPath, 'src/server/main.ts'], {
  env: {
    ...process.env,
    DATABASE_URL: url.toString(),
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    JWT_SECRET,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    TRUST_PROXY: 'true',
    RATE_LIMIT_KEY_PER_MIN: '1000000',
    RATE_LIMIT_ORG_PER_MIN: '10000000',
    // one dashboard user sends the GraphQL share (9 a second): past the per-user limit most would be 429s
    RATE_LIMIT_GRAPHQL_PER_MIN: '1000000',
  },
  stdout: process.env.BENCH_LOG_LEVEL ? 'inherit' : 'ignore',
  stderr: 'inherit',
})
const base = `http://127.0.0.1:${port}`
try {
  await waitFor(`${base}/health`)
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} })
  await sql`update plans set rate_limit_per_minute = null where plan_id = 'enterprise'`
  const orgId = await createOrganization(sql, { name: 'Soak', planId: 'enterprise' })
  const userId = await createUser(sql, { orgId, email: 'soak@example.com', password: 'soak-password-123' })
  const { keyPair, secretKey } = await createKeyPair(sql, orgId, { name: 'soak', sdkType: 'web' })
  await sql.end()
  const jwt = await createAccessTokens(JWT_SECRET).sign({ sub: userId, org: orgId, role: 'owner' })
  const traffic = mixedTraffic({ publicKey: keyPair.public_key, secretKey, jwt })

  const samples: { t: number; rssMb: number }[] = []
  const minutes: { statuses: Record<string, number>; routes: Record<string, number[]> }[] = []
  const start = performance.now()
  const sampler = setInterval(() => samples.push({ t: (performance.now() - start) / 1000, rssMb: rssMb(service.pid) }), 5000)
  // Production PostgreSQL vacuums by itself. This machine's server has autovacuum off (its CI
  // configuration), so dead row versions would pile up (every batch updates its session) and the run
  // would measure that instead: then the soak vacuums the database once a minute, as autovacuum would.
  const [{ autovacuum }] = await admin<{ autovacuum: string }[]>`show autovacuum`
  const vacuumEvery = Number(process.env.BENCH_VACUUM_SECONDS ?? (autovacuum === 'on' ? 0 : 60))
  const vacuums: number[] = []
  const vacuumer = vacuumEvery > 0 ? postgres(url.toString(), { max: 1, onnotice: () => {} }) : undefined
  /** the vacuum under way, if any: a minute's vacuum never starts while the last one runs */
  let vacuuming: Promise<void> | undefined
  const vacuum =
    vacuumer &&
    setInterval(() => {
      if (vacuuming) return
      const t = performance.now()
      vacuuming = vacuumer`vacuum (analyze)`
        .then(
          () => {
            vacuums.push(performance.now() - t)
          },
          () => {}
        )
        .finally(() => {
          vacuuming = undefined
        })
    }, vacuumEvery * 1000)
  const inflight = new Set<Promise<void>>()
  let sent = 0
  // Open loop: requests leave on schedule whether or not earlier ones have answered.
  while (performance.now() - start < SECONDS * 1000) {
    const due = start + (sent / RATE) * 1000
    const wait = due - performance.now()
    if (wait > 1) await Bun.sleep(wait)
    const minute = Math.min(Math.ceil(SECONDS / 60) - 1, Math.floor((performance.now() - start) / 60_000))
    minutes[minute] ??= { statuses: {}, routes: {} }
    const bucket = minutes[minute]!
    const req = traffic(sent++)
    const t0 = performance.now()
    // Requests refused by load shedding (503) get a row of their own, so a kind's latency is of answers that did the work.
    let route = req.route
    const p = fetch(`${base}${req.path}`, req.init)
      .then(async (res) => {
        await res.arrayBuffer()
        bucket.statuses[res.status] = (bucket.statuses[res.status] ?? 0) + 1
        if (res.status === 503) route = 'refused (503)'
      })
      .catch(() => {
        bucket.statuses.network = (bucket.statuses.network ?? 0) + 1
      })
      .finally(() => {
        ;(bucket.routes[route] ??= []).push(performance.now() - t0)
        inflight.delete(p)
      })
    inflight.add(p)
  }
  await Promise.all(inflight)
  clearInterval(sampler)
  if (vacuum) clearInterval(vacuum)
  await vacuuming
  await vacuumer?.end()

  console.log(`# soak: ${SECONDS} s at ${RATE} req/s offered (${sent} requests), warm-up ${WARMUP} s`)
  console.log(
    `# server autovacuum ${autovacuum}; ` +
      (vacuumEvery > 0
        ? `the soak ran vacuum (analyze) every ${vacuumEvery} s: ${vacuums.length} times, ${vacuums.length ? (vacuums.reduce((a, b) => a + b, 0) / vacuums.length / 1000).toFixed(1) : '–'} s each on average`
        : 'no vacuum by the soak')
  )
  console.log('| minute | requests | p50 ms | p99 ms | statuses | RSS MB (end of minute) |')
  console.log('|---:|---:|---:|---:|---|---:|')
  const pct = (xs: number[], p: number) => {
    const l = [...xs].sort((a, b) => a - b)
    return l[Math.min(l.length - 1, Math.floor(p * l.length))]!.toFixed(1)
  }
  minutes.forEach((m, i) => {
    const rss = samples.filter((s) => s.t <= (i + 1) * 60).pop()?.rssMb ?? NaN
    const all = Object.values(m.routes).flat()
    console.log(`| ${i + 1} | ${all.length} | ${pct(all, 0.5)} | ${pct(all, 0.99)} | ${JSON.stringify(m.statuses)} | ${rss.toFixed(1)} |`)
  })
  // where a creep comes from: each kind of request, p50 / p99 per minute
  const routes = [...new Set(minutes.flatMap((m) => Object.keys(m.routes)))].sort()
  console.log(`\n| kind of request, p50 / p99 ms | ${minutes.map((_, i) => `minute ${i + 1}`).join(' | ')} |`)
  console.log(`|---|${minutes.map(() => '---:').join('|')}|`)
  for (const r of routes)
    console.log(
      `| ${r} | ${minutes.map((m) => (m.routes[r] ? `${pct(m.routes[r]!, 0.5)} / ${pct(m.routes[r]!, 0.99)}` : '–')).join(' | ')} |`
    )
  // RSS saws up and down with garbage collection: compare the median of the first and of the last
  // minute after warm-up (the trend), and report the band the samples stayed in.
  const after = samples.filter((s) => s.t >= WARMUP)
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const firstMinute = median(after.filter((s) => s.t < WARMUP + 60).map((s) => s.rssMb))
  const lastMinute = median(after.filter((s) => s.t >= SECONDS - 60).map((s) => s.rssMb))
  const trend = ((lastMinute - firstMinute) / firstMinute) * 100
  const band = after.map((s) => s.rssMb)
  console.log(
    `\nRSS after warm-up: median of the first minute ${firstMinute.toFixed(1)} MB, of the last minute ${lastMinute.toFixed(1)} MB ` +
      `(${trend >= 0 ? '+' : ''}${trend.toFixed(1)}%: ${Math.abs(trend) <= 10 ? 'flat within 10%' : 'NOT flat within 10%'}); ` +
      `samples between ${Math.min(...band).toFixed(1)} and ${Math.max(...band).toFixed(1)} MB`
  )
} finally {
  service.kill()
  await service.exited
  await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {})
  await admin.end()
}

function rssMb(pid: number): number {
  const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024
}

/** The i-th request of a realistic mix: mostly SDK batches, then backend reads, dashboard and public pages. */
function mixedTraffic(keys: { publicKey: string; secretKey: string; jwt: string }) {
  /** sessions still taking batches (each ends after 5, as a short page visit does) and recent ones to read back */
  const open: { id: string; batches: number }[] = []
  const sessions: string[] = []
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const features = Array.from({ length: 34 }, (_, i) => (i % 7) / 10)
  const batch = (session: string, n: number) => ({
    session_id: session,
    sdk_type: 'web',
    captured_at: new Date().toISOString(),
    signals: Array.from({ length: 200 }, (_, i) => ({
      t: n * 5000 + i * 16 + (i % 3),
      k: i % 50 === 49 ? 'c' : 'mm',
      x: 100 + i * 2 + (n % 9),
      y: 300 + Math.round(40 * Math.sin(i / 15)) + (n % 5),
    })),
    features,
  })
  return (i: number): { path: string; init: RequestInit; route: string } => {
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
    const slot = i % 20
    if (slot < 12) {
      // 60%: SDK batches, one new session in four, the rest continue recent sessions (up to 5 batches).
      let entry = slot % 4 === 0 || open.length === 0 ? undefined : open[Math.floor(Math.random() * open.length)]
      if (!entry) {
        entry = { id: crypto.randomUUID(), batches: 0 }
        open.push(entry)
        sessions.push(entry.id)
        if (sessions.length > 200) sessions.shift()
      }
      if (++entry.batches >= 5) open.splice(open.indexOf(entry), 1)
      const session = entry.id
      const key = slot % 3 === 0 ? keys.secretKey : keys.publicKey
      return {
        path: '/v1/ingest',
        init: json(batch(session, i), { 'x-api-key': key }),
        route: key === keys.secretKey ? 'ingest, secret key' : 'ingest, public key',
      }
    }
    if (slot < 15)
      return {
        path: `/v1/session/${sessions[i % Math.max(1, sessions.length)] ?? crypto.randomUUID()}`,
        init: { headers: { 'x-api-key': keys.secretKey } },
        route: 'GET /v1/session/:id',
      }
    if (slot < 16) return { path: '/v1/org/usage', init: { headers: { authorization: `Bearer ${keys.jwt}` } }, route: 'usage' }
    if (slot < 17)
      return {
        path: '/graphql',
        init: json(
          { query: '{ getPlanUsage { sessionsUsed percentUsed } listApiKeys { keyPairId name lastUsedAt } }' },
          { authorization: `Bearer ${keys.jwt}` }
        ),
        route: 'graphql',
      }
    if (slot < 18) return { path: '/v1/demo/live-score', init: json({ features }, { 'x-forwarded-for': ip }), route: 'live-score' }
    if (slot < 19)
      return {
        path: '/v1/leads',
        init: json({ email: `lead${i % 500}@example.com`, source: 'pricing_page' }, { 'x-forwarded-for': ip }),
        route: 'leads',
      }
    return { path: '/health', init: {}, route: 'health' }
  }
}
