import * as v from 'valibot'
import { parseTrustProxy, type TrustProxy } from './client-ip'

const DEV_JWT_SECRET = 'dev-only-jwt-secret-do-not-use-in-production'

const bool = v.pipe(
  v.picklist(['true', 'false', '1', '0', 'yes', 'no']),
  v.transform((s) => s === 'true' || s === '1' || s === 'yes')
)
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
  JWT_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters')), DEV_JWT_SECRET),
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
}

export class ConfigError extends Error {}

/** Reads and validates the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''))
  const parsed = v.safeParse(EnvSchema, present)
  if (!parsed.success) {
    const lines = parsed.issues.map((issue) => `  ${v.getDotPath(issue) ?? '?'}: ${issue.message}`)
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.output
  if (e.NODE_ENV === 'production') {
    // A production deployment must never run with a secret that is public in this repository.
    if (e.JWT_SECRET === DEV_JWT_SECRET)
      throw new ConfigError('invalid configuration:\n  JWT_SECRET: must be set to a private value in production')
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    dbPoolMax: e.DB_POOL_MAX,
    dbTimeoutMs: e.DB_TIMEOUT_MS,
    jwtSecret: e.JWT_SECRET,
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
  }
}
