import type { Role } from '../../platform/access-token'
import type { Sql, Tx } from '../../platform/db'

/** The only file that names users, memberships, otp_challenges and refresh_tokens in SQL. */

type Q = Sql | Tx

/** Inserts a user unless the e-mail is taken; the new user_id, or null. */
export async function insertUser(
  sql: Q,
  u: { userId: string; email: string; name: string | null; passwordHash: string; verifiedAt: Date | null; createdAt?: Date }
): Promise<string | null> {
  const row = {
    user_id: u.userId,
    email: u.email,
    name: u.name,
    password_hash: u.passwordHash,
    email_verified_at: u.verifiedAt,
    ...(u.createdAt ? { created_at: u.createdAt } : {}),
  }
  const [inserted]: [{ user_id: string }?] = await sql`
    insert into users ${sql(row)} on conflict (email) do nothing returning user_id`
  return inserted?.user_id ?? null
}

export async function insertMembership(sql: Q, m: { orgId: string; userId: string; role: Role; createdAt?: Date }): Promise<void> {
  const row = { org_id: m.orgId, user_id: m.userId, role: m.role, ...(m.createdAt ? { created_at: m.createdAt } : {}) }
  await sql`insert into memberships ${sql(row)}`
}

export async function findUserForUpdate(tx: Tx, email: string) {
  const [row]: [{ user_id: string; email_verified_at: Date | null }?] = await tx`
    select user_id, email_verified_at from users where email = ${email} for update`
  return row ?? null
}

export async function lockUser(tx: Tx, userId: string): Promise<void> {
  await tx`select 1 from users where user_id = ${userId} for update`
}

/**
 * Sets the password and name a verified sign-up chose, only while the address is still unverified:
 * true when they were applied.
 */
export async function applyPendingRegistration(tx: Tx, userId: string, passwordHash: string, name: string | null): Promise<boolean> {
  const rows = await tx`update users set password_hash = ${passwordHash}, name = ${name}
                        where user_id = ${userId} and email_verified_at is null returning 1`
  return rows.length === 1
}

export async function findUserByEmail(sql: Q, email: string) {
  const [row]: [{ user_id: string; password_hash: string }?] = await sql`
    select user_id, password_hash from users where email = ${email}`
  return row ?? null
}

export async function markEmailVerified(tx: Tx, userId: string, now: Date): Promise<void> {
  await tx`update users set email_verified_at = ${now} where user_id = ${userId} and email_verified_at is null`
}

/** The organization a user owns first (oldest membership), or null. */
export async function firstOwnedOrg(tx: Tx, userId: string): Promise<string | null> {
  const [row]: [{ org_id: string }?] = await tx`
    select org_id from memberships where user_id = ${userId} and role = 'owner' order by created_at, org_id limit 1`
  return row?.org_id ?? null
}

/** The user's oldest membership, where a login opens. */
export async function firstMembership(sql: Q, userId: string): Promise<string | null> {
  const [row]: [{ org_id: string }?] = await sql`
    select org_id from memberships where user_id = ${userId} order by created_at, org_id limit 1`
  return row?.org_id ?? null
}

export async function findRole(sql: Q, orgId: string, userId: string): Promise<Role | null> {
  const [row]: [{ role: Role }?] = await sql`select role from memberships where org_id = ${orgId} and user_id = ${userId}`
  return row?.role ?? null
}

/** A user's e-mail (labels and threshold changes record who made them). */
export async function findUserEmail(sql: Q, userId: string): Promise<string | null> {
  const [row]: [{ email: string }?] = await sql`select email from users where user_id = ${userId}`
  return row?.email ?? null
}

export type MemberRow = { user_id: string; email: string; user_name: string | null; role: Role }

export async function findMember(tx: Q, userId: string, orgId: string): Promise<MemberRow | null> {
  const [row]: [MemberRow?] = await tx`
    select u.user_id, u.email, u.name as user_name, m.role
    from memberships m join users u on u.user_id = m.user_id
    where m.user_id = ${userId} and m.org_id = ${orgId}`
  return row ?? null
}

// One-time codes

export async function recentChallengeTimes(tx: Tx, userId: string, since: Date, max: number): Promise<Date[]> {
  const rows = await tx<{ created_at: Date }[]>`
    select created_at from otp_challenges
    where user_id = ${userId} and created_at > ${since}
    order by created_at desc limit ${max}`
  return rows.map((r) => r.created_at)
}

/** Ends the user's live challenges: all of them, or only those of one purpose. */
export async function invalidatePendingChallenges(tx: Tx, userId: string, now: Date, purpose?: string): Promise<void> {
  await tx`update otp_challenges set invalidated_at = ${now}
           where user_id = ${userId} and consumed_at is null and invalidated_at is null
           ${purpose ? tx`and purpose = ${purpose}` : tx``}`
}

