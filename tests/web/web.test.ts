import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKeyPair } from '../../src/server/modules/keys/service'
import { REASON_MEANINGS } from '../../src/scoring/reasons'
import { createHarness, type Harness } from '../helpers/harness'

let h: Harness
let dataDir: string

const features = Array(34).fill(0)

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'bss-web-'))
  h = await createHarness({ env: { DATA_DIR: dataDir, RATE_LIMIT_IP_PER_MIN: '1000' } })
}, 60_000)
afterAll(async () => {
  await h.close()
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

/** Makes org A the demo organization, the way main.ts's provisioning records it. */
function useOrgAAsDemo() {
  writeFileSync(join(dataDir, 'demo-credentials.json'), JSON.stringify({ org_id: h.a.orgId, public_key: 'ignored', secret_key: 'ignored' }))
}
function noDemo() {
  rmSync(join(dataDir, 'demo-credentials.json'), { force: true })
}

async function ingest(key: string, sessionId: string) {
  return h.json('POST', '/v1/ingest', {
    headers: { 'x-api-key': key },
    body: {
      session_id: sessionId,
      sdk_type: 'web',
      captured_at: h.clock.now().toISOString(),
      signals: [
        { t: 1, k: 'mm', x: 1, y: 2 },
        { t: 20, k: 'mm', x: 5, y: 9 },
        { t: 40, k: 'kd', kc: 'char' },
      ],
      features,
    },
  })
}

describe('GET /sdk/v1.js', () => {
  it('serves the minified script, loadable from any origin, briefly cacheable', async () => {
    const res = await h.request('GET', '/sdk/v1.js')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/javascript')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/)
    expect(Number(res.headers.get('cache-control')!.match(/max-age=(\d+)/)![1])).toBeLessThanOrEqual(3600)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const body = await res.text()
    expect(body).toContain('BSS')
    expect(body).toContain('/v1/ingest')
  })

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await h.request('GET', '/sdk/v1.js')
    const etag = first.headers.get('etag')!
    expect(etag).toBeTruthy()
    const again = await h.request('GET', '/sdk/v1.js', { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    const other = await h.request('GET', '/sdk/v1.js', { headers: { 'if-none-match': '"stale"' } })
    expect(other.status).toBe(200)
  })

  it('serves the ES module and its declarations', async () => {
    const mjs = await h.request('GET', '/sdk/v1.mjs')
    expect(mjs.status).toBe(200)
    expect(mjs.headers.get('access-control-allow-origin')).toBe('*')
    expect(await mjs.text()).toMatch(/export\s*\{/)
    const dts = await h.request('GET', '/sdk/v1.d.ts')
    expect(dts.status).toBe(200)
    expect(await dts.text()).toContain('export declare function init(options: InitOptions): BssClient')
  })
})

describe('HTML pages', () => {
  for (const path of ['/dashboard', '/demo']) {
    it(`${path} carries the security headers and no inline script or style`, async () => {
      const res = await h.request('GET', path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith('text/html')
      const csp = res.headers.get('content-security-policy')!
      for (const directive of [
        "default-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
        "script-src 'self'",
      ]) {
        expect(csp).toContain(directive)
      }
      expect(csp).not.toContain('unsafe-inline')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
      const html = await res.text()
      for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\//)
      expect(html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/)
      expect(html).not.toMatch(/\sstyle=|\son[a-z]+=|<style/i)
    })
  }

  it('page assets are same-origin only (no CORS) and not sniffable', async () => {
    for (const path of ['/assets/dashboard.js', '/assets/demo.js', '/assets/app.css']) {
      const res = await h.request('GET', path)
      expect([path, res.status]).toEqual([path, 200])
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('the dashboard script talks only to /auth/*, /graphql, the ticket endpoint and the labels export', async () => {
    const js = await (await h.request('GET', '/assets/dashboard.js')).text()
    const paths = new Set([...js.matchAll(/["'`](\/[a-z][\w\-/]*)/g)].map((m) => m[1]))
    for (const path of paths)
      expect(path).toMatch(/^\/(auth\/(register|login|verify-otp|refresh|logout)|graphql|v1\/support\/tickets|v1\/labels\/export)$/)
    expect(paths.has('/graphql')).toBe(true)
  })
})

describe('GET /demo', () => {
  it('explains when there is no demo organization', async () => {
    noDemo()
    const html = await (await h.request('GET', '/demo')).text()
    expect(html).toContain('No demo organization exists on this server')
    expect(html).not.toContain('bss-public-key')
  })

  it('embeds the demo organization’s public key, read from the database, never a secret key', async () => {
    useOrgAAsDemo()
    const html = await (await h.request('GET', '/demo')).text()
    expect(html).toContain(`<meta name="bss-public-key" content="${h.a.publicKey}">`)
    expect(html).not.toContain(h.a.secretKey)
    expect(html).not.toContain('svc_live_sk_')
    expect(html).toContain('<script src="/sdk/v1.js" defer></script>')
    expect(html).toMatch(/<input[^>]+type="text"/)
    expect(html).toContain('id="scroll-area"')
    expect(html).toContain('<button id="check"')
  })

  it('skips a revoked key', async () => {
    const org = await h.seedOrg('Demo Rotated')
    const { keyPair } = await createKeyPair(h.testDb.db.sql, org.orgId, { name: 'second', sdkType: 'web' })
    await h.testDb.db.sql`update api_key_pairs set revoked_at = now() where key_pair_id = ${org.keyPairId}`
    writeFileSync(join(dataDir, 'demo-credentials.json'), JSON.stringify({ org_id: org.orgId }))
    const html = await (await h.request('GET', '/demo')).text()
    expect(html).toContain(`content="${keyPair.public_key}"`)
    expect(html).not.toContain(org.publicKey)
  })
})

describe('GET /demo/result/:session_id', () => {
  it('returns the demo organization’s session result', async () => {
    useOrgAAsDemo()
    const sessionId = crypto.randomUUID()
    const stored = await ingest(h.a.publicKey, sessionId)
    expect(stored.status).toBe(202)
    const res = await h.json('GET', `/demo/result/${sessionId.toUpperCase()}`)
    expect(res.status).toBe(200)
    expect(res.body.session_id).toBe(sessionId)
    expect(res.body.signals).toBe(3)
    expect(['human_verified', 'suspicious', 'bot', 'insufficient_data']).toContain(res.body.verdict)
    expect(typeof res.body.hcs).toBe('number')
    // Each reason code with its meaning from the catalog, in the same order.
    expect(res.body.reason_meanings.map((r: any) => r.code)).toEqual(res.body.reasons)
    for (const r of res.body.reason_meanings) expect(r.meaning).toBe(REASON_MEANINGS[r.code])
    expect(res.body.reasons.length).toBeGreaterThan(0)
  })

  it('never reads another organization’s session', async () => {
    useOrgAAsDemo()
    const sessionId = crypto.randomUUID()
    expect((await ingest(h.b.publicKey, sessionId)).status).toBe(202)
    const res = await h.json('GET', `/demo/result/${sessionId}`)
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('not_found')
    expect(JSON.stringify(res.body)).not.toContain(h.b.orgId)
  })

  it('404 for an unknown session, 400 for a malformed id, 404 without a demo organization', async () => {
    useOrgAAsDemo()
    expect((await h.json('GET', `/demo/result/${crypto.randomUUID()}`)).status).toBe(404)
    const bad = await h.json('GET', '/demo/result/not-a-uuid')
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('validation_failed')
    noDemo()
    const none = await h.json('GET', `/demo/result/${crypto.randomUUID()}`)
    expect(none.status).toBe(404)
    expect(none.body.error.message).toContain('no demo organization')
  })

  it('is rate-limited per client IP', async () => {
    const limited = await createHarness({ env: { DATA_DIR: dataDir, RATE_LIMIT_IP_PER_MIN: '2' }, seed: false })
    try {
      const path = `/demo/result/${crypto.randomUUID()}`
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((await limited.request('GET', path)).status)
      expect(statuses).toEqual([404, 404, 429])
    } finally {
      await limited.close()
    }
  }, 60_000)
})
