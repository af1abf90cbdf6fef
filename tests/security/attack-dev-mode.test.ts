import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, JWT_SECRET_FILE, loadConfig } from '../../src/server/platform/config'
import { dashboardProbe } from '../auth/support'
import { createHarness, type Harness } from '../helpers/harness'

/**
 * Issue 15, item 5: with the public default JWT secret a forged owner token for any organization
 * was accepted, and /dev/mail?to=support@… showed every tenant's ticket mail with org and user ids.
 */
const PUBLIC_DEFAULT = 'dev-only-jwt-secret-do-not-use-in-production'

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
/** An owner token for `org`, valid for a year, signed with `secret` (what an attacker can forge). */
function forge(secret: string, org: string, sub: string): string {
  const now = Math.floor(Date.now() / 1000)
  const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub, org, role: 'owner', iss: 'bss', aud: 'bss-dashboard', iat: now, exp: now + 365 * 86400 })}`
  return `${input}.${new Bun.CryptoHasher('sha256', secret).update(input).digest('base64url')}`
}

const dirs: string[] = []
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'bss-devsecret-'))
  dirs.push(d)
  return d
}

let h: Harness
let dev: Harness
let dataDir: string
beforeAll(async () => {
  h = await createHarness()
  dataDir = tempDir()
  dev = await createHarness({ env: { NODE_ENV: 'development', DATA_DIR: dataDir } })
})
afterAll(async () => {
  await h.close()
  await dev.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

async function asOwner(harness: Harness, token: string) {
  const res = await dashboardProbe(harness).handle(
    new Request('http://localhost/probe/dashboard', { headers: { authorization: `Bearer ${token}` } })
  )
  return res.status
}

describe('no public JWT secret (issue 15, item 5)', () => {
  it('refuses an owner token signed with the old public default, in tests and in development', async () => {
    for (const harness of [h, dev]) {
      // Control: the same claims signed with the instance's own secret pass.
      expect(await asOwner(harness, forge(harness.deps.config.jwtSecret, harness.a.orgId, harness.a.userId))).toBe(200)
      expect(await asOwner(harness, forge(PUBLIC_DEFAULT, harness.a.orgId, harness.a.userId))).toBe(401)
    }
  })

  it('refuses the old public default as JWT_SECRET in every environment, and no secret at all in production', () => {
    for (const NODE_ENV of ['development', 'test', 'production'])
      expect(() => loadConfig({ NODE_ENV, JWT_SECRET: PUBLIC_DEFAULT, DATA_DIR: tempDir() })).toThrow(ConfigError)
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: must be set/)
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(40) }).jwtSecret).toBe('p'.repeat(40))
  })

  it('development keeps a random secret per DATA_DIR in a 0600 file, reused on restart', () => {
    const file = join(dataDir, JWT_SECRET_FILE)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const first = dev.deps.config.jwtSecret
    expect(first.length).toBeGreaterThanOrEqual(32)
    expect(readFileSync(file, 'utf8').trim()).toBe(first)
    // A restart (a new config from the same folder) signs with the same secret: sessions survive.
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir }).jwtSecret).toBe(first)
    // Another folder, another secret; the test harness has its own random one.
    const other = loadConfig({ NODE_ENV: 'development', DATA_DIR: tempDir() }).jwtSecret
    expect(other).not.toBe(first)
    expect(h.deps.config.jwtSecret).not.toBe(first)
    expect(h.deps.config.jwtSecret).not.toBe(PUBLIC_DEFAULT)
  })

  it('a token from before a development restart is accepted after it', async () => {
    const token = await dev.deps.tokens.sign({ sub: dev.a.userId, org: dev.a.orgId, role: 'owner' })
    const again = await createHarness({ testDb: dev.testDb, seed: false, env: { NODE_ENV: 'development', DATA_DIR: dataDir } })
    expect(await asOwner(again, token)).toBe(200)
  })

  it('tightens a secret file others can read, rejects one too short or a DATA_DIR it cannot write', () => {
    const loose = tempDir()
    writeFileSync(join(loose, JWT_SECRET_FILE), `${'s'.repeat(40)}\n`, { mode: 0o644 })
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR: loose }).jwtSecret).toBe('s'.repeat(40))
    expect(statSync(join(loose, JWT_SECRET_FILE)).mode & 0o777).toBe(0o600)
    const short = tempDir()
    writeFileSync(join(short, JWT_SECRET_FILE), 'short\n', { mode: 0o600 })
    expect(() => loadConfig({ NODE_ENV: 'development', DATA_DIR: short })).toThrow(ConfigError)
    // A DATA_DIR where no file can be created is a configuration error, not a crash.
    const notADir = join(tempDir(), 'a-file')
    writeFileSync(notADir, 'x')
    expect(() => loadConfig({ NODE_ENV: 'development', DATA_DIR: join(notADir, 'data') })).toThrow(/set JWT_SECRET or a writable DATA_DIR/)
  })
})

describe('GET /dev/mail shows only the address asked, never the support inbox (issue 15, item 5)', () => {
  it("does not serve the support inbox, which holds every tenant's tickets", async () => {
    const ticket = await dev.json('POST', '/v1/support/tickets', {
      headers: { authorization: `Bearer ${dev.a.jwt}` },
      body: { subject: 'help', message: 'our secret plans', priority: 'normal' },
    })
    expect(ticket.status).toBe(201)
    const [stored] = await dev.deps.db.sql`select count(*)::int as n from mail_outbox where to_address = ${dev.deps.config.supportEmail}`
    expect(stored!.n).toBeGreaterThan(0) // the mail exists; it is just not served
    for (const to of [dev.deps.config.supportEmail, dev.deps.config.supportEmail.toUpperCase()]) {
      const res = await dev.json('GET', `/dev/mail?to=${encodeURIComponent(to)}`)
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('forbidden')
      expect(JSON.stringify(res.body)).not.toContain(dev.a.orgId)
    }
  })

  it("does not show another address's mail", async () => {
    await dev.deps.mailer.send({ to: 'someone@example.com', subject: 'private', text: 'for someone only' })
    for (const to of ['someone@example.co', 'omeone@example.com', 'someone@example.com.evil', '%@example.com', 'someone%40example.com']) {
      const res = await dev.json('GET', `/dev/mail?to=${encodeURIComponent(to)}`)
      expect(JSON.stringify(res.body)).not.toContain('for someone only')
    }
    const mine = await dev.json('GET', '/dev/mail?to=someone@example.com')
    expect(mine.body.messages.map((m: { to: string }) => m.to)).toEqual(['someone@example.com'])
  })
})
