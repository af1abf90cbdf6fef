import { describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import { eventually, inBrowser } from './support'

inBrowser((env) => {
  /** The newest code mailed to `email`, from the development outbox. */
  async function codeFor(email: string, after = 0): Promise<string> {
    return eventually(async () => {
      const res = await fetch(`${env.server.url}/dev/mail?to=${encodeURIComponent(email)}`)
      const { messages } = (await res.json()) as { messages: { text: string; created_at: string }[] }
      const fresh = messages.filter((m) => Date.parse(m.created_at) >= after)
      return fresh[0]?.text.match(/\b(\d{6})\b/)?.[1]
    }, `the code mailed to ${email}`)
  }

  const status = (page: Page) => page.locator('#messages')

  describe('dashboard in Chromium', () => {
    it('registers with the e-mailed code, shows usage, creates a key whose secret is shown once, revokes it', async () => {
      const context = await env.browser.newContext({ viewport: { width: 1200, height: 1000 } })
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text())
      })
      page.on('pageerror', (e) => problems.push(String(e)))
      page.on('dialog', (d) => void d.accept())
      const email = `e2e-${crypto.randomUUID().slice(0, 8)}@example.test`
      const password = 'a-long-enough-password'
      try {
        await page.goto(`${env.server.url}/dashboard`)
        await page.getByRole('button', { name: 'Create account' }).click()
        await page.getByLabel('Organization').fill('E2E Widgets')
        await page.getByLabel('Your name (optional)').fill('Erin Example')
        await page.getByLabel('E-mail').fill(email)
        await page.getByLabel('Password').fill(password)
        const asked = Date.now() - 1000
        await page.locator('#register-form button[type="submit"]').click()

        // The code step takes focus, so it can be typed straight away.
        await page.waitForSelector('#code:focus')
        await page.keyboard.type(await codeFor(email, asked))
        await page.keyboard.press('Enter')

        await page.getByRole('heading', { level: 1, name: 'E2E Widgets' }).waitFor()
        await expect(page.locator('#who').textContent()).resolves.toContain(email)
        await page.locator('#usage-text').waitFor()
        expect(await page.textContent('#usage-text')).toMatch(/Free plan: 0 of 1,000 sessions used \(0\.0%\)/)
        expect(await page.getAttribute('#usage-bar', 'value')).toBe('0')

        // Create a key: the secret appears once, with a working copy button.
        await page.getByRole('link', { name: 'Keys' }).click()
        await page.getByLabel('Name', { exact: true }).fill('E2E web key')
        await page.getByLabel('SDK type').selectOption('WEB')
        await page.getByRole('button', { name: 'Create key' }).click()
        const secretBox = page.locator('#secret-value')
        await secretBox.waitFor()
        const secret = (await secretBox.textContent())!
        expect(secret).toMatch(/^svc_live_sk_[0-9A-Za-z]{32,}$/)
        const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'E2E web key' }) })
        await row.waitFor()
        const publicKey = (await row.locator('.public-key').textContent())!
        expect(publicKey).toMatch(/^svc_live_pk_/)
        expect(await row.locator('.status').textContent()).toBe('Active')
        await page.getByRole('button', { name: 'Copy', exact: true }).click()
        await eventually(async () => /copied|selected/.test((await status(page).textContent()) ?? ''), 'the copy confirmation')
        const copied = await page.evaluate(() => navigator.clipboard.readText().catch(() => null))
        if (copied !== null) expect(copied).toBe(secret)

        // The secret really is this organization's: the service accepts it.
        const usage = await fetch(`${env.server.url}/v1/org/usage`, { headers: { 'x-api-key': secret } })
        expect(usage.status).toBe(200)

        // Support ticket with the access token.
        await page.getByRole('link', { name: 'Support' }).click()
        await page.getByLabel('Subject').fill('Question about the SDK')
        await page.getByLabel('Priority').selectOption('high')
        await page.getByLabel('Message').fill('Does the SDK work inside iframes?')
        await page.getByRole('button', { name: 'Send to support' }).click()
        await eventually(
          async () => /Ticket [0-9a-f-]{36} opened/.test((await status(page).textContent()) ?? ''),
          'the ticket confirmation'
        )
        const tickets = await env.server.deps.db.sql<{ subject: string; priority: string }[]>`
          select t.subject, t.priority from support_tickets t join users u on u.user_id = t.user_id where u.email = ${email}`
        expect([...tickets]).toEqual([{ subject: 'Question about the SDK', priority: 'high' }])

        // After a reload the tab is still signed in, but the secret is gone for good.
        await page.getByRole('link', { name: 'Keys' }).click()
        await page.reload()
        await row.waitFor()
        expect(await page.content()).not.toContain(secret)
        expect(await page.locator('#secret-value').count()).toBe(0)
        const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }))
        expect(stored).not.toContain(secret)
        expect(stored).not.toContain('eyJ')

        // Revoke: the row says so and the secret stops working.
        await page.getByRole('button', { name: 'Revoke E2E web key' }).click()
        await eventually(async () => (await row.locator('.status').textContent())?.startsWith('Revoked'), 'the revoked status')
        expect(await page.getByRole('button', { name: 'Revoke E2E web key' }).count()).toBe(0)
        const refused = await fetch(`${env.server.url}/v1/org/usage`, { headers: { 'x-api-key': secret } })
        expect(refused.status).toBe(401)

        // Sign out, then back in with the keyboard only (login + code).
        await page.getByRole('button', { name: 'Sign out' }).click()
        await page.getByRole('heading', { name: 'Sign in' }).waitFor()
        expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
        await page.waitForSelector('#email:focus')
        await page.keyboard.type(email)
        await page.keyboard.press('Tab')
        await page.keyboard.type(password)
        const loginAsked = Date.now() - 1000
        await page.keyboard.press('Enter')
        await page.waitForSelector('#code:focus')
        await page.keyboard.type(await codeFor(email, loginAsked))
        await page.keyboard.press('Enter')
        await page.getByRole('heading', { level: 1, name: 'E2E Widgets' }).waitFor()
        await page.getByRole('link', { name: 'Keys' }).click()
        await row.waitFor()
        expect(await row.locator('.status').textContent()).toMatch(/^Revoked/)

        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)

    it('a wrong code is refused at the field in plain words, and retrying with the right code signs in', async () => {
      const context = await env.browser.newContext()
      const page = await context.newPage()
      try {
        await page.goto(`${env.server.url}/dashboard`)
        await page.getByLabel('E-mail').fill(env.server.demo.email)
        await page.getByLabel('Password').fill(env.server.demo.password)
        const asked = Date.now() - 1000
        await page.getByRole('button', { name: 'Sign in' }).last().click()
        await page.waitForSelector('#code:focus')
        await page.keyboard.type('000000')
        await page.keyboard.press('Enter')
        await page.waitForSelector('#code[aria-invalid="true"]')
        const said = (await page.textContent('#code-error'))!
        expect(said).toContain('wrong or has expired')
        expect(said).not.toContain('sign in again')
        expect(await page.getAttribute('#code', 'aria-describedby')).toContain('code-error')
        expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
        // The wrong code is selected: typing the right one replaces it, and it works.
        await page.waitForSelector('#code:focus')
        await page.keyboard.type(await codeFor(env.server.demo.email, asked))
        await page.keyboard.press('Enter')
        await page.locator('#usage-text').waitFor()
        expect(await page.locator('#code').count()).toBe(0)
      } finally {
        await context.close()
      }
    }, 60_000)
  })
})
