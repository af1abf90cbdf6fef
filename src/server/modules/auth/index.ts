import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { clientIp } from '../../platform/client-ip'
import { routeSchema } from '../../platform/validation'
import { startPeriodic } from '../../jobs/periodic'
import { rateLimit } from '../ratelimit'
import { AUTH_PURGE_EVERY_MS, purgeExpiredAuth } from './maintenance'
import { LoginBody, RefreshTokenBody, RegisterBody, VerifyOtpBody } from './model'
import { passwords } from './passwords'
import { login, logout, refresh, register, verifyOtp } from './service'

type Server = Parameters<typeof clientIp>[1]

/** Account flow: sign-up and login by password + emailed code, then rotating refresh tokens. */
export function authModule(deps: AppDeps) {
  // Computed now so the first unknown-email login is not slower than the rest.
  passwords.dummyHash().catch(() => {})
  const ip = (request: Request, server: Server) => clientIp(request, server, deps.config.trustProxy)
  // Tokens must not be kept by browsers or proxies.
  const noStore = { 'cache-control': 'no-store' }
  // Refresh tokens are unguessable; this ceiling only keeps one client from hammering the token table.
  const tokenLimit = { scope: 'ip' as const, name: 'auth-token', perMinute: deps.config.rateLimits.authPerMin * 6 }
  const stopPurge = startPeriodic(deps, 'auth purge', AUTH_PURGE_EVERY_MS, async () => {
    const purged = await purgeExpiredAuth(deps.db, deps.clock.now())
    return purged.challenges + purged.refresh_tokens > 0 ? purged : null
  })
  return new Elysia({ name: 'auth', prefix: '/auth' })
    .use(rateLimit(deps))
    .onStop(stopPurge)
    .post('/register', async ({ body, request, server, status }) => status(202, await register(deps, body, ip(request, server))), {
      body: routeSchema(RegisterBody),
    })
    .post('/login', async ({ body, request, server, status }) => status(202, await login(deps, body, ip(request, server))), {
      body: routeSchema(LoginBody),
    })
    .post(
      '/verify-otp',
      async ({ body, request, server, set }) => {
        Object.assign(set.headers, noStore)
        return verifyOtp(deps, body, ip(request, server))
      },
      { body: routeSchema(VerifyOtpBody) }
    )
    .post(
      '/refresh',
      async ({ body, set }) => {
        Object.assign(set.headers, noStore)
        return refresh(deps, body)
      },
      { body: routeSchema(RefreshTokenBody), rateLimit: tokenLimit }
    )
    .post(
      '/logout',
      async ({ body, status }) => {
        await logout(deps, body)
        return status(204)
      },
      { body: routeSchema(RefreshTokenBody), rateLimit: tokenLimit }
    )
}
