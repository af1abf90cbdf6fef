import { buildApp } from '../../src/server/app'
import { loadConfig, type Config } from '../../src/server/platform/config'
import { createAccessTokens } from '../../src/server/platform/access-token'
import type { Clock } from '../../src/server/platform/clock'
import { createLogger } from '../../src/server/platform/log'
import { createAccount, passwords } from '../../src/server/modules/auth'
import { outboxMailer } from '../../src/server/modules/mail'
import { MemoryRateLimiter } from '../../src/server/platform/ratelimit'
import { createKeyPair } from '../../src/server/modules/keys'
import { createServices, type Services } from '../../src/server/services'
import { syncPlans } from '../../tenants/provision'
import { createTestDb, type TestDb } from './db'

/** A clock tests can move forward. */
export class TestClock implements Clock {
  constructor(public current = new Date()) {}
  now = () => new Date(this.current.getTime())
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms)
  }
}

export type SeededOrg = {
  orgId: string
  userId: string
  email: string
  password: string
  publicKey: string
  secretKey: string
  keyPairId: string
  /** Bearer access token of the org's owner. */
  jwt: string
}

export type Harness = {
  /** Every service, built once by createServices as main.ts does. */
  deps: Services
  app: ReturnType<typeof buildApp>
  testDb: TestDb
  clock: TestClock
  /** Every log line the app wrote (JSON strings). */
  logs: string[]
  a: SeededOrg
  b: SeededOrg
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string>; rawBody?: string }): Promise<Response>
  json<T = any>(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string>; rawBody?: string }
  ): Promise<{ status: number; body: T; headers: Headers }>
  seedOrg(name: string, planId?: string): Promise<SeededOrg>
  close(): Promise<void>
}

export type HarnessOptions = {
  env?: Record<string, string>
  seed?: boolean
  /** Use this (already migrated) database instead of a fresh one; the caller closes it. */
  testDb?: TestDb
}

/**
 * One app on a fresh database with two seeded organizations (A and B), so that every
 * cross-tenant test is a one-liner. Requests go through app.handle (no socket).
 */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const testDb = options.testDb ?? (await createTestDb())
  const config: Config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', ...options.env })
  const logs: string[] = []
  const log = createLogger(config.logLevel, (line) => logs.push(line))
  const clock = new TestClock()
  await syncPlans(testDb.db.sql)
  const deps = createServices({
    config,
    db: testDb.db,
    log,
    clock,
    mailer: outboxMailer(testDb.db.sql, log),
    limiter: new MemoryRateLimiter(() => clock.now().getTime()),
    tokens: createAccessTokens(config.jwtSecret),
  })
  const app = buildApp(deps)

  const secrets = new SecretLedger()
  const pending: Promise<unknown>[] = []
  const request: Harness['request'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers }
    let body: string | undefined = init.rawBody
    if (init.body !== undefined) {
      body = JSON.stringify(init.body)
      headers['content-type'] ??= 'application/json'
    }
    secrets.fromText(body)
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    pending.push(
      res
        .clone()
        .text()
        .then(
          (text) => secrets.fromText(text),
          () => {}
        )
    )
    return res
  }
  const json: Harness['json'] = async (method, path, init) => {
    const res = await request(method, path, init)
    const text = await res.text()
    let parsed: any = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers }
  }

  const seedOrg = async (name: string, planId = 'free'): Promise<SeededOrg> => {
    const sql = testDb.db.sql
    // The org-and-owner path of sign-up and dev provisioning, verified at once.
    const email = `owner-${crypto.randomUUID().slice(0, 8)}@${name.toLowerCase().replace(/[^a-z0-9]/g, '') || 'org'}.test`
    const password = 'correct-horse-battery'
    const passwordHash = await passwords.hash(password)
    const account = await sql.begin((tx) =>
      createAccount(tx, { email, name: `${name} Owner`, passwordHash, organizationName: name, planId, verifiedAt: new Date() })
    )
    if (!account) throw new Error(`seedOrg: ${email} exists already`)
    const { orgId, userId } = account
    const { keyPair, secretKey } = await createKeyPair(sql, orgId, { name: `${name} key`, sdkType: 'web' })
    const jwt = await deps.tokens.sign({ sub: userId, org: orgId, role: 'owner' })
    secrets.add(secretKey, jwt, password)
    return { orgId, userId, email, password, publicKey: keyPair.public_key, secretKey, keyPairId: keyPair.key_pair_id, jwt }
  }

  const seed = options.seed !== false
  const a = seed ? await seedOrg('Org A') : (undefined as unknown as SeededOrg)
  const b = seed ? await seedOrg('Org B') : (undefined as unknown as SeededOrg)

  return {
    deps,
    app,
    testDb,
    clock,
    logs,
    a,
    b,
    request,
    json,
    seedOrg,
    close: async () => {
      await deps.limiter.close?.()
      await testDb.drop()
      // Every key, token, password and one-time code this file saw must be absent from the app's log.
      await Promise.all(pending)
      const leaked = secrets.foundIn(logs.join('\n'))
      if (leaked.length) throw new Error(`secrets leaked into the log: ${leaked.join(', ')}`)
    },
  }
}

