import { ACCESS_TOKEN_TTL_SECONDS, type AccessTokens, type Role } from '../../platform/access-token'
import type { Clock } from '../../platform/clock'
import type { Config } from '../../platform/config'
import { uuid } from '../../platform/crypto'
import type { Db, Sql, Tx } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import type { Logger } from '../../platform/log'
import type { Mailer } from '../../platform/mailer'
import { type RateLimiter, rateLimitedError } from '../../platform/ratelimit'
import { createOrganization, findOrgPlan, renameOrganization } from '../org'
import { codeMatches, isLive, mails, type NewChallenge, startChallenge } from './challenges'
import type { ChallengeResponse, LoginInput, RefreshTokenInput, RegisterInput, TokenResponse, VerifyOtpInput } from './model'
import { passwords } from './passwords'
import { claimRefreshToken, findRefreshToken, issueRefreshToken, revokeFamily } from './refresh-tokens'
import * as repo from './repo'

/** What the account flow uses; nothing else of the process. */
export type AuthServices = {
  db: Db
  clock: Clock
  mailer: Mailer
  log: Logger
  limiter: RateLimiter
  tokens: AccessTokens
  config: Pick<Config, 'rateLimits'>
}

// Per-account brute-force limits; per-IP limits come from RATE_LIMIT_AUTH_PER_MIN.
export const ACCOUNT_ATTEMPTS = 10
export const ACCOUNT_WINDOW_MS = 15 * 60 * 1000
const IP_WINDOW_MS = 60 * 1000

// One message per failure kind, whatever the cause: the answer must not say which check failed.
const invalidCredentials = () => new ApiError('invalid_credentials', 'the email or password is incorrect')
const invalidOtp = () => new ApiError('invalid_otp', 'the code is wrong or has expired; sign in again to get a new one')
const invalidRefresh = () => new ApiError('unauthorized', 'the refresh token is invalid, expired or revoked')

async function limit(deps: AuthServices, key: string, max: number, windowMs: number) {
  const decision = await deps.limiter.take(key, max, windowMs)
  if (!decision.allowed) throw rateLimitedError(decision)
}

const limitIp = (deps: AuthServices, action: string, ip: string) =>
  limit(deps, `auth:${action}:ip:${ip}`, deps.config.rateLimits.authPerMin, IP_WINDOW_MS)

const challengeResponse = (c: NewChallenge): ChallengeResponse => ({
  status: 'otp_required',
  challenge_id: c.challengeId,
  expires_at: c.expiresAt.toISOString(),
})

type Mail = { subject: string; text: string }

/**
 * Creates the organization and its unverified owner, then sends a code. An email that already
 * has a verified account gets the same answer (a decoy challenge) and a mail saying so; one whose
 * sign-up was never verified restarts it, so nobody can squat an address they cannot read. A
 * restart writes nothing to the user or the organization: its password, name and organization name
 * wait with its challenge and apply only when that challenge's code is verified (issue 15, item 4).
 */
export async function register(deps: AuthServices, input: RegisterInput, ip: string): Promise<ChallengeResponse> {
  await limitIp(deps, 'register', ip)
  // Hashed on every path so an existing email takes as long as a new one.
  const passwordHash = await passwords.hash(input.password)
  const now = deps.clock.now()
  const name = input.name || null

  const { challenge, mail } = await deps.db.sql.begin(async (tx): Promise<{ challenge: NewChallenge; mail: Mail | null }> => {
    const pending = { passwordHash, name, orgName: input.organization_name }
    const account = await createAccount(tx, { email: input.email, name, passwordHash, organizationName: input.organization_name, now })
    if (account) {
      const challenge = await startChallenge(tx, now, { userId: account.userId, orgId: account.orgId, purpose: 'register', pending })
      return { challenge, mail: mails.code(challenge.code) }
    }

    const existing = await repo.findUserForUpdate(tx, input.email)
    if (!existing) {
      // Deleted between the two statements: answer the usual shape, nothing to send.
      return { challenge: { challengeId: uuid(), code: '', expiresAt: new Date(now.getTime() + 10 * 60 * 1000) }, mail: null }
    }
    if (existing.email_verified_at) {
      const challenge = await startChallenge(tx, now, { userId: existing.user_id, orgId: null, purpose: 'register', decoy: true })
      return { challenge, mail: mails.accountExists() }
    }
    const owned = await repo.firstOwnedOrg(tx, existing.user_id)
    const challenge = await startChallenge(tx, now, { userId: existing.user_id, orgId: owned, purpose: 'register', pending })
    return { challenge, mail: mails.code(challenge.code) }
  })

  if (mail) await deliver(deps, input.email, mail, challenge.challengeId)
  return challengeResponse(challenge)
}

