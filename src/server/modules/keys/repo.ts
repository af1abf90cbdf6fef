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
}

const COLUMNS = ['org_id', 'key_pair_id', 'name', 'sdk_type', 'public_key', 'allowed_origins', 'created_at', 'last_used_at', 'revoked_at']

export async function insertKeyPair(
  sql: Q,
  k: { orgId: string; keyPairId: string; name: string; sdkType: SdkType; publicKey: string; secretHash: string; allowedOrigins: string[] }
): Promise<KeyPairRow> {
  const [row] = await sql<KeyPairRow[]>`
    insert into api_key_pairs (org_id, key_pair_id, name, sdk_type, public_key, secret_hash, allowed_origins)
    values (${k.orgId}, ${k.keyPairId}, ${k.name}, ${k.sdkType}, ${k.publicKey}, ${k.secretHash}, ${sql.array(k.allowedOrigins)})
    returning ${sql(COLUMNS)}`
  return row!
}

export function listKeyPairs(sql: Q, orgId: string): Promise<KeyPairRow[]> {
  return sql<KeyPairRow[]>`
    select ${sql(COLUMNS)} from api_key_pairs
    where org_id = ${orgId}
    order by created_at, key_pair_id`
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

export async function replaceSecret(sql: Q, orgId: string, keyPairId: string, secretHash: string): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    update api_key_pairs set secret_hash = ${secretHash}, rotated_at = now()
    where org_id = ${orgId} and key_pair_id = ${keyPairId} and revoked_at is null
    returning ${sql(COLUMNS)}`
  return row ?? null
}

export type ActiveKey = { org_id: string; key_pair_id: string; allowed_origins: string[]; secret_hash: string | null }

/** Credential lookups arrive without an organization: by the public key, or by the secret's SHA-256. */
export async function findActiveKey(sql: Q, kind: 'public' | 'secret', value: string): Promise<ActiveKey | null> {
  const rows =
    kind === 'public'
      ? await sql<ActiveKey[]>`
          select org_id, key_pair_id, allowed_origins, null as secret_hash
          from api_key_pairs where public_key = ${value} and revoked_at is null`
      : await sql<ActiveKey[]>`
          select org_id, key_pair_id, allowed_origins, secret_hash
          from api_key_pairs where secret_hash = ${value} and revoked_at is null`
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
