import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as v from 'valibot'
import { addUser, createAccount, passwords } from '../src/server/modules/auth'
import { createKeyPair } from '../src/server/modules/keys'
import { countOrganizations, createOrganization as createOrg, upsertPlans } from '../src/server/modules/org'
import { SDK_TYPES } from '../src/server/platform/contract'
import type { Sql, Tx } from '../src/server/platform/db'

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

/** Upserts the catalog into the plans table (org module) so limits change with a deploy, not by hand. */
export async function syncPlans(sql: Sql, plans: Plan[] = loadPlanCatalog()): Promise<void> {
  await upsertPlans(sql, plans)
}

/** An organization without members (tests and benchmarks); accounts with an owner come from createAccount. */
export function createOrganization(sql: Sql | Tx, input: { name: string; planId?: string }): Promise<string> {
  return createOrg(sql, input)
}

/** A verified user with a password in an existing organization (tests: members and admins). */
export function createUser(
  sql: Sql | Tx,
  input: { orgId: string; email: string; password: string; name?: string; role?: 'owner' | 'admin' | 'member'; verified?: boolean }
): Promise<string> {
  return addUser(sql, input)
}

const DevSchema = v.object({
  organization: v.object({ name: v.string(), plan_id: v.string() }),
  user: v.object({ email: v.pipe(v.string(), v.email()), password: v.pipe(v.string(), v.minLength(10)), name: v.string() }),
  key_pair: v.object({ name: v.string(), sdk_type: v.picklist(SDK_TYPES) }),
})

export type DemoCredentials = { org_id: string; email: string; password: string; public_key: string; secret_key: string }

/**
 * Development only: on an empty database, creates the demo organization from tenants/dev.json.
 * The secret key exists in plaintext only here, so it is kept in DATA_DIR (mode 0600) for later starts.
 */
export async function provisionDemo(sql: Sql, dataDir: string): Promise<DemoCredentials | null> {
  const file = join(dataDir, 'demo-credentials.json')
  if ((await countOrganizations(sql)) > 0) return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials) : null
  const dev = v.parse(DevSchema, JSON.parse(readFileSync(join(import.meta.dir, 'dev.json'), 'utf8')))
  const passwordHash = await passwords.hash(dev.user.password)
  const creds = await sql.begin(async (tx) => {
    // The same org-and-owner path as sign-up, already verified and on the plan dev.json names.
    const account = await createAccount(tx, {
      email: dev.user.email.toLowerCase(),
      name: dev.user.name,
      passwordHash,
      organizationName: dev.organization.name,
      planId: dev.organization.plan_id,
      verifiedAt: new Date(),
    })
    if (!account) throw new Error(`tenants/dev.json: the user ${dev.user.email} exists already`)
    const { orgId } = account
    const { keyPair, secretKey } = await createKeyPair(tx, orgId, { name: dev.key_pair.name, sdkType: dev.key_pair.sdk_type })
    return { org_id: orgId, email: dev.user.email, password: dev.user.password, public_key: keyPair.public_key, secret_key: secretKey }
  })
  // Written whole and private from the start, then renamed into place: a reader (the demo page, a script
  // waiting for the file) never sees it half-written, and the secret key is never readable by others.
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(creds, null, 2), { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, file)
  return creds
}
