import type { Sql, Tx } from '../../platform/db'
import type { SdkType } from '../../platform/contract'

/** The only file that names api_key_pairs in SQL. */

type Q = Sql | Tx

export type KeyPairRow = {
  org_id: string
  key_pair_id: string
  name: string
  sdk_type: SdkType
  public_key: string
  allowed_origins: string[]
  created_at: Date
  last_used_at: Date | null
  revoked_at: Date | null
  /** Until when the secret replaced by the last rotation still works (null: no grace period). */
  previous_secret_expires_at: Date | null
}

const COLUMNS = [
  'org_id',
  'key_pair_id',
  'name',
  'sdk_type',
  'public_key',
  'allowed_origins',
  'created_at',
  'last_used_at',
  'revoked_at',
  'previous_secret_expires_at',
]

/** Serialises key creation per organization (pg_advisory_xact_lock's first key: this table's lock space). */
const CREATE_LOCK = 727274102

/**
 * Inserts a key pair unless the organization already has `maxActive` active ones; null then. Must
 * run inside a transaction: the advisory lock is held until it ends, and the count is a new
 * statement after the lock, so it sees every pair a concurrent creation committed before.
 */
export async function insertKeyPairWithinLimit(
  tx: Tx,
  k: { orgId: string; keyPairId: string; name: string; sdkType: SdkType; publicKey: string; secretHash: string; allowedOrigins: string[] },
  maxActive: number
): Promise<KeyPairRow | null> {
  await tx`select pg_advisory_xact_lock(${CREATE_LOCK}, hashtext(${k.orgId}))`
  const [row]: [KeyPairRow?] = await tx`
    insert into api_key_pairs (org_id, key_pair_id, name, sdk_type, public_key, secret_hash, allowed_origins)
    select ${k.orgId}, ${k.keyPairId}, ${k.name}, ${k.sdkType}, ${k.publicKey}, ${k.secretHash}, ${tx.array(k.allowedOrigins)}
    where (select count(*) from api_key_pairs where org_id = ${k.orgId} and revoked_at is null) < ${maxActive}
    returning ${tx(COLUMNS)}`
  return row ?? null
}

/**
 * One page, oldest first; `after` is the last keyPairId of the previous page. Keyset pagination on
 * (created_at, key_pair_id), compared in SQL (a JS Date would drop created_at's microseconds), so
 * pages stay stable while pairs are added or revoked. An `after` of no pair here gives no rows.
 */
export function listKeyPairs(
  sql: Q,
  orgId: string,
  page: { first: number; after: string | null; includeRevoked: boolean } = { first: 100, after: null, includeRevoked: true }
): Promise<KeyPairRow[]> {
  return sql<KeyPairRow[]>`
    select ${sql(COLUMNS)} from api_key_pairs
    where org_id = ${orgId}
      ${page.includeRevoked ? sql`` : sql`and revoked_at is null`}
      ${
        page.after
          ? sql`and (created_at, key_pair_id) > (
                  select created_at, key_pair_id from api_key_pairs where org_id = ${orgId} and key_pair_id = ${page.after})`
          : sql``
      }
    order by created_at, key_pair_id
    limit ${page.first}`
}

export async function findKeyPair(sql: Q, orgId: string, keyPairId: string): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    select ${sql(COLUMNS)} from api_key_pairs where org_id = ${orgId} and key_pair_id = ${keyPairId}`
  return row ?? null
}

export async function revokeKeyPair(sql: Q, orgId: string, keyPairId: string): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    update api_key_pairs set revoked_at = coalesce(revoked_at, now())
    where org_id = ${orgId} and key_pair_id = ${keyPairId}
    returning ${sql(COLUMNS)}`
  return row ?? null
}

/**
 * Replaces the secret. With a grace period the old hash moves to previous_secret_hash and keeps
 * working until now() + graceSeconds (the database's clock, the one lookups compare against);
 * without one, or on a later rotation, the older secret is dropped at once.
 */
export async function replaceSecret(
  sql: Q,
  orgId: string,
  keyPairId: string,
  secretHash: string,
  graceSeconds: number
): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    update api_key_pairs set
      previous_secret_hash = case when ${graceSeconds}::int > 0 then secret_hash end,
      previous_secret_expires_at = case when ${graceSeconds}::int > 0 then now() + ${graceSeconds}::int * interval '1 second' end,
      secret_hash = ${secretHash},
      rotated_at = now()
    where org_id = ${orgId} and key_pair_id = ${keyPairId} and revoked_at is null
    returning ${sql(COLUMNS)}`
  return row ?? null
}

export async function updateAllowedOrigins(sql: Q, orgId: string, keyPairId: string, origins: string[]): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    update api_key_pairs set allowed_origins = ${sql.array(origins)}
    where org_id = ${orgId} and key_pair_id = ${keyPairId} and revoked_at is null
    returning ${sql(COLUMNS)}`
  return row ?? null
}

export type ActiveKey = {
  org_id: string
  key_pair_id: string
  allowed_origins: string[]
  secret_hash: string | null
  /** Set when the secret matched is a rotated-out one in its grace period: it stops then. */
  valid_until: Date | null
}

/**
 * Credential lookups arrive without an organization: by the public key, or by the secret's SHA-256,
 * which may be the current secret or, until its grace period ends, the one it replaced.
 */
export async function findActiveKey(sql: Q, kind: 'public' | 'secret', value: string): Promise<ActiveKey | null> {
  const rows =
    kind === 'public'
      ? await sql<ActiveKey[]>`
          select org_id, key_pair_id, allowed_origins, null as secret_hash, null as valid_until
          from api_key_pairs where public_key = ${value} and revoked_at is null`
      : await sql<ActiveKey[]>`
          select org_id, key_pair_id, allowed_origins, secret_hash, null as valid_until
          from api_key_pairs where secret_hash = ${value} and revoked_at is null
          union all
          select org_id, key_pair_id, allowed_origins, previous_secret_hash, previous_secret_expires_at
          from api_key_pairs
          where previous_secret_hash = ${value} and previous_secret_expires_at > now() and revoked_at is null`
  return rows[0] ?? null
}

export async function touchLastUsed(sql: Q, orgId: string, keyPairId: string): Promise<void> {
  await sql`update api_key_pairs set last_used_at = now()
            where org_id = ${orgId} and key_pair_id = ${keyPairId}
              and (last_used_at is null or last_used_at < now() - interval '1 minute')`
}

/** The public key a page should use for an organization: its first active web key, else its first active key. */
export async function findPagePublicKey(sql: Q, orgId: string): Promise<string | null> {
  const [row]: [{ public_key: string }?] = await sql`
    select public_key from api_key_pairs
    where org_id = ${orgId} and revoked_at is null
    order by (sdk_type = 'web') desc, created_at asc
    limit 1`
  return row?.public_key ?? null
}
