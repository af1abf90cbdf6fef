import type { Tx } from '../../platform/db'
import type { AppDeps } from '../../deps'
import { ApiError } from '../../platform/errors'
import { ACCESS_TOKEN_TTL_SECONDS, type Role } from '../../platform/access-token'
import { uuid } from '../../platform/crypto'
import { rateLimitedError } from '../../platform/ratelimit'
import { codeMatches, isLive, mails, startChallenge, type ChallengeRow, type NewChallenge } from './challenges'
import type { ChallengeResponse, LoginInput, RefreshTokenInput, RegisterInput, TokenResponse, VerifyOtpInput } from './model'
import { passwords } from './passwords'
import { claimRefreshToken, findRefreshToken, issueRefreshToken, revokeFamily } from './refresh-tokens'

// Per-account brute-force limits; per-IP limits come from RATE_LIMIT_AUTH_PER_MIN.
export const ACCOUNT_ATTEMPTS = 10
export const ACCOUNT_WINDOW_MS = 15 * 60 * 1000
const IP_WINDOW_MS = 60 * 1000

// One message per failure kind, whatever the cause: the answer must not say which check failed.
const invalidCredentials = () => new ApiError('invalid_credentials', 'the email or password is incorrect')
const invalidOtp = () => new ApiError('invalid_otp', 'the code is wrong or has expired; sign in again to get a new one')
const invalidRefresh = () => new ApiError('unauthorized', 'the refresh token is invalid, expired or revoked')

async function limit(deps: AppDeps, key: string, max: number, windowMs: number) {
  const decision = await deps.limiter.take(key, max, windowMs)
  if (!decision.allowed) throw rateLimitedError(decision)
}

const limitIp = (deps: AppDeps, action: string, ip: string) =>
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
 * sign-up was never verified restarts it, so nobody can squat an address they cannot read.
 */
export async function register(deps: AppDeps, input: RegisterInput, ip: string): Promise<ChallengeResponse> {
  await limitIp(deps, 'register', ip)
  // Hashed on every path so an existing email takes as long as a new one.
  const passwordHash = await passwords.hash(input.password)
  const now = deps.clock.now()
  const name = input.name || null

  const { challenge, mail } = await deps.db.sql.begin(async (tx): Promise<{ challenge: NewChallenge; mail: Mail | null }> => {
    const userId = uuid()
    // The user goes first: on a taken email nothing has been written yet.
    const [inserted]: [{ user_id: string }?] = await tx`
      insert into users (user_id, email, name, password_hash, created_at)
      values (${userId}, ${input.email}, ${name}, ${passwordHash}, ${now})
      on conflict (email) do nothing returning user_id`
    if (inserted) {
      const orgId = uuid()
      await tx`insert into organizations (org_id, name, plan_id, created_at) values (${orgId}, ${input.organization_name}, 'free', ${now})`
      await tx`insert into memberships (org_id, user_id, role, created_at) values (${orgId}, ${userId}, 'owner', ${now})`
      const challenge = await startChallenge(tx, now, { userId, orgId, purpose: 'register' })
      return { challenge, mail: mails.code(challenge.code) }
    }

    const [existing]: [{ user_id: string; email_verified_at: Date | null }?] = await tx`
      select user_id, email_verified_at from users where email = ${input.email} for update`
    if (!existing) {
      // Deleted between the two statements: answer the usual shape, nothing to send.
      return { challenge: { challengeId: uuid(), code: '', expiresAt: new Date(now.getTime() + 10 * 60 * 1000) }, mail: null }
    }
    if (existing.email_verified_at) {
      const challenge = await startChallenge(tx, now, { userId: existing.user_id, orgId: null, purpose: 'register', decoy: true })
      return { challenge, mail: mails.accountExists() }
    }
    await tx`update users set password_hash = ${passwordHash}, name = ${name} where user_id = ${existing.user_id}`
    const [owned]: [{ org_id: string }?] = await tx`
      select org_id from memberships where user_id = ${existing.user_id} and role = 'owner' order by created_at, org_id limit 1`
    if (owned) await tx`update organizations set name = ${input.organization_name} where org_id = ${owned.org_id}`
    const challenge = await startChallenge(tx, now, { userId: existing.user_id, orgId: owned?.org_id ?? null, purpose: 'register' })
    return { challenge, mail: mails.code(challenge.code) }
  })

  if (mail) await deliver(deps, input.email, mail, challenge.challengeId)
  return challengeResponse(challenge)
}

/**
 * Sends the mail of a challenge. When the mail cannot go out, nobody can ever know the code: the
 * challenge is closed and the caller gets 503 with Retry-After instead of a 202 that leads nowhere.
 */
async function deliver(deps: AppDeps, to: string, mail: Mail, challengeId: string) {
  try {
    await deps.mailer.send({ to, ...mail })
  } catch (error) {
    deps.log.error('one-time code mail failed', { challenge_id: challengeId, transport: deps.mailer.transport, error: String((error as Error)?.message ?? error) })
    await deps.db.sql`update otp_challenges set invalidated_at = ${deps.clock.now()} where challenge_id = ${challengeId} and invalidated_at is null`
    throw new ApiError('unavailable', 'the e-mail with your code could not be sent; try again in a minute', undefined, { 'retry-after': '60' })
  }
}

