import { randomBytes } from 'node:crypto'
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import * as v from 'valibot'
import { parseTrustProxy, type TrustProxy } from './client-ip'

// The development default of earlier versions. It is public (it is in this repository's history), so
// a token signed with it proves nothing: it is refused as JWT_SECRET everywhere (issue 15, item 5).
const PUBLIC_DEV_JWT_SECRET = 'dev-only-jwt-secret-do-not-use-in-production'
export const JWT_SECRET_FILE = 'jwt-secret'

const int = (min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(min), v.maxValue(max))

const EnvSchema = v.object({
  NODE_ENV: v.optional(v.picklist(['development', 'production', 'test']), 'development'),
  PORT: v.optional(int(0, 65535), '3000'),
  HOST: v.optional(v.pipe(v.string(), v.minLength(1)), '0.0.0.0'),
  DATABASE_URL: v.optional(v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'))),
  DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), './data'),
  DB_POOL_MAX: v.optional(int(1, 200), '10'),
  DB_TIMEOUT_MS: v.optional(int(100, 120_000), '5000'),
  JWT_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  SMTP_URL: v.optional(v.pipe(v.string(), v.regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL'))),
  MAIL_FROM: v.optional(v.pipe(v.string(), v.email()), 'no-reply@bss.local'),
  SUPPORT_EMAIL: v.optional(v.pipe(v.string(), v.email()), 'support@bss.local'),
  LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  REDIS_URL: v.optional(v.pipe(v.string(), v.regex(/^rediss?:\/\//, 'must be a redis:// URL'))),
  TRUST_PROXY: v.optional(
    v.pipe(
      v.string(),
      v.transform(parseTrustProxy),
      v.check((t): t is TrustProxy => !('error' in t), 'must be true, false, a hop count 0–16, or proxy IPs/CIDRs'),
      v.transform((t) => t as TrustProxy)
    ),
    'false'
  ),
  RETENTION_DAYS: v.optional(int(1, 3650), '30'),
  BODY_LIMIT_BYTES: v.optional(int(1024, 64 * 1024 * 1024), String(1024 * 1024)),
  KEY_CACHE_TTL_MS: v.optional(int(0, 5000), '4000'),
  RATE_LIMIT_KEY_PER_MIN: v.optional(int(1, 1_000_000), '1200'),
  RATE_LIMIT_ORG_PER_MIN: v.optional(int(1, 10_000_000), '6000'),
  RATE_LIMIT_IP_PER_MIN: v.optional(int(1, 1_000_000), '60'),
  RATE_LIMIT_AUTH_PER_MIN: v.optional(int(1, 1_000_000), '20'),
  RATE_LIMIT_GRAPHQL_PER_MIN: v.optional(int(1, 1_000_000), '120'),
  SHUTDOWN_GRACE_MS: v.optional(int(0, 600_000), '10000'),
  SHUTDOWN_DRAIN_MS: v.optional(int(0, 600_000), '0'),
  MAX_IN_FLIGHT: v.optional(int(0, 100_000), '128'),
})

export type Config = {
  env: 'development' | 'production' | 'test'
  port: number
  host: string
  databaseUrl?: string
  dataDir: string
  dbPoolMax: number
  dbTimeoutMs: number
  jwtSecret: string
  smtpUrl?: string
  mailFrom: string
  supportEmail: string
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  redisUrl?: string
  /** Proxies trusted to append X-Forwarded-For (platform/client-ip.ts). */
  trustProxy: TrustProxy
  retentionDays: number
  bodyLimitBytes: number
  keyCacheTtlMs: number
  rateLimits: {
    keyPerMin: number
    orgPerMin: number
    ipPerMin: number
    authPerMin: number
    /** /graphql per dashboard user; the organization gets five times this */
    graphqlPerMin: number
  }
  shutdownGraceMs: number
  shutdownDrainMs: number
  /** Requests worked on at once before new ones get 503 (http/admission.ts); 0 turns shedding off. */
  maxInFlight: number
}

export class ConfigError extends Error {}

// Tests without JWT_SECRET share one random secret per process (every harness in a file agrees).
let testJwtSecret: string | undefined

/**
 * Reads and validates the environment; throws ConfigError listing every bad variable.
 * Without JWT_SECRET, development uses the random secret kept in DATA_DIR (created on first start:
 * the one file this function may write) and tests a random one per process; production refuses.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''))
  const parsed = v.safeParse(EnvSchema, present)
  if (!parsed.success) {
    const lines = parsed.issues.map((issue) => `  ${v.getDotPath(issue) ?? '?'}: ${issue.message}`)
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.output
  if (e.JWT_SECRET === PUBLIC_DEV_JWT_SECRET)
    throw new ConfigError(
      'invalid configuration:\n  JWT_SECRET: is the public development default; set a private value (or none in development)'
    )
  if (!e.JWT_SECRET && e.NODE_ENV === 'production')
    throw new ConfigError('invalid configuration:\n  JWT_SECRET: must be set to a private value in production')
  const jwtSecret =
    e.JWT_SECRET ?? (e.NODE_ENV === 'test' ? (testJwtSecret ??= randomBytes(32).toString('base64url')) : dataDirJwtSecret(e.DATA_DIR))
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    dbPoolMax: e.DB_POOL_MAX,
    dbTimeoutMs: e.DB_TIMEOUT_MS,
    jwtSecret,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    supportEmail: e.SUPPORT_EMAIL,
    logLevel: e.LOG_LEVEL,
    redisUrl: e.REDIS_URL,
    trustProxy: e.TRUST_PROXY,
    retentionDays: e.RETENTION_DAYS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    rateLimits: {
      keyPerMin: e.RATE_LIMIT_KEY_PER_MIN,
      orgPerMin: e.RATE_LIMIT_ORG_PER_MIN,
      ipPerMin: e.RATE_LIMIT_IP_PER_MIN,
      authPerMin: e.RATE_LIMIT_AUTH_PER_MIN,
      graphqlPerMin: e.RATE_LIMIT_GRAPHQL_PER_MIN,
    },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    maxInFlight: e.MAX_IN_FLIGHT,
  }
}

/**
 * The development JWT secret of one DATA_DIR: read from DATA_DIR/jwt-secret, or created there
 * (32 random bytes, mode 0600) on first use, so access tokens survive a restart and no two data
 * folders share a secret. Created beside and hard-linked into place, so two processes starting
 * together agree on one value.
 */
export function dataDirJwtSecret(dataDir: string): string {
  const file = join(resolve(dataDir), JWT_SECRET_FILE)
  try {
    return readOrCreateSecret(file)
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError(
      `invalid configuration:\n  JWT_SECRET: unset, and ${file} cannot be read or created (${(error as Error).message}); set JWT_SECRET or a writable DATA_DIR`
    )
  }
}

function readOrCreateSecret(file: string): string {
  mkdirSync(dirname(file), { recursive: true })
  try {
    statSync(file)
  } catch {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
    writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' })
    try {
      linkSync(tmp, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      unlinkSync(tmp)
    }
  }
  // A secret others on the machine can read is no secret: tighten a copied or hand-made file.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  const secret = readFileSync(file, 'utf8').trim()
  if (secret.length < 32) throw new ConfigError(`invalid configuration:\n  JWT_SECRET: ${file} holds fewer than 32 characters`)
  return secret
}
