import type { Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { randomDigits, sha256Hex, timingSafeEqualString, uuid } from '../../platform/crypto'
import { secondsUntil } from '../../platform/clock'

export const OTP_TTL_MS = 10 * 60 * 1000
export const OTP_MAX_ATTEMPTS = 5
export const OTP_SENDS_PER_WINDOW = 3
export const OTP_SEND_WINDOW_MS = 10 * 60 * 1000

export type Purpose = 'register' | 'login'
export type NewChallenge = { challengeId: string; code: string; expiresAt: Date }

// The challenge id salts the hash, so equal codes never give equal hashes.
export const hashCode = (challengeId: string, code: string) => sha256Hex(`otp:${challengeId}:${code}`)

export const codeMatches = (challengeId: string, code: string, stored: string) =>
  timingSafeEqualString(hashCode(challengeId, code), stored)

/**
 * Starts a challenge for a user inside the caller's transaction. The user row is locked so the
 * per-address send limit is exact across instances. A decoy (sign-up with an email that already
 * has an account) is stored already dead: it can never verify, and it does not cancel the
 * user's own pending challenge, yet it counts and is rate-limited exactly like a real one.
 */
export async function startChallenge(
  tx: Tx,
  now: Date,
  input: { userId: string; orgId: string | null; purpose: Purpose; decoy?: boolean }
): Promise<NewChallenge> {
  await tx`select 1 from users where user_id = ${input.userId} for update`
  const windowStart = new Date(now.getTime() - OTP_SEND_WINDOW_MS)
  const recent = await tx<{ created_at: Date }[]>`
    select created_at from otp_challenges
    where user_id = ${input.userId} and created_at > ${windowStart}
    order by created_at desc limit ${OTP_SENDS_PER_WINDOW}`
  if (recent.length >= OTP_SENDS_PER_WINDOW) {
    const oldest = recent[recent.length - 1]!.created_at
    const retryAfter = secondsUntil(new Date(oldest.getTime() + OTP_SEND_WINDOW_MS), now)
    throw new ApiError('rate_limited', 'too many codes were sent to this address, retry later', undefined, {
      'retry-after': String(retryAfter),
    })
  }
  if (!input.decoy) {
    await tx`update otp_challenges set invalidated_at = ${now}
             where user_id = ${input.userId} and consumed_at is null and invalidated_at is null`
  }
  const challengeId = uuid()
  const code = randomDigits(6)
  const expiresAt = new Date(now.getTime() + OTP_TTL_MS)
  await tx`insert into otp_challenges (challenge_id, user_id, org_id, purpose, code_hash, expires_at, created_at, invalidated_at)
           values (${challengeId}, ${input.userId}, ${input.orgId}, ${input.purpose}, ${hashCode(challengeId, code)},
                   ${expiresAt}, ${now}, ${input.decoy ? now : null})`
  return { challengeId, code, expiresAt }
}

export type ChallengeRow = {
  challenge_id: string
  user_id: string
  org_id: string | null
  code_hash: string
  attempts: number
  expires_at: Date
  consumed_at: Date | null
  invalidated_at: Date | null
}

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