const SECRET_FIELDS = /^(access_token|refresh_token|secret_key|secretKey|password|code)$/

/**
 * Words fuzzers use as values because objects have them as keys (`constructor`, `toString`, …).
 * fast-check puts them into any string, an e-mail address's local part included, so a fuzzed
 * password `constructor` "occurred" in the log inside an address: they are never secrets.
 */
const PUBLIC_WORDS = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Function.prototype),
  'prototype',
])

/** Collects every secret a test sends or receives, to prove none of them reaches the log. */
class SecretLedger {
  private values = new Map<string, string>()

  add(...values: string[]) {
    for (const v of values) if (v && v.length >= 6) this.remember(v, 'seeded credential')
  }

  private remember(value: string, kind: string) {
    if (!PUBLIC_WORDS.has(value)) this.values.set(value, kind)
  }

  fromText(text: string | undefined) {
    if (!text) return
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return
    }
    this.walk(parsed, 0)
  }

  private walk(value: unknown, depth: number) {
    if (depth > 20 || value === null || typeof value !== 'object') return
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      // `code` is a one-time code only when it is six digits (error envelopes have a `code` too).
      if (typeof v === 'string' && SECRET_FIELDS.test(key) && (key === 'code' ? /^\d{6}$/.test(v) : v.length >= 6)) this.remember(v, key)
      // Mails in the dev outbox carry one-time codes in their text.
      if (typeof v === 'string' && key === 'text') for (const code of v.match(/\b\d{6}\b/g) ?? []) this.values.set(code, 'mailed code')
      this.walk(v, depth + 1)
    }
  }

  /** Names (never values) of the secrets that occur in text. */
  foundIn(text: string): string[] {
    const found: string[] = []
    for (const [value, kind] of this.values) {
      // A 6-digit code may occur inside a UUID by chance: only a standalone occurrence counts.
      const pattern = /^\d{6}$/.test(value) ? new RegExp(`(?<![0-9a-f-])${value}(?![0-9a-f-])`) : null
      if (pattern ? pattern.test(text) : text.includes(value)) found.push(kind)
    }
    return found
  }
}

/** A minimal valid server-side ingest batch (two moves, a constant vector) for tests about access, not scoring. */
export function tinyBatch(h: Harness, overrides: Record<string, unknown> = {}) {
  return {
    session_id: crypto.randomUUID(),
    sdk_type: 'server',
    captured_at: h.clock.now().toISOString(),
    signals: [
      { t: 0, k: 'mm', x: 1, y: 2 },
      { t: 16, k: 'mm', x: 5, y: 4 },
    ],
    features: Array(34).fill(0.1),
    ...overrides,
  }
}
