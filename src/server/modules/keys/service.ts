import type { SdkType } from '../../platform/contract'
import { randomBase62, sha256Hex } from '../../platform/crypto'
import type { Db, Sql, Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { PUBLIC_PREFIX, SECRET_PREFIX } from '../../plugins/credentials'
import { MAX_PAGE } from './model'
import * as repo from './repo'
import type { KeyPairRow } from './repo'

export { PUBLIC_PREFIX, SECRET_PREFIX } from '../../plugins/credentials'
export { SDK_TYPES, type SdkType } from '../../platform/contract'
export type { KeyPairRow } from './repo'

export const newPublicKey = () => PUBLIC_PREFIX + randomBase62(32)
export const newSecretKey = () => SECRET_PREFIX + randomBase62(40)

/** The contract's cap on active (not revoked) key pairs per organization. */
export const MAX_ACTIVE_KEY_PAIRS = 100

/**
 * Creates a key pair; the secret's plaintext is returned here and never stored. Past
 * MAX_ACTIVE_KEY_PAIRS it refuses (BAD_USER_INPUT): the count and the insert hold one lock per
 * organization in one transaction, so concurrent creations cannot overshoot.
 */
export async function createKeyPair(
  sql: Sql | Tx,
  orgId: string,
  input: { name: string; sdkType: SdkType; allowedOrigins?: string[] }
): Promise<{ keyPair: KeyPairRow; secretKey: string }> {
  const secretKey = newSecretKey()
  const pair = {
    orgId,
    keyPairId: crypto.randomUUID(),
    name: input.name,
    sdkType: input.sdkType,
    publicKey: newPublicKey(),
    secretHash: sha256Hex(secretKey),
    allowedOrigins: input.allowedOrigins ?? [],
  }
  const insert = (tx: Tx) => repo.insertKeyPairWithinLimit(tx, pair, MAX_ACTIVE_KEY_PAIRS)
  // A bare connection (provisioning, tests) gets its own transaction for the lock.
  const keyPair = 'begin' in sql ? await (sql as Sql).begin(insert) : await insert(sql as Tx)
  if (!keyPair) {
    throw new ApiError(
      'validation_failed',
      `an organization has at most ${MAX_ACTIVE_KEY_PAIRS} active key pairs; revoke one before creating another`
    )
  }
  return { keyPair, secretKey }
}

/**
 * One page of the organization's pairs, oldest first (`after` = the previous page's last keyPairId).
 * An `after` that names no pair of this organization is BAD_USER_INPUT, whoever owns it.
 */
export async function listKeyPairs(
  tx: Sql | Tx,
  orgId: string,
  page: { first: number; after: string | null; includeRevoked: boolean } = { first: MAX_PAGE, after: null, includeRevoked: true }
): Promise<KeyPairRow[]> {
  const [rows, cursor] = await Promise.all([
    repo.listKeyPairs(tx, orgId, page),
    page.after ? repo.findKeyPair(tx, orgId, page.after) : null,
  ])
  if (page.after && !cursor) {
    throw new ApiError('validation_failed', 'after: no such key pair; pass the last keyPairId of the previous page', [
      { path: 'after', message: 'no such key pair' },
    ])
  }
  return rows
}

export const findKeyPair = repo.findKeyPair

/** Revokes both keys of the pair. Revoking again keeps the first revocation time. null: no such pair in this org. */
export const revokeKeyPair = repo.revokeKeyPair

export type RotateResult = { status: 'rotated'; keyPair: KeyPairRow; secretKey: string } | { status: 'revoked' | 'not_found' }

/**
 * Replaces the secret (same pair, same public key). The old secret keeps working for
 * `graceSeconds` (0 … MAX_GRACE_SECONDS), then stops; with 0 it stops at once.
 */
export async function rotateKeyPair(sql: Sql | Tx, orgId: string, keyPairId: string, graceSeconds = 0): Promise<RotateResult> {
  const secretKey = newSecretKey()
  const row = await repo.replaceSecret(sql, orgId, keyPairId, sha256Hex(secretKey), graceSeconds)
  if (row) return { status: 'rotated', keyPair: row, secretKey }
  return { status: (await repo.findKeyPair(sql, orgId, keyPairId)) ? 'revoked' : 'not_found' }
}

/** Replaces the public key's origin allow-list (validated by the caller, as on creation). */
export async function updateKeyPairOrigins(
  sql: Sql | Tx,
  orgId: string,
  keyPairId: string,
  origins: string[]
): Promise<{ status: 'updated'; keyPair: KeyPairRow } | { status: 'revoked' | 'not_found' }> {
  const row = await repo.updateAllowedOrigins(sql, orgId, keyPairId, origins)
  if (row) return { status: 'updated', keyPair: row }
  return { status: (await repo.findKeyPair(sql, orgId, keyPairId)) ? 'revoked' : 'not_found' }
}

export const findActiveKey = repo.findActiveKey
export const touchLastUsed = repo.touchLastUsed

/** The public key a page of this organization embeds (the demo page), read in its row-level-security scope. */
export function pagePublicKey(db: Db, orgId: string): Promise<string | null> {
  return db.tenant(orgId, (tx) => repo.findPagePublicKey(tx, orgId))
}