/**
 * Sends the mail of a challenge. When the mail cannot go out, nobody can ever know the code: the
 * challenge is closed and the caller gets 503 with Retry-After instead of a 202 that leads nowhere.
 */
async function deliver(deps: AuthServices, to: string, mail: Mail, challengeId: string) {
  try {
    await deps.mailer.send({ to, ...mail })
  } catch (error) {
    deps.log.error('one-time code mail failed', {
      challenge_id: challengeId,
      transport: deps.mailer.transport,
      error: String((error as Error)?.message ?? error),
    })
    await repo.closeChallenge(deps.db.sql, challengeId, deps.clock.now())
    throw new ApiError('unavailable', 'the e-mail with your code could not be sent; try again in a minute', undefined, {
      'retry-after': '60',
    })
  }
}

/** Checks the password and sends a code. An unverified account may log in: the code proves the address. */
export async function login(deps: AuthServices, input: LoginInput, ip: string): Promise<ChallengeResponse> {
  await limitIp(deps, 'login', ip)
  // Keyed by the email, known or not, so the limit itself reveals nothing.
  await limit(deps, `auth:login:account:${input.email}`, ACCOUNT_ATTEMPTS, ACCOUNT_WINDOW_MS)

  const user = await repo.findUserByEmail(deps.db.sql, input.email)
  // Unknown emails verify against a dummy hash so they cost the same argon2 work as a wrong password.
  let ok = false
  if (user) ok = await passwords.verify(input.password, user.password_hash)
  else await passwords.verify(input.password, await passwords.dummyHash())
  if (!user || !ok) throw invalidCredentials()

  // A user may belong to several organizations; the session opens in the oldest membership.
  const orgId = await repo.firstMembership(deps.db.sql, user.user_id)
  if (!orgId) throw invalidCredentials()

  const now = deps.clock.now()
  const challenge = await deps.db.sql.begin((tx) => startChallenge(tx, now, { userId: user.user_id, orgId, purpose: 'login' }))
  await deliver(deps, input.email, mails.code(challenge.code), challenge.challengeId)
  return challengeResponse(challenge)
}

type Session = {
  user: { user_id: string; email: string; name: string | null }
  organization: { org_id: string; name: string; plan_id: string; role: Role }
  refreshToken: string
}

async function tokenResponse(deps: AuthServices, s: Session): Promise<TokenResponse> {
  const accessToken = await deps.tokens.sign({ sub: s.user.user_id, org: s.organization.org_id, role: s.organization.role })
  return {
    access_token: accessToken,
    refresh_token: s.refreshToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    user: s.user,
    organization: s.organization,
  }
}

type SessionRow = {
  user_id: string
  email: string
  user_name: string | null
  org_id: string
  org_name: string
  plan_id: string
  role: Role
}

async function sessionRow(tx: Tx, userId: string, orgId: string | null): Promise<SessionRow | null> {
  if (!orgId) return null
  const member = await repo.findMember(tx, userId, orgId)
  if (!member) return null
  const org = await findOrgPlan(tx, orgId)
  if (!org) return null
  return { ...member, org_id: org.org_id, org_name: org.name, plan_id: org.plan_id }
}

