// Shared by the browser tests: the real service listening on a random port (in-process, on the
// test database kind of this run), and Debian's Chromium driven by playwright-core.
import { afterAll, beforeAll, it } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { buildApp } from '../../src/server/app'
import { loadConfig } from '../../src/server/platform/config'
import { createServices, type Services } from '../../src/server/services'
import { createAccessTokens } from '../../src/server/platform/access-token'
import { systemClock } from '../../src/server/platform/clock'
import { createLogger } from '../../src/server/platform/log'
import { outboxMailer } from '../../src/server/modules/mail'
import { MemoryRateLimiter } from '../../src/server/platform/ratelimit'
import { provisionDemo, syncPlans, type DemoCredentials } from '../../tenants/provision'
import { createTestDb, type TestDb } from '../helpers/db'

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export function findChromium(): string | null {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']
  return candidates.find((path) => existsSync(path)) ?? null
}

/** Says so loudly, so a machine without Chromium never passes the browser tests silently. */
export function warnChromiumMissing() {
  console.warn(
    '\n!!! Chromium was not found (/usr/bin/chromium): the browser tests are SKIPPED.\n' +
      '!!! Install it with `apt-get install -y chromium` (scripts/ci-browser.sh does this in CI) or set CHROMIUM_PATH.\n'
  )
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS })
}

export type SeenRequest = { method: string; path: string; search: string; contentType: string; hasApiKey: boolean }

export type Server = {
  url: string
  deps: Services
  demo: DemoCredentials
  /** Every request the server received, in order. */
  requests: SeenRequest[]
  close(): Promise<void>
}

/**
 * The whole app on a fresh test database, listening on 127.0.0.1 with a random port. The clock is
 * the real one: the browser stamps batches with its own time. The demo organization is provisioned
 * exactly as `npm start` does, into a temporary DATA_DIR.
 */
