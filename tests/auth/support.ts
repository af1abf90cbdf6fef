import { expect } from 'bun:test'
import type { Harness } from '../helpers/harness'
import { Elysia } from 'elysia'
import { httpPipeline } from '../../src/server/http'
import { authPlugin } from '../../src/server/plugins/auth'

export const PASSWORD = 'a-long-enough-passphrase'

let counter = 0
/** A fresh address per call, so per-account limits never leak between tests. */
export const freshEmail = (tag = 'user') => `${tag}-${Date.now().toString(36)}-${++counter}@example.com`

export async function outbox(h: Harness, to: string): Promise<{ to: string; subject: string; text: string; created_at: string }[]> {
  const res = await h.json('GET', `/dev/mail?to=${encodeURIComponent(to)}`)
  expect(res.status).toBe(200)
  return res.body.messages
}

/** The code in the newest mail to `to`. */
export async function latestCode(h: Harness, to: string): Promise<string> {
  const [newest] = await outbox(h, to)
  const code = /\b(\d{6})\b/.exec(newest?.text ?? '')?.[1]
  if (!code) throw new Error(`no code in the newest mail to ${to}`)
  return code
}

export async function registerAccount(h: Harness, email = freshEmail(), extra: Record<string, unknown> = {}) {
  const res = await h.json('POST', '/auth/register', {
    body: { email, password: PASSWORD, name: 'Ada', organization_name: 'Ada Inc', ...extra },
  })
  expect(res.status).toBe(202)
  return { email, challengeId: res.body.challenge_id as string, body: res.body }
}

/** Register + verify: a signed-in owner with a token pair. */
export async function signedUp(h: Harness, email = freshEmail()) {
  const { challengeId } = await registerAccount(h, email)
  const code = await latestCode(h, email)
  const res = await h.json('POST', '/auth/verify-otp', { body: { challenge_id: challengeId, code } })
  expect(res.status).toBe(200)
  return { email, ...res.body } as { email: string; access_token: string; refresh_token: string; user: any; organization: any }
}

/** A 6-digit code that differs from `code`. */
export const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

/** A route behind the tenancy plugin that accepts only the dashboard JWT and echoes the principal. */
export function dashboardProbe(h: Harness) {
  return new Elysia()
    .use(httpPipeline(h.deps))
    .use(authPlugin(h.deps.credentials))
    .get('/probe/dashboard', ({ principal }) => principal, { auth: ['jwt'] })
}
