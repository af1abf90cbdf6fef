import { afterAll, describe, expect, it } from 'bun:test'
import { openDb } from '../../src/server/platform/db'
import { migrate } from '../../src/server/platform/db/migrate'
import { testDbKind } from '../helpers/db'
import { createHarness } from '../helpers/harness'
import { ThrowawayPostgres } from '../helpers/throwaway-pg'

/**
 * Issue 15, item 6: after a PostgreSQL restart, requests kept hanging the whole DB_TIMEOUT_MS and
 * answering 503 in connect-timeout cycles for 5–15 s after the database was back. Cause: a
 * connection whose socket closed with a small write still queued never flushed again
 * (tests/faults/driver-write-timer.test.ts; fixed by scripts/patch-postgres.cjs).
 *
 * A private server is stopped (fast) and started again several times under load. The start runs
 * asynchronously so the app, served by this process, keeps answering (and timing) meanwhile.
 * After every restart: no request is slower than the timeout plus a margin, and 20 successes in a
 * row come within RECOVERY_MS. RESTART_CYCLES (env) sets the number of restarts; the figures are
 * printed for docs/reliability-and-security.md.
 */
const onPostgres = testDbKind() === 'postgres'
const canRunServer = ThrowawayPostgres.available()
if (onPostgres && !canRunServer) console.warn('tests/faults/db-restart: NO PostgreSQL binaries to start a private server: SKIPPED')

// RESTART_DB_TIMEOUT_MS=5000 repeats the setting (the connect timeout follows it, in seconds).
const DB_TIMEOUT_MS = Number(process.env.RESTART_DB_TIMEOUT_MS ?? 2000)
const MARGIN_MS = 500
const RECOVERY_MS = 3000
const CYCLES = Number(process.env.RESTART_CYCLES ?? 3)

type Outcome = { status: number; start: number; end: number }

const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

describe('PostgreSQL restarted under load', () => {
  it.skipIf(!onPostgres || !canRunServer)(
    `after each of ${CYCLES} restarts every request answers within the timeout and service is back within ${RECOVERY_MS} ms`,
    async () => {
      const pg = new ThrowawayPostgres()
      cleanups.push(() => pg.destroy())
      pg.init()
      const db = await openDb({ url: pg.url, poolMax: 6, timeoutMs: DB_TIMEOUT_MS })
      await migrate(db)
      const h = await createHarness({
        testDb: { db, drop: () => db.close() },
        env: {
          DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
          RATE_LIMIT_KEY_PER_MIN: '1000000',
          RATE_LIMIT_ORG_PER_MIN: '1000000',
          // Every request resolves its key in the database, so every request needs a connection.
          KEY_CACHE_TTL_MS: '0',
        },
      })
      await db.sql`update organizations set plan_id = 'enterprise' where org_id = ${h.a.orgId}`
      const listening = h.app.listen({ port: 0, hostname: '127.0.0.1' })
      cleanups.push(
        () => h.close(),
        () => listening.server?.stop(true)
      )
      const base = `http://127.0.0.1:${listening.server!.port}`
      const headers = { 'content-type': 'application/json', 'x-api-key': h.a.secretKey }

      const outcomes: Outcome[] = []
      let running = true
      const worker = async (w: number) => {
        let session = crypto.randomUUID()
        for (let n = 0; running; n++) {
          if (n % 5 === 0) session = crypto.randomUUID()
          const start = performance.now()
          let status = 0
          try {
            // Writes (a transaction) and reads (single small queries) both go through the pool.
            const res =
              w % 2 === 0
                ? await fetch(`${base}/v1/ingest`, {
                    method: 'POST',
                    headers,
                    body: JSON.stringify({
                      session_id: session,
                      sdk_type: 'web',
                      captured_at: new Date(Date.now() - 600_000 + n * 10 + w).toISOString(),
                      signals: [{ t: n, k: 'mm', x: 1, y: 2 }],
                      features: Array(34).fill(0.5),
                    }),
                    signal: AbortSignal.timeout(DB_TIMEOUT_MS * 4),
                  })
                : await fetch(`${base}/v1/session/${session}`, { headers, signal: AbortSignal.timeout(DB_TIMEOUT_MS * 4) })
            await res.arrayBuffer()
            status = res.status
          } catch {}
          outcomes.push({ status, start, end: performance.now() })
          // Paced (~300 requests/s in all) below the enterprise plan's 30,000 per minute, so a long run
          // never meets the plan's rate limit.
          await Bun.sleep(20)
        }
      }
      const ok = (o: Outcome) => o.status === 200 || o.status === 404
      const workers = Array.from({ length: 6 }, (_, w) => worker(w))

      const figures: { slowestMs: number; recoveredMs: number; failedAfter: number }[] = []
      try {
        await Bun.sleep(1000)
        for (let cycle = 0; cycle < CYCLES; cycle++) {
          // Stopped while this process's event loop is blocked (pg_ctl runs synchronously), as on a
          // busy server: the backends' FATAL messages, the closes and the app's reactions to them
          // (a ROLLBACK, the next query) meet in one turn of the loop, which is what left a
          // connection with a small write queued on a closed socket.
          pg.stop()
          await Bun.sleep(1000 + Math.random() * 1000)
          await pg.startAsync()
          const backAt = performance.now()
          let recoveredAt = 0
          while (performance.now() - backAt < 15_000) {
            const tail = outcomes.filter((o) => o.start > backAt).slice(-20)
            if (tail.length === 20 && tail.every(ok)) {
              recoveredAt = performance.now()
              break
            }
            await Bun.sleep(20)
          }
          // Let the requests that started before recovery finish before measuring them.
          await Bun.sleep(DB_TIMEOUT_MS + MARGIN_MS)
          const after = outcomes.filter((o) => o.start > backAt)
          figures.push({
            slowestMs: Math.round(Math.max(...after.map((o) => o.end - o.start))),
            recoveredMs: recoveredAt ? Math.round(recoveredAt - backAt) : -1,
            failedAfter: after.filter((o) => !ok(o)).length,
          })
          const statuses = new Map<number, number>()
          for (const o of after) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1)
          if (!recoveredAt)
            console.log(`db-restart: no recovery after restart ${cycle + 1}; statuses after it: ${JSON.stringify([...statuses])}`)
        }
      } finally {
        running = false
        await Promise.all(workers)
      }
      console.log(
        `db-restart: ${CYCLES} restarts, ${outcomes.length} requests; per restart [slowest request started after the database was back ms, ` +
          `20 successes in a row after ms, failures after]: ${JSON.stringify(figures.map((f) => [f.slowestMs, f.recoveredMs, f.failedAfter]))}; ` +
          `slowest request of the whole run ${Math.round(Math.max(...outcomes.map((o) => o.end - o.start)))} ms`
      )

      expect(outcomes.filter((o) => o.status === 0)).toEqual([]) // nothing hung past the client's patience
      expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([])
      for (const f of figures) {
        expect(f.recoveredMs).toBeGreaterThanOrEqual(0)
        expect(f.recoveredMs).toBeLessThanOrEqual(RECOVERY_MS)
        expect(f.slowestMs).toBeLessThanOrEqual(DB_TIMEOUT_MS + MARGIN_MS)
      }
      // No request at all, during or after the outage, takes longer than the timeout allows.
      expect(Math.max(...outcomes.map((o) => o.end - o.start))).toBeLessThanOrEqual(DB_TIMEOUT_MS + MARGIN_MS)
    },
    Math.max(120_000, CYCLES * (20_000 + 3 * DB_TIMEOUT_MS))
  )
})
