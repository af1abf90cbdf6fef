import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding'
import type { Sql, Tx } from '../../platform/db'
import { sha256Hex, uuid } from '../../platform/crypto'

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
  await tx`insert into refresh_tokens (token_hash, family_id, user_id, org_id, created_at, expires_at)
           values (${hashRefreshToken(token)}, ${familyId}, ${input.userId}, ${input.orgId}, ${now},
                   ${new Date(now.getTime() + REFRESH_TOKEN_TTL_MS)})`
  return { token, familyId }
}

type Claimed = { family_id: string; user_id: string; org_id: string }

/**
 * Marks a live token as used. One conditional UPDATE: of two concurrent requests with the same
 * token exactly one gets the row, the other sees it rotated (and is treated as a reuse).
 */
export async function claimRefreshToken(tx: Tx, now: Date, token: string): Promise<Claimed | null> {
  const [row]: [Claimed?] = await tx`
    update refresh_tokens set rotated_at = ${now}
    where token_hash = ${hashRefreshToken(token)} and rotated_at is null and revoked_at is null and expires_at > ${now}
    returning family_id, user_id, org_id`
  return row ?? null
}

export async function findRefreshToken(tx: Tx | Sql, token: string) {
  const [row]: [{ family_id: string; user_id: string; rotated_at: Date | null; revoked_at: Date | null }?] = await tx`
    select family_id, user_id, rotated_at, revoked_at from refresh_tokens where token_hash = ${hashRefreshToken(token)}`
  return row ?? null
}

export async function revokeFamily(tx: Tx | Sql, now: Date, familyId: string): Promise<number> {
  const rows = await tx`update refresh_tokens set revoked_at = ${now} where family_id = ${familyId} and revoked_at is null returning 1`
  return rows.length
}
