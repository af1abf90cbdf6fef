import { extractFeatures } from '../scoring/features'
import { provisionDemo, syncPlans } from '../../tenants/provision'
import { buildApp } from './app'
import { startJobs } from './jobs'
import { passwords } from './modules/auth'
import { outboxMailer } from './modules/mail'
import { assets } from './modules/web/assets'
import { createAccessTokens } from './platform/access-token'
import { systemClock } from './platform/clock'
import { type Config, ConfigError, loadConfig } from './platform/config'
import { DataDirLockedError, type Db, openDb } from './platform/db'
import { migrate } from './platform/db/migrate'
import { isDatabaseUnavailable } from './platform/errors'
import { createLogger, type Logger } from './platform/log'
import { smtpMailer } from './platform/mailer'
import { MemoryRateLimiter, type RateLimiter } from './platform/ratelimit'
import { createServices } from './services'

/**
 * The process: config, database and migrations, services, jobs, the listener, and a graceful
 * shutdown. Everything with a side effect at start-up is started here, nowhere else.
 */

async function main() {
  let config: Config
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(78)
    }
    throw error
  }
  const log = createLogger(config.logLevel)
  const db = await openDatabase(config, log)
  await syncPlans(db.sql)

  let limiter: RateLimiter = new MemoryRateLimiter()
  if (config.redisUrl) {
    const { RedisRateLimiter } = await import('./platform/ratelimit-redis')
    limiter = new RedisRateLimiter(config.redisUrl)
  }
  const services = createServices({
    config,
    db,
    log,
    clock: systemClock,
    mailer: config.smtpUrl ? await smtpMailer(config.smtpUrl, config.mailFrom) : outboxMailer(db.sql, log),
    limiter,
    tokens: createAccessTokens(config.jwtSecret),
  })
  const app = buildApp(services)
  const stopJobs = startJobs(services)
  // Computed now so the first unknown-email login is not slower than the rest.
  passwords.dummyHash().catch(() => {})
  // Built in the background so the first visitor does not wait for the bundles (tests build on first use).
  if (config.env !== 'test') assets().catch((error) => log.error('web bundle build failed', { error: String(error) }))
  // Signal handlers go in before the port opens: a SIGTERM right after start is still graceful.
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal, drain_ms: config.shutdownDrainMs })
    services.lifecycle.draining = true
    if (config.shutdownDrainMs > 0) await Bun.sleep(config.shutdownDrainMs)
    // Bun's stop() without force lets in-flight requests finish and refuses new connections.
    const forced = setTimeout(() => app.server?.stop(true), config.shutdownGraceMs)
    await app.stop()
    clearTimeout(forced)
    stopJobs()
    await services.limiter.close?.()
    await db.close()
    log.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  app.listen({ port: config.port, hostname: config.host })
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${app.server!.port}`
  log.info('listening', { url, database: db.kind, mail: services.mailer.transport, env: config.env })

  if (db.kind === 'pglite' && config.env !== 'production') {
    const demo = await provisionDemo(db.sql, config.dataDir)
    if (demo) printDemo(url, demo)
  }
}

/** Exit codes (sysexits.h), listed in the README: a supervisor can tell "retry later" from "fix the config". */
const EXIT = { unavailable: 69, dataDirLocked: 73, config: 78 } as const

// Errors of the connection itself (not of a statement): the database does not exist, or refuses us.
const CONNECT_REFUSED = new Set(['3D000', '28P01', '28000'])

/** Host, port and database of DATABASE_URL, without the password, for the log. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || 5432}${u.pathname}`
  } catch {
    return 'DATABASE_URL'
  }
}

/**
 * Opens the database and applies the migrations. A database that cannot be reached, and a DATA_DIR
 * another instance holds, end the process with one log line and their own exit code, not a stack.
 */
async function openDatabase(config: Config, log: Logger): Promise<Db> {
  let db: Db | undefined
  try {
    db = await openDb({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      poolMax: config.dbPoolMax,
      timeoutMs: config.dbTimeoutMs,
      log,
    })
    await migrate(db, log)
    return db
  } catch (error) {
    const e = error as { message?: string; code?: string }
    const where = config.databaseUrl ? describeUrl(config.databaseUrl) : `PGlite in ${config.dataDir}`
    if (error instanceof DataDirLockedError) {
      log.error('DATA_DIR is locked by another instance', { error: e.message })
      process.exit(EXIT.dataDirLocked)
    }
    if (isDatabaseUnavailable(error) || CONNECT_REFUSED.has(e.code ?? '')) {
      log.error('database unreachable, not starting', { database: where, error: `${e.code ?? ''} ${e.message ?? error}`.trim() })
      process.exit(EXIT.unavailable)
    }
    log.error('database start-up failed', { database: where, error: String(e.message ?? error) })
    await db?.close().catch(() => {})
    process.exit(1)
  }
}

function printDemo(url: string, demo: { org_id: string; email: string; password: string; public_key: string; secret_key: string }) {
  const sessionId = crypto.randomUUID()
  // The vector the SDK computes for no events (statistics of absent events are -1): the first try then
  // answers insufficient_data. Zeros claim statistics of events never sent, which scores as a bot.
  const features = JSON.stringify(extractFeatures([]))
  // Printed on purpose, development only: these are the demo organization's own keys.
  console.log(`
Demo organization ready (development only, stored in DATA_DIR/demo-credentials.json)
  dashboard login : ${demo.email} / ${demo.password}   (${url}/dashboard)
  demo page       : ${url}/demo   (the SDK with the public key below; move, type, scroll, then ask for the verdict)
  API reference   : ${url}/docs
  public key      : ${demo.public_key}
  secret key      : ${demo.secret_key}

Try it:
  curl -s ${url}/v1/ingest -H 'Content-Type: application/json' -H 'X-API-Key: ${demo.secret_key}' \\
    -d '{"session_id":"${sessionId}","sdk_type":"server","captured_at":"'$(date -u +%Y-%m-%dT%H:%M:%SZ)'","signals":[],"features":${features}}'
  curl -s ${url}/v1/session/${sessionId} -H 'X-API-Key: ${demo.secret_key}'
`)
}

await main()
