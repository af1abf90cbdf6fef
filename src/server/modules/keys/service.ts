import type { Sql, Tx } from '../../platform/db'
import { randomBase62, sha256Hex } from '../../platform/crypto'

export const PUBLIC_PREFIX = 'svc_live_pk_'
export const SECRET_PREFIX = 'svc_live_sk_'
export const SDK_TYPES = ['web', 'ios', 'android', 'server'] as const
export type SdkType = (typeof SDK_TYPES)[number]

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

export const newPublicKey = () => PUBLIC_PREFIX + randomBase62(32)
export const newSecretKey = () => SECRET_PREFIX + randomBase62(40)

/** Creates a key pair; the secret's plaintext is returned here and never stored. */
export async function createKeyPair(
  sql: Sql | Tx,
  orgId: string,
  input: { name: string; sdkType: SdkType; allowedOrigins?: string[] }
): Promise<{ keyPair: KeyPairRow; secretKey: string }> {
  const secretKey = newSecretKey()
  const [keyPair] = await sql<KeyPairRow[]>`
    insert into api_key_pairs (org_id, key_pair_id, name, sdk_type, public_key, secret_hash, allowed_origins)
    values (${orgId}, ${crypto.randomUUID()}, ${input.name}, ${input.sdkType}, ${newPublicKey()}, ${sha256Hex(secretKey)},
            ${sql.array(input.allowedOrigins ?? [])})
    returning org_id, key_pair_id, name, sdk_type, public_key, allowed_origins, created_at, last_used_at, revoked_at`
  return { keyPair: keyPair!, secretKey }
}

const COLUMNS = ['org_id', 'key_pair_id', 'name', 'sdk_type', 'public_key', 'allowed_origins', 'created_at', 'last_used_at', 'revoked_at']

export async function listKeyPairs(sql: Sql | Tx, orgId: string): Promise<KeyPairRow[]> {
  return sql<KeyPairRow[]>`
    select ${sql(COLUMNS)} from api_key_pairs
    where org_id = ${orgId}
    order by created_at, key_pair_id`
}

export async function findKeyPair(sql: Sql | Tx, orgId: string, keyPairId: string): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    select ${sql(COLUMNS)} from api_key_pairs where org_id = ${orgId} and key_pair_id = ${keyPairId}`
  return row ?? null
}

/** Revokes both keys of the pair. Revoking again keeps the first revocation time. null: no such pair in this org. */
export async function revokeKeyPair(sql: Sql | Tx, orgId: string, keyPairId: string): Promise<KeyPairRow | null> {
  const [row]: [KeyPairRow?] = await sql`
    update api_key_pairs set revoked_at = coalesce(revoked_at, now())
    where org_id = ${orgId} and key_pair_id = ${keyPairId}
    returning ${sql(COLUMNS)}`
  return row ?? null
}

export type RotateResult = { status: 'rotated'; keyPair: KeyPairRow; secretKey: string } | { status: 'revoked' | 'not_found' }

/** Replaces the secret (same pair, same public key); the old secret's hash is gone, so it stops at once. */
export async function rotateKeyPair(sql: Sql | Tx, orgId: string, keyPairId: string): Promise<RotateResult> {
  const secretKey = newSecretKey()
  const [row]: [KeyPairRow?] = await sql`
    update api_key_pairs set secret_hash = ${sha256Hex(secretKey)}, rotated_at = now()
    where org_id = ${orgId} and key_pair_id = ${keyPairId} and revoked_at is null
    returning ${sql(COLUMNS)}`
  if (row) return { status: 'rotated', keyPair: row, secretKey }
  return { status: (await findKeyPair(sql, orgId, keyPairId)) ? 'revoked' : 'not_found' }
}
