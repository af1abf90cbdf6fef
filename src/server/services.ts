import { Admission } from './http/admission'
import { findMemberPlan } from './modules/auth'
import { type IdempotencyStore, idempotencyStore } from './modules/idempotency'
import { findActiveKey, touchLastUsed } from './modules/keys'
import { findOrgPlan, planRateLimit } from './modules/org'
import { databaseRateLimiter } from './modules/ratelimit'
import type { AccessTokens } from './platform/access-token'
import type { Clock } from './platform/clock'
import type { Config } from './platform/config'
import type { Db } from './platform/db'
import type { Logger } from './platform/log'
import type { Mailer } from './platform/mailer'
import { type RateLimiter, TieredRateLimiter } from './platform/ratelimit'
import { type CredentialStore, type Credentials, createCredentials } from './plugins/credentials'
import { createRateLimits, type RateLimits } from './plugins/rate-limits'

/** The process's infrastructure, opened by main.ts (or the test harness) before any service exists. */
export type Infra = {
  config: Config
  db: Db
  log: Logger
  clock: Clock
  mailer: Mailer
  limiter: RateLimiter
  tokens: AccessTokens
}

/**
 * Everything built once per process. app.ts hands each module only the members it uses; nothing
 * here is passed to Elysia as a plugin seed (Elysia stringifies seeds for a checksum).
 */
export type Services = Infra & {
  /** Set by main.ts on SIGTERM: /ready answers 503 and responses ask clients to close the connection. */
  lifecycle: { draining: boolean }
  /** Requests this instance is working on; past its bound new ones get 503 (http/admission.ts). */
  admission: Admission
  /** Credential → organization, with the per-instance key cache (plugins/auth). */
  credentials: Credentials
  /** Rate-limit decisions with the per-instance plan cache (plugins/ratelimit). */
  rateLimits: RateLimits
  /** Idempotency-Key storage (plugins/idempotency), in the database every instance shares. */
  idempotency: IdempotencyStore
}

export function createServices(infra: Infra): Services {
  const { db } = infra
  // The credential plugin reads through the tables' owners, so it stays free of SQL and of module imports.
  const store: CredentialStore = {
    async findKey(kind, value) {
      const key = await findActiveKey(db.sql, kind, value)
      const org = key && (await findOrgPlan(db.sql, key.org_id))
      if (!key || !org) return null
      return {
        orgId: key.org_id,
        planId: org.plan_id,
        keyPairId: key.key_pair_id,
        secretHash: key.secret_hash,
        allowedOrigins: key.allowed_origins,
        ...(key.valid_until ? { validUntil: key.valid_until.getTime() } : {}),
      }
    },
    findMember: (orgId, userId) => findMemberPlan(db.sql, orgId, userId),
    touchKey: (orgId, keyPairId) => touchLastUsed(db.sql, orgId, keyPairId),
  }
  // Buckets of 5 minutes or more (per-account login and code limits) live in the database, so a
  // Redis outage or a restart cannot reset them (issue 15, item 8); per-minute ones stay in infra.limiter.
  const limiter = new TieredRateLimiter(infra.limiter, databaseRateLimiter({ db, now: () => infra.clock.now() }))
  return {
    ...infra,
    limiter,
    lifecycle: { draining: false },
    admission: new Admission(infra.config.maxInFlight),
    credentials: createCredentials({ store, config: infra.config, tokens: infra.tokens, log: infra.log }),
    idempotency: idempotencyStore({ db, now: () => infra.clock.now() }),
    rateLimits: createRateLimits({ planRateLimit: (planId) => planRateLimit(db.sql, planId), ...infra, limiter }),
  }
}