const toSession = (row: SessionRow, refreshToken: string): Session => ({
  user: { user_id: row.user_id, email: row.email, name: row.user_name },
  organization: { org_id: row.org_id, name: row.org_name, plan_id: row.plan_id, role: row.role },
  refreshToken,
})

/** Trades a live challenge and its code for a token pair. Every failure is the same 401 invalid_otp. */
export async function verifyOtp(deps: AuthServices, input: VerifyOtpInput, ip: string): Promise<TokenResponse> {
  await limitIp(deps, 'verify', ip)
  const owner = await repo.challengeOwner(deps.db.sql, input.challenge_id)
  await limit(deps, `auth:verify:account:${owner ?? `challenge:${input.challenge_id}`}`, ACCOUNT_ATTEMPTS, ACCOUNT_WINDOW_MS)

  const now = deps.clock.now()
  const session = await deps.db.sql.begin(async (tx): Promise<Session | null> => {
    // User row first, then the challenge: the same order as startChallenge, so the two never deadlock.
    if (owner) await repo.lockUser(tx, owner)
    // Locked so concurrent guesses are counted one after the other and a code is used once.
    const challenge = await repo.lockChallenge(tx, input.challenge_id)
    if (!challenge || !isLive(challenge, now)) return null
    if (!codeMatches(challenge.challenge_id, input.code, challenge.code_hash)) {
      await repo.countFailedAttempt(tx, challenge.challenge_id)
      return null
    }
    if (!(await sessionRow(tx, challenge.user_id, challenge.org_id))) return null
    await activateRegistration(tx, challenge)
    // Read after the activation: the session shows the names this sign-up chose.
    const row = (await sessionRow(tx, challenge.user_id, challenge.org_id))!
    await repo.consumeChallenge(tx, challenge.challenge_id, now)
    await repo.markEmailVerified(tx, row.user_id, now)
    // The address is proven: no other pending code (another registration's, an older login's) may
    // act on this account afterwards.
    await repo.invalidatePendingChallenges(tx, row.user_id, now)
    const { token } = await issueRefreshToken(tx, now, { userId: row.user_id, orgId: row.org_id })
    return toSession(row, token)
  })
  if (!session) throw invalidOtp()
  return tokenResponse(deps, session)
}

/**
 * A verified sign-up code sets the password, name and organization name of *its* registration,
 * and only while the address is unverified: a later registration by someone else changes nothing
 * until its own code is verified, and nothing at all once the owner has verified.
 */
async function activateRegistration(tx: Tx, c: repo.ChallengeRow) {
  if (c.purpose !== 'register' || !c.pending_password_hash) return
  const applied = await repo.applyPendingRegistration(tx, c.user_id, c.pending_password_hash, c.pending_name)
  if (applied && c.org_id && c.pending_org_name) await renameOrganization(tx, c.org_id, c.pending_org_name)
}

/**
 * Rotates a refresh token: the presented one dies and a new pair is issued in the same family.
 * A token that was already rotated means two parties hold it, so the whole family is revoked.
 */
export async function refresh(deps: AuthServices, input: RefreshTokenInput): Promise<TokenResponse> {
  const now = deps.clock.now()
  const outcome = await deps.db.sql.begin(async (tx): Promise<Session | { reusedBy: string; familyId: string } | null> => {
    const claimed = await claimRefreshToken(tx, now, input.refresh_token)
    if (!claimed) {
      const found = await findRefreshToken(tx, input.refresh_token)
      if (!found?.rotated_at) return null
      await revokeFamily(tx, now, found.family_id)
      return { reusedBy: found.user_id, familyId: found.family_id }
    }
    // The role is read fresh: a changed role reaches the next access token, a removed member gets none.
    const row = await sessionRow(tx, claimed.user_id, claimed.org_id)
    if (!row) {
      await revokeFamily(tx, now, claimed.family_id)
      return null
    }
    const { token } = await issueRefreshToken(tx, now, { familyId: claimed.family_id, userId: row.user_id, orgId: row.org_id })
    return toSession(row, token)
  })
  if (!outcome) throw invalidRefresh()
  if ('reusedBy' in outcome) {
    deps.log.warn('refresh token reused; family revoked', { user_id: outcome.reusedBy, family_id: outcome.familyId })
    throw invalidRefresh()
  }
  return tokenResponse(deps, outcome)
}

