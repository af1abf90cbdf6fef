import { describe, expect, it } from 'bun:test'
import { inBrowser } from './support'

// /docs with the network cut off: every request that is not to the service itself is aborted, so the
// page renders only if the renderer, its styles and the document are all served by the service.

inBrowser((env) => {
  describe('/docs in Chromium', () => {
    it('renders the operations with every other origin blocked, and breaks no CSP rule', async () => {
      const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } })
      const own = new URL(env.server.url).host
      const blocked: string[] = []
      await context.route('**/*', (route) => {
        const url = new URL(route.request().url())
        if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === own) return route.continue()
        blocked.push(url.href)
        return route.abort()
      })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (e) => problems.push(String(e)))
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text())
      })
      try {
        const response = await page.goto(`${env.server.url}/docs`)
        expect(response!.status()).toBe(200)
        // Title, tags and operation summaries come from /docs/json, rendered by the self-hosted bundle.
        const seen = (text: string) => page.getByText(text, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 })
        for (const text of ['Behavioral Scoring Service', 'Send a batch of signals', 'Get a session’s result', 'Usage', 'GraphQL', 'Auth'])
          await seen(text)
        // A collapsed tag opens onto its operations.
        await page.getByText('Usage', { exact: true }).first().click()
        await seen('Plan usage this month')
        expect(problems).toEqual([])
        // Sandboxed: an opaque origin, so the renderer cannot reach the dashboard's storage or windows.
        expect(await page.evaluate(() => self.origin)).toBe('null')
        // The renderer must not have needed anything from elsewhere (fonts, scripts, telemetry).
        expect(blocked).toEqual([])
      } finally {
        await context.close()
      }
    }, 90_000)

    it('serves a CSP that names no other origin and allows no inline script', async () => {
      const res = await fetch(`${env.server.url}/docs`)
      const csp = res.headers.get('content-security-policy')!
      const directives = Object.fromEntries(
        csp.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/)
          return [name!, values]
        })
      )
      expect(directives['default-src']).toEqual(["'none'"])
      expect(directives['script-src']).toEqual(["'self'"])
      expect(directives['connect-src']).toEqual(["'self'"])
      expect(directives['frame-ancestors']).toEqual(["'none'"])
      // No host, scheme-wide source or wildcard anywhere.
      expect(csp).not.toMatch(/https?:|\*|\b[a-z0-9-]+\.[a-z]{2,}\b/i)
      // Sandboxed without allow-same-origin: the page cannot reach the dashboard's storage.
      expect(directives.sandbox).toContain('allow-scripts')
      expect(directives.sandbox).not.toContain('allow-same-origin')
      const bundle = await fetch(`${env.server.url}/docs/assets/api-reference.js`)
      expect(bundle.status).toBe(200)
      expect(bundle.headers.get('content-type')).toStartWith('text/javascript')
      expect((await bundle.text()).length).toBeGreaterThan(100_000)
    })
  })
})