export async function startServer(): Promise<Server> {
  const testDb: TestDb = await createTestDb()
  const dataDir = mkdtempSync(join(tmpdir(), 'bss-e2e-'))
  // No key cache: a revoked key must fail on the very next request in these tests.
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'warn', DATA_DIR: dataDir, KEY_CACHE_TTL_MS: '0' })
  const log = createLogger(config.logLevel)
  await syncPlans(testDb.db.sql)
  const demo = await provisionDemo(testDb.db.sql, dataDir)
  if (!demo) throw new Error('the demo organization was not provisioned')
  const deps = createServices({
    config,
    db: testDb.db,
    log,
    clock: systemClock,
    mailer: outboxMailer(testDb.db.sql, log),
    limiter: new MemoryRateLimiter(),
    tokens: createAccessTokens(config.jwtSecret),
  })
  const requests: SeenRequest[] = []
  const app = buildApp(deps)
    .onRequest(({ request }) => {
      const url = new URL(request.url)
      requests.push({
        method: request.method,
        path: url.pathname,
        search: url.search,
        contentType: request.headers.get('content-type') ?? '',
        hasApiKey: request.headers.has('x-api-key'),
      })
    })
    .listen({ port: 0, hostname: '127.0.0.1' })
  return {
    url: `http://127.0.0.1:${app.server!.port}`,
    deps,
    demo,
    requests,
    async close() {
      await app.stop(true)
      await testDb.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Polls until check() returns a value (not a timing assertion: it only bounds how long we wait). */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, what: string, limitMs = 20_000): Promise<T> {
  const end = Date.now() + limitMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`)
    await Bun.sleep(100)
  }
}

export const screenshotsWanted = () => process.env.SCREENSHOTS === '1'
export const screenshotPath = (name: string) => join(import.meta.dir, '../../docs/screenshots', name)

export type BrowserEnv<B = Browser> = { readonly server: Server; readonly browser: B }

/**
 * A browser test file: the real service and Chromium for the whole file, or, without Chromium,
 * one loudly skipped test instead of silence.
 */
export function inBrowser(suite: (env: BrowserEnv) => void) {
  withBrowser('chromium', findChromium(), launchChromium, warnChromiumMissing, suite)
}

/** the same for any browser: `executable` found (or null), how to launch it, how to say it is missing */
export function withBrowser<B extends { close(): Promise<unknown> }>(
  name: string,
  executable: string | null,
  launch: (executable: string) => Promise<B>,
  warnMissing: () => void,
  suite: (env: BrowserEnv<B>) => void
) {
  if (!executable) {
    warnMissing()
    it.skip(`SKIPPED: ${name} missing`, () => {})
    return
  }
  let server: Server
  let browser: B
  beforeAll(async () => {
    server = await startServer()
    browser = await launch(executable)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  }, 60_000)
  suite({
    get server() {
      return server
    },
    get browser() {
      return browser
    },
  })
}

/** the demo page's session id, once its SDK has shown one */
export async function demoSessionId(page: Pick<Page, 'waitForFunction' | 'textContent'>): Promise<string> {
  await page.waitForFunction(() => /^[0-9a-f-]{36}$/.test(document.getElementById('session-id')?.textContent ?? ''))
  return (await page.textContent('#session-id'))!
}

/** sends what the demo page's SDK holds now (its events are recorded as they are dispatched) */
export function flushSdk(page: Pick<Page, 'evaluate'>, publicKey: string): Promise<void> {
  return page.evaluate(async (key) => {
    const w = window as unknown as { BSS: { init(o: unknown): { flush(): Promise<void> } } }
    await w.BSS.init({ publicKey: key }).flush()
  }, publicKey)
}

/** The newest 6-digit code mailed to `email` at or after `after` (ms), from the development outbox. */
export async function mailedCode(server: Server, email: string, after: number): Promise<string> {
  return eventually(async () => {
    const res = await fetch(`${server.url}/dev/mail?to=${encodeURIComponent(email)}`)
    const { messages } = (await res.json()) as { messages: { text: string; created_at: string }[] }
    return messages.find((m) => Date.parse(m.created_at) >= after)?.text.match(/\b(\d{6})\b/)?.[1]
  }, `the code mailed to ${email}`)
}

/** Signs in on /dashboard with the keyboard (e-mail, password, the mailed code) and waits for the overview. */
export async function signIn(page: Page, server: Server, email: string, password: string) {
  await page.goto(`${server.url}/dashboard`)
  await page.waitForSelector('#email:focus')
  await page.keyboard.type(email)
  await page.keyboard.press('Tab')
  await page.keyboard.type(password)
  const asked = Date.now() - 1000
  await page.keyboard.press('Enter')
  await page.waitForSelector('#code:focus')
  await page.keyboard.type(await mailedCode(server, email, asked))
  await page.keyboard.press('Enter')
  await page.locator('nav.tabs').waitFor()
}

/** An organization with a verified owner who can sign in (created as sign-up + code would). */
export async function newOwner(server: Server, organizationName: string): Promise<{ email: string; password: string; orgId: string }> {
  const { createAccount, passwords } = await import('../../src/server/modules/auth')
  const email = `owner-${crypto.randomUUID().slice(0, 8)}@example.test`
  const password = 'a-long-enough-password'
  const passwordHash = await passwords.hash(password)
  const account = await server.deps.db.sql.begin((tx) =>
    createAccount(tx, { email, name: null, passwordHash, organizationName, verifiedAt: new Date() })
  )
  return { email, password, orgId: account!.orgId }
}

/** Page errors and console errors (a CSP violation, a failed request) collected for a final check. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  page.on('pageerror', (e) => problems.push(String(e)))
  return problems
}

/** How far the page is wider than its viewport (0 = no horizontal overflow). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
}

/**
 * At 375 px and at 1280 px: asserts the page does not scroll sideways at 375 px, and with
 * SCREENSHOTS=1 saves docs/screenshots/<name>-375.png and <name>-desktop.png. Leaves the viewport at 1280 px.
 */
export async function atBothWidths(page: Page, name: string, ready: () => Promise<unknown> = async () => {}) {
  await page.setViewportSize({ width: 375, height: 800 })
  await ready()
  const overflow = await horizontalOverflow(page)
  if (screenshotsWanted()) await page.screenshot({ path: screenshotPath(`${name}-375.png`), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 900 })
  await ready()
  if (screenshotsWanted()) await page.screenshot({ path: screenshotPath(`${name}-desktop.png`), fullPage: true })
  if (overflow > 0) throw new Error(`${name}: the page is ${overflow} px wider than 375 px`)
}
