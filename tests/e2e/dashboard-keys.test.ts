import { describe, expect, it } from 'bun:test'
import { createAccount, passwords } from '../../src/server/modules/auth'
import { createKeyPair } from '../../src/server/modules/keys'
import { eventually, inBrowser, signIn } from './support'

// Issue 15: listApiKeys returns at most 100 pairs per call. The dashboard shows the first page as
// before and pages on with "Show more keys" (cursor: the last keyPairId shown).
inBrowser((env) => {
  describe('dashboard key list in Chromium', () => {
    it('shows 100 pairs, then the rest after "Show more keys", oldest first', async () => {
      const email = `paging-${crypto.randomUUID().slice(0, 8)}@example.test`
      const password = 'a-long-enough-password'
      const sql = env.server.deps.db.sql
      const passwordHash = await passwords.hash(password)
      const account = await sql.begin((tx) =>
        createAccount(tx, { email, name: null, passwordHash, organizationName: 'Paging Co', verifiedAt: new Date() })
      )
      const orgId = account!.orgId
      // 130 revoked pairs a second apart (a history longer than one page), then one active pair.
      await sql`
        insert into api_key_pairs (org_id, key_pair_id, name, sdk_type, public_key, secret_hash, allowed_origins, created_at, revoked_at)
        select ${orgId}, gen_random_uuid(), 'old key ' || lpad(i::text, 3, '0'), 'web',
               'svc_live_pk_paging' || lpad(i::text, 20, '0'), md5(i::text) || md5((i + 1)::text), '{}',
               now() - interval '1 day' + i * interval '1 second', now()
        from generate_series(1, 130) as i`
      await createKeyPair(sql, orgId, { name: 'current key', sdkType: 'web' })

      const context = await env.browser.newContext({ viewport: { width: 1200, height: 1000 } })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (e) => problems.push(String(e)))
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text())
      })
      try {
        await signIn(page, env.server, email, password)

        await page.getByRole('link', { name: 'Keys' }).click()
        const rows = page.locator('#keys tbody tr')
        await eventually(async () => (await rows.count()) === 100, 'the first page of 100 keys')
        expect(await rows.first().locator('th').textContent()).toBe('old key 001')
        expect(await page.getByRole('rowheader', { name: 'current key' }).count()).toBe(0)

        await page.getByRole('button', { name: 'Show more keys' }).click()
        await eventually(async () => (await rows.count()) === 131, 'all 131 keys')
        expect(await rows.nth(100).locator('th').textContent()).toBe('old key 101')
        expect(await rows.last().locator('th').textContent()).toBe('current key')
        expect(await rows.last().locator('.status').textContent()).toBe('Active')
        // A short page means there is nothing more.
        expect(await page.getByRole('button', { name: 'Show more keys' }).count()).toBe(0)
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)
  })
})
