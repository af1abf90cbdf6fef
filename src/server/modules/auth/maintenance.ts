import type { Db } from '../../platform/db'

const DAY_MS = 24 * 60 * 60 * 1000
export const AUTH_PURGE_EVERY_MS = 60 * 60 * 1000

/**
 * Deletes what can no longer be used: challenges a day past their expiry (the per-address send limit
 * only looks back 10 minutes) and refresh tokens past their own expiry. Rotated and revoked tokens
 * stay until then, because presenting one of them is what reveals a stolen family.
 */
export async function purgeExpiredAuth(db: Db, now: Date): Promise<{ challenges: number; refresh_tokens: number }> {
  const challenges = await db.sql`delete from otp_challenges where expires_at < ${new Date(now.getTime() - DAY_MS)}`
  const tokens = await db.sql`delete from refresh_tokens where expires_at < ${now}`
  return { challenges: challenges.count, refresh_tokens: tokens.count }
}
