import { afterAll, describe, expect, it } from 'bun:test'
import { openDb } from '../../src/server/platform/db'
import { migrate } from '../../src/server/platform/db/migrate'
import { createEmptyDatabase, dropDatabase, testDbKind } from '../helpers/db'
import { createHarness, type Harness } from '../helpers/harness'
import { TcpProxy } from '../helpers/tcp-proxy'
import { ThrowawayPostgres } from '../helpers/throwaway-pg'

/**
 * The database disappears mid-load and comes back, in two ways: a private PostgreSQL server is
 * stopped (fast shutdown) and started again; and every connection to the shared server is cut
 * through a loopback proxy that then refuses new ones. PGlite is in-process and cannot become
 * unreachable, so this file only runs in the PostgreSQL pass of `npm test`.
 */
const onPostgres = testDbKind() === 'postgres'
if (!onPostgres) console.warn('tests/faults/db-outage: skipped on PGlite (runs in the PostgreSQL pass of npm test)')
const canRunServer = ThrowawayPostgres.available()
if (onPostgres && !canRunServer)
  console.warn('tests/faults/db-outage: NO PostgreSQL binaries to start a private server: the stop/start scenario is SKIPPED')

const DB_TIMEOUT_MS = 2000
const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

type Fault = { down(): void; up(): void }
type Outcome = {
  status: number
  session: string
  capturedAt: string
  code?: string
  retryAfter?: string | null
  start: number
  end: number
}

async function serve(url: string): Promise<{ h: Harness; base: string }> {
  const db = await openDb({ url, poolMax: 6, timeoutMs: DB_TIMEOUT_MS })
  await migrate(db)
  const h = await createHarness({
    testDb: { db, drop: () => db.close() },
    env: { DB_TIMEOUT_MS: String(DB_TIMEOUT_MS), RATE_LIMIT_KEY_PER_MIN: '1000000', RATE_LIMIT_ORG_PER_MIN: '1000000' },
  })
  await db.sql`update organizations set plan_id = 'enterprise' where org_id = ${h.a.orgId}`
  const listening = h.app.listen({ port: 0, hostname: '127.0.0.1' })
  cleanups.push(
    () => h.close(),
    () => listening.server?.stop(true)
  )
  return { h, base: `http://127.0.0.1:${listening.server!.port}` }
}

function batch(session: string, capturedAt: string, n: number) {
  const signals = Array.from({ length: 20 }, (_, i) => ({ t: n * 1000 + i * 16, k: 'mm', x: 100 + i * 3 + n, y: 200 + i * 2 }))
  return { session_id: session, sdk_type: 'web', captured_at: capturedAt, signals, features: Array(34).fill(0.5) }
}

/** Six clients send batches (new and continuing sessions) while the fault happens; returns what they saw. */
async function outageUnderLoad(name: string, h: Harness, base: string, fault: Fault) {
  const outcomes: Outcome[] = []
  let running = true
  let counter = 0
  const worker = async (w: number) => {
    let session = crypto.randomUUID()
    for (let n = 0; running; n++) {
      if (n % 5 === 0) session = crypto.randomUUID()
      // Distinct captured_at per batch, so every acknowledged batch can be found afterwards.
      const capturedAt = new Date(Date.now() - 600_000 + ++counter * 10 + w).toISOString()
      const start = performance.now()
      let outcome: Outcome
      try {
        const res = await fetch(`${base}/v1/ingest`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': h.a.secretKey },
          body: JSON.stringify(batch(session, capturedAt, n)),
          // Past the database timeout plus slack, a request counts as a hung socket.
          signal: AbortSignal.timeout(DB_TIMEOUT_MS + 3000),
        })
        const body = (await res.json()) as { error?: { code: string } }
        outcome = {
          status: res.status,
          session,
          capturedAt,
          code: body.error?.code,
          retryAfter: res.headers.get('retry-after'),
          start,
          end: performance.now(),
        }
      } catch {
        outcome = { status: 0, session, capturedAt, start, end: performance.now() }
      }
      outcomes.push(outcome)
      if (outcome.status !== 200) await Bun.sleep(20)
    }
  }

  const workers = Array.from({ length: 6 }, (_, w) => worker(w))
  await Bun.sleep(1500)
  const cutAt = performance.now()
  fault.down()
  await Bun.sleep(300)
  const ready = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(DB_TIMEOUT_MS + 3000) })
  const health = await fetch(`${base}/health`)
  await Bun.sleep(2200)
  const restoredAt = performance.now()
  fault.up()
  // Recovery must come by itself (no restart, no manual reconnect): wait for 20 successes in a row.
  let recoveredAt = 0
  while (performance.now() - restoredAt < 15_000) {
    const tail = outcomes.filter((o) => o.start > restoredAt).slice(-20)
    if (tail.length === 20 && tail.every((o) => o.status === 200)) {
      recoveredAt = performance.now()
      break
    }
    await Bun.sleep(50)
  }
  running = false
  await Promise.all(workers)

  expect(ready.status).toBe(503)
  expect(health.status).toBe(200)
  expect(outcomes.filter((o) => o.status === 0)).toEqual([]) // nothing hung or was dropped
  expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([])
  // Requests that started after the cut and ended before the restore saw only the outage.
  const during = outcomes.filter((o) => o.start > cutAt + 50 && o.end < restoredAt)
  expect(during.length).toBeGreaterThan(5)
  for (const o of during) {
    expect(o.status).toBe(503)
    expect(o.code).toBe('unavailable')
    expect(Number(o.retryAfter)).toBeGreaterThan(0)
  }
  expect(outcomes.filter((o) => o.end < cutAt && o.status === 200).length).toBeGreaterThan(5)
  expect(recoveredAt).toBeGreaterThan(0)

  // Every acknowledged batch is stored.
  const acked = outcomes.filter((o) => o.status === 200)
  const stored = await h.deps.db.sql<{ session_id: string; captured_at: Date }[]>`
    select session_id, captured_at from session_batches where org_id = ${h.a.orgId}`
  const storedKeys = new Set(stored.map((r) => `${r.session_id}|${r.captured_at.toISOString()}`))
  expect(acked.filter((o) => !storedKeys.has(`${o.session}|${o.capturedAt}`))).toEqual([])
  console.log(
    `db-outage (${name}): ${outcomes.length} requests, ${during.length} wholly during the outage (all 503, slowest ` +
      `${Math.round(Math.max(...during.map((o) => o.end - o.start)))} ms); ${acked.length} acknowledged, ${stored.length} stored, 0 missing; ` +
      `20 successes in a row ${Math.round(recoveredAt - restoredAt)} ms after the database returned`
  )
}

describe('database outage under load', () => {
  it.skipIf(!onPostgres || !canRunServer)(
    'PostgreSQL stopped and started again: 503 with Retry-After meanwhile, recovery alone, no acknowledged batch lost',
    async () => {
      const pg = new ThrowawayPostgres()
      cleanups.push(() => pg.destroy())
      pg.init()
      const { h, base } = await serve(pg.url)
      await outageUnderLoad('server stopped', h, base, { down: () => pg.stop(), up: () => pg.start() })
    }
  )

  it.skipIf(!onPostgres)('every connection cut and new ones refused: the same guarantees', async () => {
    const url = await createEmptyDatabase()
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(url).port || 5432))
    const proxied = new URL(url)
    proxied.port = String(proxy.start())
    cleanups.push(
      () => dropDatabase(url),
      () => proxy.stop()
    )
    const { h, base } = await serve(proxied.toString())
    await outageUnderLoad('connections cut', h, base, { down: () => proxy.cut(), up: () => proxy.restore() })
  })
})
