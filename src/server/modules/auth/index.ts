import { Elysia } from 'elysia'
import type { Config } from '../../platform/config'
import { clientIp } from '../../platform/client-ip'
import { routeSchema } from '../../platform/validation'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { component, errors, jsonBody, ok } from '../../http/openapi'
import { ChallengeSchema, LoginBody, RefreshTokenBody, RegisterBody, TokenPairSchema, VerifyOtpBody } from './model'
import { type AuthServices, login, logout, refresh, register, verifyOtp } from './service'

export { Email } from './model'
export { passwords } from './passwords'
export { addUser, createAccount, findMemberPlan, findUserEmail, purgeExpiredAuth, type AuthServices } from './service'

type Server = Parameters<typeof clientIp>[1]

const EXPIRES = '2026-11-23T12:10:00.000Z'
const Challenge = component('OtpChallenge', ChallengeSchema, {
  status: 'otp_required',
  challenge_id: '0b6f7c1e-5d4a-4e2b-9c3d-8a7f6e5d4c3b',
  expires_at: EXPIRES,
})
const TokenPair = component('TokenPair', TokenPairSchema, {
  access_token: 'eyJhbGciOiJIUzI1NiJ9.…',
  refresh_token: 'rt_…',
  token_type: 'Bearer',
  expires_in: 900,
  user: { user_id: '4c1d2e3f-0a9b-4c8d-9e7f-6a5b4c3d2e1f', email: 'ada@example.com', name: 'Ada' },
  organization: { org_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', name: 'Acme', plan_id: 'free', role: 'owner' },
})
const NO_STORE_HEADER = { 'Cache-Control': { description: '`no-store`: tokens must not be cached.', schema: { type: 'string' } } }
const doc = (
  operationId: string,
  summary: string,
  description: string,
  requestBody: ReturnType<typeof jsonBody>,
  responses: ReturnType<typeof errors>
) => ({
  detail: { operationId, summary, description, tags: ['Auth'], requestBody, responses },
})
const REFRESH_TOKEN = { refresh_token: 'rt_…' }

/** Account flow: sign-up and login by password + emailed code, then rotating refresh tokens. */
export function authModule(deps: AuthServices & { config: Pick<Config, 'rateLimits' | 'trustProxy'>; rateLimits: RateLimits }) {
  const ip = (request: Request, server: Server) => clientIp(request, server, deps.config.trustProxy)
  // Tokens must not be kept by browsers or proxies.
  const noStore = { 'cache-control': 'no-store' }
  // Refresh tokens are unguessable; this ceiling only keeps one client from hammering the token table.
  const tokenLimit = { scope: 'ip' as const, name: 'auth-token', perMinute: deps.config.rateLimits.authPerMin * 6 }
  return new Elysia({ name: 'auth', prefix: '/auth' })
    .use(rateLimitPlugin(deps))
    .post('/register', async ({ body, request, server, status }) => status(202, await register(deps, body, ip(request, server))), {
      body: routeSchema(RegisterBody),
      ...doc(
        'register',
        'Sign up',
        'Creates the organization (plan `free`) and its owner, and mails a 6-digit code; the account is usable once the code is verified. An existing email gets the same answer.',
        jsonBody(RegisterBody, { email: 'ada@example.com', password: 'correct-horse-battery', name: 'Ada', organization_name: 'Acme' }),
        { 202: ok('A code was mailed; verify it with `POST /auth/verify-otp`.', Challenge), ...errors(400, 413, 415, 429, 503) }
      ),
    })
    .post('/login', async ({ body, request, server, status }) => status(202, await login(deps, body, ip(request, server))), {
      body: routeSchema(LoginBody),
      ...doc(
        'login',
        'Log in',
        'Checks the password and mails a 6-digit code.',
        jsonBody(LoginBody, { email: 'ada@example.com', password: 'correct-horse-battery' }),
        {
          202: ok('A code was mailed; verify it with `POST /auth/verify-otp`.', Challenge),
          ...errors(400, 401, 413, 415, 429, 503),
        }
      ),
    })
    .post(
      '/verify-otp',
      async ({ body, request, server, set }) => {
        Object.assign(set.headers, noStore)
        return verifyOtp(deps, body, ip(request, server))
      },
      {
        body: routeSchema(VerifyOtpBody),
        ...doc(
          'verifyOtp',
          'Verify the mailed code',
          'Exchanges the challenge and its code for an access token and a refresh token.',
          jsonBody(VerifyOtpBody, { challenge_id: '0b6f7c1e-5d4a-4e2b-9c3d-8a7f6e5d4c3b', code: '123456' }),
          {
            200: ok('Signed in.', TokenPair, NO_STORE_HEADER),
            ...errors(400, 401, 413, 415, 429, 503),
          }
        ),
      }
    )
    .post(
      '/refresh',
      async ({ body, set }) => {
        Object.assign(set.headers, noStore)
        return refresh(deps, body)
      },
      {
        body: routeSchema(RefreshTokenBody),
        rateLimit: tokenLimit,
        ...doc(
          'refreshTokens',
          'Refresh the tokens',
          'Returns a new pair; the presented refresh token is dead. Presenting an already-rotated token revokes its whole family.',
          jsonBody(RefreshTokenBody, REFRESH_TOKEN),
          { 200: ok('A new pair.', TokenPair, NO_STORE_HEADER), ...errors(400, 401, 413, 415, 429, 503) }
        ),
      }
    )
    .post(
      '/logout',
      async ({ body, status }) => {
        await logout(deps, body)
        return status(204)
      },
      {
        body: routeSchema(RefreshTokenBody),
        rateLimit: tokenLimit,
        ...doc('logout', 'Log out', 'Kills the presented refresh token.', jsonBody(RefreshTokenBody, REFRESH_TOKEN), {
          204: { description: 'Logged out.' },
          ...errors(400, 413, 415, 429, 503),
        }),
      }
    )
}
