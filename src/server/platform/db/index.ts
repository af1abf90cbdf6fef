import { mkdtempSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import postgres from 'postgres'
import type { Logger } from '../log'
import { lockDataDir } from './data-dir-lock'

export { DataDirLockedError } from './data-dir-lock'

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own spelling of "no custom types"
export type Sql = postgres.Sql<{}>
// biome-ignore lint/complexity/noBannedTypes: as above
export type Tx = postgres.TransactionSql<{}>

/** The one database interface every module uses: postgres.js tagged templates, whatever the backend. */
export interface Db {
  readonly kind: 'postgres' | 'pglite'
  readonly sql: Sql
  /**
   * Runs fn in a transaction scoped to one organization: role bss_tenant and app.org_id, so row-level
   * security applies. `genericPlans`: prepared statements reuse one plan instead of being planned
   * again at every execution (for statements whose custom plans cost more to make than to run).
   */
  tenant<T>(orgId: string, fn: (tx: Tx) => Promise<T>, options?: { genericPlans?: boolean }): Promise<T>
  /** true when the database answers a trivial query within the timeout. */
  ping(): Promise<boolean>
  close(): Promise<void>
}

export type DbOptions = {
  /** postgres:// URL of a real server; without it an embedded PGlite is used. */
  url?: string
  /** PGlite data folder; 'memory://' for a throw-away in-memory database. */
  dataDir?: string
  poolMax?: number
  timeoutMs?: number
  log?: Logger
}

export async function openDb(options: DbOptions): Promise<Db> {
  const timeoutMs = options.timeoutMs ?? 5000
  if (options.url) {
    const sql = postgres(options.url, {
      max: options.poolMax ?? 10,
      connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
      idle_timeout: 60,
      // postgres.js backs off up to 20 s between reconnects after errors; after an outage the
      // service should be back within a second of the database.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      onnotice: () => {},
      // A query that waits on a lock or a sick server must end so the request can answer 503.
      connection: { statement_timeout: timeoutMs, application_name: 'bss' },
    })
    return wrap('postgres', withDeadline(sql, timeoutMs), timeoutMs, async () => {
      await sql.end({ timeout: 5 })
    })
  }
  return openPglite(options.dataDir ?? './data', timeoutMs, options.log)
}

async function openPglite(dataDir: string, timeoutMs: number, log?: Logger): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  const inMemory = dataDir === 'memory://'
  if (!inMemory) mkdirSync(resolve(dataDir), { recursive: true })
  // Before PGlite touches the folder: a second process on it would silently diverge (issue 16).
  const unlock = inMemory ? () => {} : lockDataDir(resolve(dataDir))
  let pg: Awaited<ReturnType<typeof PGlite.create>>
  try {
    pg = inMemory ? await PGlite.create() : await PGlite.create(resolve(dataDir))
  } catch (error) {
    unlock()
    throw error
  }
  // PGlite speaks the wire protocol through a private unix socket, so the same postgres.js
  // code (and SQL) runs on the embedded database and on a real server.
  const socketDir = mkdtempSync(join(tmpdir(), 'bss-pglite-'))
  const socketPath = join(socketDir, '.s.PGSQL')
  const server = new PGLiteSocketServer({ db: pg, path: socketPath })
  await server.start()
  const sql = postgres({
    path: socketPath,
    user: 'postgres',
    database: 'postgres',
    max: 1, // PGlite is single-connection: postgres.js queues the rest.
    onnotice: () => {},
  })
  log?.debug('embedded database opened', { data_dir: inMemory ? 'memory' : resolve(dataDir) })
  return wrap('pglite', sql, timeoutMs, async () => {
    await sql.end({ timeout: 5 })
    await server.stop()
    await pg.close()
    rmSync(socketDir, { recursive: true, force: true })
    unlock()
  })
}

function wrap(kind: Db['kind'], sql: Sql, timeoutMs: number, close: () => Promise<void>): Db {
  return {
    kind,
    sql,
    tenant: (orgId, fn, options) =>
      sql.begin(async (tx) => {
        // Row-level security (sql/0002): inside this transaction only orgId's rows exist.
        if (options?.genericPlans)
          await tx`select set_config('app.org_id', ${orgId}, true), set_config('role', 'bss_tenant', true),
            set_config('plan_cache_mode', 'force_generic_plan', true)`
        else await tx`select set_config('app.org_id', ${orgId}, true), set_config('role', 'bss_tenant', true)`
        return fn(tx)
      }) as Promise<any>,
    ping: async () => {
      try {
        await withTimeout(sql`select 1`.execute(), timeoutMs)
        return true
      } catch {
        return false
      }
    },
    close,
  }
}

/**
 * While the server is gone, postgres.js queues queries until a connection comes back, however long
 * that takes. Every query and transaction on the server gets a deadline instead, so a request answers
 * 503 within DB_TIMEOUT_MS. A transaction that only gets its connection after the deadline rolls back
 * rather than doing work nobody waits for.
 */
function withDeadline(sql: Sql, ms: number): Sql {
  const guardQuery = (query: any) => {
    const then = query.then
    // biome-ignore lint/suspicious/noThenProperty: the query stays a thenable; only its then gets the deadline
    query.then = (onFulfilled?: any, onRejected?: any) =>
      withTimeout(
        then.call(query, (v: unknown) => v),
        ms
      ).then(onFulfilled, onRejected)
    return query
  }
  const begin = (...args: any[]) => {
    const deadline = Date.now() + ms
    const fn = args[args.length - 1] as (tx: Tx) => Promise<unknown>
    args[args.length - 1] = (tx: Tx) => {
      if (Date.now() > deadline) throw timeoutError()
      return fn(tx)
    }
    return withTimeout((sql.begin as any)(...args), ms)
  }
  return new Proxy(sql, {
    apply(target, thisArg, args) {
      const result = Reflect.apply(target as any, thisArg, args)
      // Only tagged-template queries are promises; sql(value) helpers are not.
      return result instanceof Promise ? guardQuery(result) : result
    },
    get(target, prop, receiver) {
      return prop === 'begin' ? begin : Reflect.get(target, prop, receiver)
    },
  }) as Sql
}

const timeoutError = () => Object.assign(new Error('database timeout'), { code: 'DB_TIMEOUT' })

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