/** Checks the password and sends a code. An unverified account may log in: the code proves the address. */
export async function login(deps: AppDeps, input: LoginInput, ip: string): Promise<ChallengeResponse> {
  await limitIp(deps, 'login', ip)
  // Keyed by the email, known or not, so the limit itself reveals nothing.
  await limit(deps, `auth:login:account:${input.email}`, ACCOUNT_ATTEMPTS, ACCOUNT_WINDOW_MS)

  const [user]: [{ user_id: string; password_hash: string }?] = await deps.db.sql`
    select user_id, password_hash from users where email = ${input.email}`
  // Unknown emails verify against a dummy hash so they cost the same argon2 work as a wrong password.
  let ok = false
  if (user) ok = await passwords.verify(input.password, user.password_hash)
  else await passwords.verify(input.password, await passwords.dummyHash())
  if (!user || !ok) throw invalidCredentials()

  // A user may belong to several organizations; the session opens in the oldest membership.
  const [membership]: [{ org_id: string }?] = await deps.db.sql`
    select org_id from memberships where user_id = ${user.user_id} order by created_at, org_id limit 1`
  if (!membership) throw invalidCredentials()

  const now = deps.clock.now()
  const challenge = await deps.db.sql.begin((tx) =>
    startChallenge(tx, now, { userId: user.user_id, orgId: membership.org_id, purpose: 'login' })
  )
  await deliver(deps, input.email, mails.code(challenge.code), challenge.challengeId)
  return challengeResponse(challenge)
}

type Session = {
  user: { user_id: string; email: string; name: string | null }
  organization: { org_id: string; name: string; plan_id: string; role: Role }
  refreshToken: string
}

async function tokenResponse(deps: AppDeps, s: Session): Promise<TokenResponse> {
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

type SessionRow = { user_id: string; email: string; user_name: string | null; org_id: string; org_name: string; plan_id: string; role: Role }

async function sessionRow(tx: Tx, userId: string, orgId: string | null): Promise<SessionRow | null> {
  if (!orgId) return null
  const [row]: [SessionRow?] = await tx`
    select u.user_id, u.email, u.name as user_name, o.org_id, o.name as org_name, o.plan_id, m.role
    from memberships m join users u on u.user_id = m.user_id join organizations o on o.org_id = m.org_id
    where m.user_id = ${userId} and m.org_id = ${orgId}`
  return row ?? null
}

const toSession = (row: SessionRow, refreshToken: string): Session => ({
  user: { user_id: row.user_id, email: row.email, name: row.user_name },
  organization: { org_id: row.org_id, name: row.org_name, plan_id: row.plan_id, role: row.role },
  refreshToken,
})

/** Trades a live challenge and its code for a token pair. Every failure is the same 401 invalid_otp. */
export async function verifyOtp(deps: AppDeps, input: VerifyOtpInput, ip: string): Promise<TokenResponse> {
  await limitIp(deps, 'verify', ip)
  const [owner]: [{ user_id: string }?] = await deps.db.sql`
    select user_id from otp_challenges where challenge_id = ${input.challenge_id}`
  await limit(deps, `auth:verify:account:${owner?.user_id ?? `challenge:${input.challenge_id}`}`, ACCOUNT_ATTEMPTS, ACCOUNT_WINDOW_MS)

  const now = deps.clock.now()
  const session = await deps.db.sql.begin(async (tx): Promise<Session | null> => {
    // User row first, then the challenge: the same order as startChallenge, so the two never deadlock.
    if (owner) await tx`select 1 from users where user_id = ${owner.user_id} for update`
    // Locked so concurrent guesses are counted one after the other and a code is used once.
    const [challenge]: [ChallengeRow?] = await tx`
      select challenge_id, user_id, org_id, code_hash, attempts, expires_at, consumed_at, invalidated_at
      from otp_challenges where challenge_id = ${input.challenge_id} for update`
    if (!challenge || !isLive(challenge, now)) return null
    if (!codeMatches(challenge.challenge_id, input.code, challenge.code_hash)) {
      await tx`update otp_challenges set attempts = attempts + 1 where challenge_id = ${challenge.challenge_id}`
      return null
    }
    const row = await sessionRow(tx, challenge.user_id, challenge.org_id)
    if (!row) return null
    await tx`update otp_challenges set consumed_at = ${now} where challenge_id = ${challenge.challenge_id}`
    await tx`update users set email_verified_at = ${now} where user_id = ${row.user_id} and email_verified_at is null`
    const { token } = await issueRefreshToken(tx, now, { userId: row.user_id, orgId: row.org_id })
    return toSession(row, token)
  })
  if (!session) throw invalidOtp()
  return tokenResponse(deps, session)
}

/**
 * Rotates a refresh token: the presented one dies and a new pair is issued in the same family.
 * A token that was already rotated means two parties hold it, so the whole family is revoked.
 */
export async function refresh(deps: AppDeps, input: RefreshTokenInput): Promise<TokenResponse> {
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
export async function logout(deps: AppDeps, input: RefreshTokenInput): Promise<void> {
  const found = await findRefreshToken(deps.db.sql, input.refresh_token)
  if (found) await revokeFamily(deps.db.sql, deps.clock.now(), found.family_id)
}
