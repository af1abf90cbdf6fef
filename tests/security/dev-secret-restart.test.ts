import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readUntil } from '../helpers/listening'

/**
 * Issue 15, item 5, with the real process: `npm start` in development without JWT_SECRET keeps a
 * random secret in DATA_DIR (0600), and a dashboard session from before a restart still works after
 * it, while a token signed with the old public default does not. Embedded PGlite in DATA_DIR, as a
 * developer runs it; independent of TEST_DB.
 */
const PUBLIC_DEFAULT = 'dev-only-jwt-secret-do-not-use-in-production'
const dataDir = mkdtempSync(join(tmpdir(), 'bss-devrestart-'))
const children: Bun.Subprocess[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

async function start(): Promise<{ child: Bun.Subprocess; base: string; stop(): Promise<void> }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '2000',
  }
  for (const name of ['JWT_SECRET', 'DATABASE_URL', 'SMTP_URL', 'REDIS_URL', 'TRUST_PROXY']) delete env[name]
  const child = Bun.spawn([process.execPath, 'run', join(import.meta.dir, '../../src/server/main.ts')], {
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  children.push(child)
  const base = await readUntil(child)
  return {
    child,
    base,
    stop: async () => {
      child.kill('SIGTERM')
      await child.exited
    },
  }
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
function forge(secret: string, org: string, sub: string): string {
  const now = Math.floor(Date.now() / 1000)
  const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub, org, role: 'owner', iss: 'bss', aud: 'bss-dashboard', iat: now, exp: now + 365 * 86400 })}`
  return `${input}.${new Bun.CryptoHasher('sha256', secret).update(input).digest('base64url')}`
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const usage = (base: string, token: string) => fetch(`${base}/v1/org/usage`, { headers: { authorization: `Bearer ${token}` } })

describe('development JWT secret across a real restart (issue 15, item 5)', () => {
  it('keeps DATA_DIR/jwt-secret (0600), honours sessions from before the restart, refuses the public default', async () => {
    const first = await start()
    // The demo organization is provisioned right after the listener opens.
    const credentialsFile = join(dataDir, 'demo-credentials.json')
    for (let i = 0; i < 200 && !existsSync(credentialsFile); i++) await Bun.sleep(50)
    const demo = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { org_id: string; email: string; password: string }

    const login = await post(`${first.base}/auth/login`, { email: demo.email, password: demo.password })
    expect(login.status).toBe(202)
    const { challenge_id } = (await login.json()) as { challenge_id: string }
    const mail = (await (await fetch(`${first.base}/dev/mail?to=${encodeURIComponent(demo.email)}`)).json()) as {
      messages: { text: string }[]
    }
    const code = /\b(\d{6})\b/.exec(mail.messages[0]!.text)![1]
    const verified = await post(`${first.base}/auth/verify-otp`, { challenge_id, code })
    expect(verified.status).toBe(200)
    const session = (await verified.json()) as { access_token: string; user: { user_id: string } }
    expect((await usage(first.base, session.access_token)).status).toBe(200)
    await first.stop()

    const file = join(dataDir, 'jwt-secret')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const secret = readFileSync(file, 'utf8')

    const second = await start()
    expect(readFileSync(file, 'utf8')).toBe(secret) // reused, not regenerated
    expect((await usage(second.base, session.access_token)).status).toBe(200)
    expect((await usage(second.base, forge(PUBLIC_DEFAULT, demo.org_id, session.user.user_id))).status).toBe(401)
    await second.stop()
  }, 120_000)
})
