import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding'
import { sha256Hex, uuid } from '../../platform/crypto'
import type { Sql, Tx } from '../../platform/db'
import * as repo from './repo'

export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000
// The prefix lets log redaction recognise the token; base32 keeps it alphanumeric so redaction takes all of it.
export const REFRESH_PREFIX = 'rt_'

export const hashRefreshToken = (token: string) => sha256Hex(token)

/** Lucia-style: 256 random bits, only the SHA-256 is stored. */
export async function issueRefreshToken(
  tx: Tx | Sql,
  now: Date,
  input: { familyId?: string; userId: string; orgId: string }
): Promise<{ token: string; familyId: string }> {
  const token = REFRESH_PREFIX + encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(32)))
  const familyId = input.familyId ?? uuid()
  await repo.insertRefreshToken(tx, {
    tokenHash: hashRefreshToken(token),
    familyId,
    userId: input.userId,
    orgId: input.orgId,
    now,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
  })
  return { token, familyId }
}

/**
 * Marks a live token as used. Of two concurrent requests with the same token exactly one gets the
 * row, the other sees it rotated (and is treated as a reuse).
 */
export function claimRefreshToken(tx: Tx, now: Date, token: string) {
  return repo.claimRefreshToken(tx, hashRefreshToken(token), now)
}

export function findRefreshToken(tx: Tx | Sql, token: string) {
  return repo.findRefreshToken(tx, hashRefreshToken(token))
}

export function revokeFamily(tx: Tx | Sql, now: Date, familyId: string): Promise<number> {
  return repo.revokeFamily(tx, familyId, now)
}
