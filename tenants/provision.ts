import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import type { Sql, Tx } from '../src/server/platform/db'
import { createKeyPair } from '../src/server/modules/keys/service'

const PlanSchema = v.object({
  plan_id: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_-]{0,31}$/)),
  display_name: v.pipe(v.string(), v.minLength(1)),
  sessions_limit: v.pipe(v.number(), v.integer(), v.minValue(0)),
  rate_limit_per_minute: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
})
const CatalogSchema = v.object({ plans: v.pipe(v.array(PlanSchema), v.minLength(1)) })
export type Plan = v.InferOutput<typeof PlanSchema>

export function loadPlanCatalog(file = join(import.meta.dir, 'plans.json')): Plan[] {
  return v.parse(CatalogSchema, JSON.parse(readFileSync(file, 'utf8'))).plans
}

/** Upserts the catalog into the plans table so limits change with a deploy, not by hand. */
export async function syncPlans(sql: Sql, plans: Plan[] = loadPlanCatalog()): Promise<void> {
  for (const p of plans) {
    await sql`
      insert into plans (plan_id, display_name, sessions_limit, rate_limit_per_minute)
      values (${p.plan_id}, ${p.display_name}, ${p.sessions_limit}, ${p.rate_limit_per_minute ?? null})
      on conflict (plan_id) do update set display_name = excluded.display_name,
        sessions_limit = excluded.sessions_limit, rate_limit_per_minute = excluded.rate_limit_per_minute, updated_at = now()`
  }
}

export async function createOrganization(sql: Sql | Tx, input: { name: string; planId?: string }): Promise<string> {
  const orgId = crypto.randomUUID()
  await sql`insert into organizations (org_id, name, plan_id) values (${orgId}, ${input.name}, ${input.planId ?? 'free'})`
  return orgId
}

export async function createUser(
  sql: Sql | Tx,
  input: { orgId: string; email: string; password: string; name?: string; role?: 'owner' | 'admin' | 'member'; verified?: boolean }
): Promise<string> {
  const userId = crypto.randomUUID()
  const hash = await Bun.password.hash(input.password, { algorithm: 'argon2id' })
  await sql`insert into users (user_id, email, name, password_hash, email_verified_at)
            values (${userId}, ${input.email.toLowerCase()}, ${input.name ?? null}, ${hash}, ${input.verified === false ? null : new Date()})`
  await sql`insert into memberships (org_id, user_id, role) values (${input.orgId}, ${userId}, ${input.role ?? 'owner'})`
  return userId
}

const DevSchema = v.object({
  organization: v.object({ name: v.string(), plan_id: v.string() }),
  user: v.object({ email: v.pipe(v.string(), v.email()), password: v.pipe(v.string(), v.minLength(10)), name: v.string() }),
  key_pair: v.object({ name: v.string(), sdk_type: v.picklist(['web', 'ios', 'android', 'server']) }),
})

export type DemoCredentials = { org_id: string; email: string; password: string; public_key: string; secret_key: string }

/**
 * Development only: on an empty database, creates the demo organization from tenants/dev.json.
 * The secret key exists in plaintext only here, so it is kept in DATA_DIR (mode 0600) for later starts.
 */
export async function provisionDemo(sql: Sql, dataDir: string): Promise<DemoCredentials | null> {
  const file = join(dataDir, 'demo-credentials.json')
  const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from organizations`
  if (count > 0) return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials) : null
  const dev = v.parse(DevSchema, JSON.parse(readFileSync(join(import.meta.dir, 'dev.json'), 'utf8')))
  const creds = await sql.begin(async (tx) => {
    const orgId = await createOrganization(tx, { name: dev.organization.name, planId: dev.organization.plan_id })
    await createUser(tx, { orgId, email: dev.user.email, password: dev.user.password, name: dev.user.name })
    const { keyPair, secretKey } = await createKeyPair(tx, orgId, { name: dev.key_pair.name, sdkType: dev.key_pair.sdk_type })
    return { org_id: orgId, email: dev.user.email, password: dev.user.password, public_key: keyPair.public_key, secret_key: secretKey }
  })
  writeFileSync(file, JSON.stringify(creds, null, 2))
  chmodSync(file, 0o600)
  return creds
}
