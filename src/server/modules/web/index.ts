import { Elysia } from 'elysia'
import * as v from 'valibot'
import type { Config } from '../../platform/config'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { meaningOf } from '../../../scoring/reasons'
import { routeSchema } from '../../platform/validation'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { getSessionResult } from '../ingest'
import { assets, type Asset, type Assets } from './assets'
import { findDemoOrg } from './demo'
import { ASSET_HEADERS, HTML_HEADERS, SDK_HEADERS } from './headers'
import { dashboardPage, demoPage } from './pages'

const ResultParams = v.object({ session_id: v.pipe(v.string(), v.uuid('session_id must be a UUID')) })

function serve(request: Request, a: Asset, headers: Record<string, string>): Response {
  const common = { ...headers, etag: a.etag, 'content-type': a.type }
  if (request.headers.get('if-none-match') === a.etag) return new Response(null, { status: 304, headers: common })
  return new Response(a.body, { headers: common })
}

// Pages, scripts and the demo page's result call belong to the browser, not to the API reference.
const hide = { detail: { hide: true } }

const html = (body: string) => new Response(body, { headers: HTML_HEADERS })

/** The browser SDK, the demo page and the dashboard: everything a browser loads from the service. */
export function webModule(services: { db: Db; config: Pick<Config, 'dataDir' | 'trustProxy'>; rateLimits: RateLimits }) {
  const { db, config } = services

  const file =
    (name: keyof Assets, headers: Record<string, string>) =>
    async ({ request }: { request: Request }) =>
      serve(request, (await assets())[name], headers)

  return new Elysia({ name: 'web' })
    .use(rateLimitPlugin(services))
    .get('/sdk/v1.js', file('sdk.js', SDK_HEADERS), hide)
    .get('/sdk/v1.mjs', file('sdk.mjs', SDK_HEADERS), hide)
    .get('/sdk/v1.d.ts', file('sdk.d.ts', SDK_HEADERS), hide)
    .get('/assets/dashboard.js', file('dashboard.js', ASSET_HEADERS), hide)
    .get('/assets/demo.js', file('demo.js', ASSET_HEADERS), hide)
    .get('/assets/app.css', file('app.css', ASSET_HEADERS), hide)
    .get('/dashboard', () => html(dashboardPage()), hide)
    .get('/demo', async () => html(demoPage((await findDemoOrg(db, config.dataDir))?.publicKey ?? null)), hide)
    .get(
      '/demo/result/:session_id',
      async ({ params }) => {
        const demo = await findDemoOrg(db, config.dataDir)
        if (!demo) throw new ApiError('not_found', 'no demo organization on this server')
        // Public page, so only the demo organization's sessions can ever be read here (in its row-level-security scope).
        const result = await getSessionResult(db, demo.orgId, params.session_id.toLowerCase())
        if (!result) throw new ApiError('not_found', 'no result for this session yet')
        // The page shows reasons in words; the catalog stays on the server (not in the page's bundle).
        return { ...result, reason_meanings: result.reasons.map((code) => ({ code, meaning: meaningOf(code) })) }
      },
      { params: routeSchema(ResultParams), rateLimit: { scope: 'ip', name: 'demo-result' }, ...hide }
    )
}
