import type { SdkType } from '../../platform/contract'
import { randomBase62, sha256Hex } from '../../platform/crypto'
import type { Db, Sql, Tx } from '../../platform/db'
import { PUBLIC_PREFIX, SECRET_PREFIX } from '../../plugins/credentials'
import * as repo from './repo'
import type { KeyPairRow } from './repo'

export { PUBLIC_PREFIX, SECRET_PREFIX } from '../../plugins/credentials'
export { SDK_TYPES, type SdkType } from '../../platform/contract'
export type { KeyPairRow } from './repo'

export const newPublicKey = () => PUBLIC_PREFIX + randomBase62(32)
export const newSecretKey = () => SECRET_PREFIX + randomBase62(40)

/** Creates a key pair; the secret's plaintext is returned here and never stored. */
export async function createKeyPair(
  sql: Sql | Tx,
  orgId: string,
  input: { name: string; sdkType: SdkType; allowedOrigins?: string[] }
): Promise<{ keyPair: KeyPairRow; secretKey: string }> {
  const secretKey = newSecretKey()
  const keyPair = await repo.insertKeyPair(sql, {
    orgId,
    keyPairId: crypto.randomUUID(),
    name: input.name,
    sdkType: input.sdkType,
    publicKey: newPublicKey(),
    secretHash: sha256Hex(secretKey),
    allowedOrigins: input.allowedOrigins ?? [],
  })
  return { keyPair, secretKey }
}

export const listKeyPairs = repo.listKeyPairs
export const findKeyPair = repo.findKeyPair

/** Revokes both keys of the pair. Revoking again keeps the first revocation time. null: no such pair in this org. */
export const revokeKeyPair = repo.revokeKeyPair

export type RotateResult = { status: 'rotated'; keyPair: KeyPairRow; secretKey: string } | { status: 'revoked' | 'not_found' }

/** Replaces the secret (same pair, same public key); the old secret's hash is gone, so it stops at once. */
export async function rotateKeyPair(sql: Sql | Tx, orgId: string, keyPairId: string): Promise<RotateResult> {
  const secretKey = newSecretKey()
  const row = await repo.replaceSecret(sql, orgId, keyPairId, sha256Hex(secretKey))
  if (row) return { status: 'rotated', keyPair: row, secretKey }
  return { status: (await repo.findKeyPair(sql, orgId, keyPairId)) ? 'revoked' : 'not_found' }
}

export const findActiveKey = repo.findActiveKey
export const touchLastUsed = repo.touchLastUsed

/** The public key a page of this organization embeds (the demo page), read in its row-level-security scope. */
export function pagePublicKey(db: Db, orgId: string): Promise<string | null> {
  return db.tenant(orgId, (tx) => repo.findPagePublicKey(tx, orgId))
}
