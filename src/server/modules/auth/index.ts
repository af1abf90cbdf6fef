import { Elysia } from 'elysia'
import type { Config } from '../../platform/config'
import { clientIp } from '../../platform/client-ip'
import { routeSchema } from '../../platform/validation'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { LoginBody, RefreshTokenBody, RegisterBody, VerifyOtpBody } from './model'
import { type AuthServices, login, logout, refresh, register, verifyOtp } from './service'

export { Email } from './model'
export { passwords } from './passwords'
export { addUser, createAccount, findMemberPlan, purgeExpiredAuth, type AuthServices } from './service'

type Server = Parameters<typeof clientIp>[1]

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