/** Ends the login the token belongs to (its whole family). Unknown or dead tokens are a no-op. */
export async function logout(deps: AuthServices, input: RefreshTokenInput): Promise<void> {
  const found = await findRefreshToken(deps.db.sql, input.refresh_token)
  if (found) await revokeFamily(deps.db.sql, deps.clock.now(), found.family_id)
}

/**
 * The one way an organization and its owner come to exist: sign-up (unverified, free plan) and dev
 * provisioning (verified, the plan of tenants/dev.json) both call it. null: the e-mail is taken, and
 * nothing was written — the user goes first for exactly that reason.
 */
export async function createAccount(
  tx: Tx,
  input: {
    email: string
    name: string | null
    passwordHash: string
    organizationName: string
    planId?: string
    verifiedAt?: Date | null
    now?: Date
  }
): Promise<{ userId: string; orgId: string } | null> {
  const userId = await repo.insertUser(tx, {
    userId: uuid(),
    email: input.email,
    name: input.name,
    passwordHash: input.passwordHash,
    verifiedAt: input.verifiedAt ?? null,
    createdAt: input.now,
  })
  if (!userId) return null
  const orgId = await createOrganization(tx, { name: input.organizationName, planId: input.planId ?? 'free', createdAt: input.now })
  await repo.insertMembership(tx, { orgId, userId, role: 'owner', createdAt: input.now })
  return { userId, orgId }
}

/** Adds a user with a password to an existing organization (dev provisioning and tests: members, admins). */
export async function addUser(
  sql: Sql | Tx,
  input: { orgId: string; email: string; password: string; name?: string; role?: Role; verified?: boolean }
): Promise<string> {
  const userId = await repo.insertUser(sql, {
    userId: uuid(),
    email: input.email.toLowerCase(),
    name: input.name ?? null,
    passwordHash: await passwords.hash(input.password),
    verifiedAt: input.verified === false ? null : new Date(),
  })
  if (!userId) throw new Error(`a user with the e-mail ${input.email} exists already`)
  await repo.insertMembership(sql, { orgId: input.orgId, userId, role: input.role ?? 'owner' })
  return userId
}

/** The member's role and the organization's plan, read fresh (the credential plugin, for dashboard JWTs). */
/** A user's e-mail, or null; read with the connection's own role (users are not tenant rows). */
export const findUserEmail = repo.findUserEmail

export async function findMemberPlan(sql: Sql, orgId: string, userId: string): Promise<{ planId: string; role: Role } | null> {
  const [role, org] = await Promise.all([repo.findRole(sql, orgId, userId), findOrgPlan(sql, orgId)])
  return role && org ? { planId: org.plan_id, role } : null
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Deletes what can no longer be used: challenges a day past their expiry (the per-address send limit
 * only looks back 10 minutes) and refresh tokens past their own expiry. Rotated and revoked tokens
 * stay until then, because presenting one of them is what reveals a stolen family.
 */
export async function purgeExpiredAuth(db: Db, now: Date): Promise<{ challenges: number; refresh_tokens: number }> {
  const challenges = await repo.deleteChallengesExpiredBefore(db.sql, new Date(now.getTime() - DAY_MS))
  const tokens = await repo.deleteRefreshTokensExpiredBefore(db.sql, now)
  return { challenges, refresh_tokens: tokens }
}
