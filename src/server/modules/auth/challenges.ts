import { secondsUntil } from '../../platform/clock'
import { randomDigits, sha256Hex, timingSafeEqualString, uuid } from '../../platform/crypto'
import type { Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import * as repo from './repo'

export const OTP_TTL_MS = 10 * 60 * 1000
export const OTP_MAX_ATTEMPTS = 5
export const OTP_SENDS_PER_WINDOW = 3
export const OTP_SEND_WINDOW_MS = 10 * 60 * 1000

export type Purpose = 'register' | 'login'
export type NewChallenge = { challengeId: string; code: string; expiresAt: Date }

// The challenge id salts the hash, so equal codes never give equal hashes.
export const hashCode = (challengeId: string, code: string) => sha256Hex(`otp:${challengeId}:${code}`)

export const codeMatches = (challengeId: string, code: string, stored: string) => timingSafeEqualString(hashCode(challengeId, code), stored)

/**
 * Starts a challenge for a user inside the caller's transaction. The user row is locked so the
 * per-address send limit is exact across instances. A decoy (sign-up with an email that already
 * has an account) is stored already dead: it can never verify, and it does not cancel the
 * user's own pending challenge, yet it counts and is rate-limited exactly like a real one.
 *
 * A sign-up challenge carries its registration's password hash, name and organization name
 * (`pending`), applied only when its own code is verified. It cancels no other challenge: a
 * stranger re-registering an unverified address must not end the owner's pending sign-up, and
 * cannot take it over (the code goes to the address, the challenge id to whoever registered).
 * A login challenge supersedes the user's earlier live challenges, as before.
 */
export async function startChallenge(
  tx: Tx,
  now: Date,
  input: { userId: string; orgId: string | null; purpose: Purpose; decoy?: boolean; pending?: repo.PendingRegistration }
): Promise<NewChallenge> {
  await repo.lockUser(tx, input.userId)
  const windowStart = new Date(now.getTime() - OTP_SEND_WINDOW_MS)
  const recent = await repo.recentChallengeTimes(tx, input.userId, windowStart, OTP_SENDS_PER_WINDOW)
  if (recent.length >= OTP_SENDS_PER_WINDOW) {
    const oldest = recent[recent.length - 1]!
    const retryAfter = secondsUntil(new Date(oldest.getTime() + OTP_SEND_WINDOW_MS), now)
    throw new ApiError('rate_limited', 'too many codes were sent to this address, retry later', undefined, {
      'retry-after': String(retryAfter),
    })
  }
  if (input.purpose === 'login') await repo.invalidatePendingChallenges(tx, input.userId, now)
  const challengeId = uuid()
  const code = randomDigits(6)
  const expiresAt = new Date(now.getTime() + OTP_TTL_MS)
  await repo.insertChallenge(tx, {
    challengeId,
    userId: input.userId,
    orgId: input.orgId,
    purpose: input.purpose,
    codeHash: hashCode(challengeId, code),
    expiresAt,
    now,
    invalidatedAt: input.decoy ? now : null,
    pending: input.decoy ? null : (input.pending ?? null),
  })
  return { challengeId, code, expiresAt }
}

export type ChallengeRow = repo.ChallengeRow

export const isLive = (c: ChallengeRow, now: Date) =>
  !c.consumed_at && !c.invalidated_at && c.attempts < OTP_MAX_ATTEMPTS && c.expires_at.getTime() > now.getTime()

export const mails = {
  code: (code: string) => ({
    subject: 'Your verification code',
    text: `Your verification code is ${code}\n\nIt expires in 10 minutes. If you did not ask for it, ignore this mail.`,
  }),
  accountExists: () => ({
    subject: 'You already have an account',
    text: 'Someone tried to sign up with this address, but an account already exists. Log in instead.\n\nIf it was not you, ignore this mail.',
  }),
}