export async function insertChallenge(
  tx: Tx,
  c: {
    challengeId: string
    userId: string
    orgId: string | null
    purpose: string
    codeHash: string
    expiresAt: Date
    now: Date
    invalidatedAt: Date | null
    pending: PendingRegistration | null
  }
): Promise<void> {
  await tx`insert into otp_challenges (challenge_id, user_id, org_id, purpose, code_hash, expires_at, created_at, invalidated_at,
                                       pending_password_hash, pending_name, pending_org_name)
           values (${c.challengeId}, ${c.userId}, ${c.orgId}, ${c.purpose}, ${c.codeHash}, ${c.expiresAt}, ${c.now}, ${c.invalidatedAt},
                   ${c.pending?.passwordHash ?? null}, ${c.pending?.name ?? null}, ${c.pending?.orgName ?? null})`
}

/** What a sign-up chose, kept with its challenge until its code is verified. */
export type PendingRegistration = { passwordHash: string; name: string | null; orgName: string }

export async function closeChallenge(sql: Q, challengeId: string, now: Date): Promise<void> {
  await sql`update otp_challenges set invalidated_at = ${now} where challenge_id = ${challengeId} and invalidated_at is null`
}

export async function challengeOwner(sql: Q, challengeId: string): Promise<string | null> {
  const [row]: [{ user_id: string }?] = await sql`select user_id from otp_challenges where challenge_id = ${challengeId}`
  return row?.user_id ?? null
}

export type ChallengeRow = {
  challenge_id: string
  user_id: string
  org_id: string | null
  purpose: string
  code_hash: string
  attempts: number
  expires_at: Date
  consumed_at: Date | null
  invalidated_at: Date | null
  pending_password_hash: string | null
  pending_name: string | null
  pending_org_name: string | null
}

export async function lockChallenge(tx: Tx, challengeId: string): Promise<ChallengeRow | null> {
  const [row]: [ChallengeRow?] = await tx`
    select challenge_id, user_id, org_id, purpose, code_hash, attempts, expires_at, consumed_at, invalidated_at,
           pending_password_hash, pending_name, pending_org_name
    from otp_challenges where challenge_id = ${challengeId} for update`
  return row ?? null
}

export async function countFailedAttempt(tx: Tx, challengeId: string): Promise<void> {
  await tx`update otp_challenges set attempts = attempts + 1 where challenge_id = ${challengeId}`
}

/** Marks the code used and drops the pending password hash it carried (no longer needed). */
export async function consumeChallenge(tx: Tx, challengeId: string, now: Date): Promise<void> {
  await tx`update otp_challenges set consumed_at = ${now}, pending_password_hash = null where challenge_id = ${challengeId}`
}

export async function deleteChallengesExpiredBefore(sql: Q, cutoff: Date): Promise<number> {
  return (await sql`delete from otp_challenges where expires_at < ${cutoff}`).count
}

// Refresh tokens

export async function insertRefreshToken(
  sql: Q,
  t: { tokenHash: string; familyId: string; userId: string; orgId: string; now: Date; expiresAt: Date }
): Promise<void> {
  await sql`insert into refresh_tokens (token_hash, family_id, user_id, org_id, created_at, expires_at)
            values (${t.tokenHash}, ${t.familyId}, ${t.userId}, ${t.orgId}, ${t.now}, ${t.expiresAt})`
}

export type ClaimedToken = { family_id: string; user_id: string; org_id: string }

/** One conditional UPDATE: of two concurrent claims of the same token exactly one gets the row. */
export async function claimRefreshToken(tx: Tx, tokenHash: string, now: Date): Promise<ClaimedToken | null> {
  const [row]: [ClaimedToken?] = await tx`
    update refresh_tokens set rotated_at = ${now}
    where token_hash = ${tokenHash} and rotated_at is null and revoked_at is null and expires_at > ${now}
    returning family_id, user_id, org_id`
  return row ?? null
}

export async function findRefreshToken(sql: Q, tokenHash: string) {
  const [row]: [{ family_id: string; user_id: string; rotated_at: Date | null; revoked_at: Date | null }?] = await sql`
    select family_id, user_id, rotated_at, revoked_at from refresh_tokens where token_hash = ${tokenHash}`
  return row ?? null
}

export async function revokeFamily(sql: Q, familyId: string, now: Date): Promise<number> {
  const rows = await sql`update refresh_tokens set revoked_at = ${now} where family_id = ${familyId} and revoked_at is null returning 1`
  return rows.length
}

export async function deleteRefreshTokensExpiredBefore(sql: Q, now: Date): Promise<number> {
  return (await sql`delete from refresh_tokens where expires_at < ${now}`).count
}
