import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { AnyElysia } from 'elysia'
import { type DocumentInfo, openApiDocument } from '../../http/openapi'

/**
 * GET /docs (the API reference page), /docs/json (the OpenAPI document) and the page's two scripts.
 * A function plugin, used last: the document is built from the composed app's routes.
 *
 * The renderer is @scalar/api-reference's standalone bundle from node_modules, at the exact version
 * package.json pins: nothing is loaded from another origin, and the page works offline.
 */

/**
 * The page holds no secret, but it shares its origin with the dashboard (whose refresh token sits in
 * sessionStorage): the policy names no other origin, and `sandbox` (without allow-same-origin) gives the
 * page an opaque origin, so even a compromised renderer cannot read that storage (docs/decisions.md).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The renderer injects its stylesheet and sets inline styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "object-src 'none'",
  'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox',
].join('; ')

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-cache',
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference — Behavioral Scoring Service</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="api-reference"><noscript>The reference needs JavaScript; the OpenAPI document itself is at <a href="/docs/json">/docs/json</a>.</noscript></div>
<script src="/docs/assets/storage.js"></script>
<script src="/docs/assets/api-reference.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`

// No inline script (script-src 'self'): the page's own configuration is a file too. Default fonts off:
// they come from the renderer vendor's CDN.
const INIT = `Scalar.createApiReference('#api-reference', {
  url: new URL('/docs/json', location.href).href,
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  documentDownloadType: 'json',
  // The vendor's hosted extras (AI agent, MCP generator, developer toolbar) call its services: off.
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
})
`

/**
 * The sandbox gives the page an opaque origin, where reading localStorage or sessionStorage throws; the
 * renderer keeps UI state there. It gets storage that lives as long as the page, so nothing it stores
 * survives, and it never sees the origin's real storage.
 */
const STORAGE = `(() => {
  const memory = () => {
    const items = new Map()
    return {
      get length() { return items.size },
      key: (i) => [...items.keys()][i] ?? null,
      getItem: (k) => (items.has(String(k)) ? items.get(String(k)) : null),
      setItem: (k, v) => { items.set(String(k), String(v)) },
      removeItem: (k) => { items.delete(String(k)) },
      clear: () => items.clear(),
    }
  }
  for (const name of ['localStorage', 'sessionStorage']) {
    try { window[name] } catch { Object.defineProperty(window, name, { value: memory(), configurable: true }) }
  }
})()
`

type Asset = { body: string; etag: string }
const asset = (body: string): Asset => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` })

/** Where scripts/build-web.ts copies the renderer for the image, which installs no devDependencies. */
export const PREBUILT_RENDERER = join(import.meta.dir, '..', '..', '..', '..', 'dist', 'web', 'api-reference.js')

/** The renderer's browser bundle in node_modules (a devDependency: 260 packages the server never imports). */
export function rendererSource(): string | undefined {
  try {
    // The package's entry is dist/index.js; the browser bundle sits beside it.
    return join(dirname(Bun.resolveSync('@scalar/api-reference', import.meta.dir)), 'browser/standalone.js')
  } catch {
    return undefined
  }
}

let renderer: Asset | undefined
function rendererBundle(): Asset {
  renderer ??= asset(readFileSync(rendererSource() ?? PREBUILT_RENDERER, 'utf8'))
  return renderer
}
const init = asset(INIT)
const storage = asset(STORAGE)

function serveScript(request: Request, a: Asset): Response {
  const headers = {
    'content-type': 'text/javascript; charset=utf-8',
    etag: a.etag,
    'cache-control': 'public, max-age=300',
    'x-content-type-options': 'nosniff',
    // The sandboxed page has an opaque origin: its script requests are cross-origin.
    'cross-origin-resource-policy': 'cross-origin',
  }
  if (request.headers.get('if-none-match') === a.etag) return new Response(null, { status: 304, headers })
  return new Response(a.body, { headers })
}

export const DOCS_INFO: DocumentInfo = {
  title: 'Behavioral Scoring Service',
  description: [
    'Scores how human a browser or app session is from its interaction signals (pointer, keys, scroll, touch).',
    '',
    '- **Errors** always come as `{"error": {"code", "message", "details"?, "request_id"}}` (the `ErrorEnvelope` schema).',
    '- Every response carries `X-Request-Id` and `X-API-Version`.',
    '- **Credentials**: a secret key (`X-API-Key: svc_live_sk_…`) on the server side; a public key (`svc_live_pk_…`) only for ingest from browsers; a dashboard JWT (`Authorization: Bearer …`) for `/graphql`, usage and tickets.',
    '- **GraphQL** (`POST /graphql`, dashboard JWT only): the schema is served as SDL at [`/graphql/schema.graphql`](/graphql/schema.graphql).',
  ].join('\n'),
  // API.md: ingest dedupes retried batches itself, and a refresh token is single-use.
  idempotencyExempt: ['/v1/ingest', '/auth/refresh'],
  tags: [
    { name: 'Ingest', description: 'Signal batches from the SDKs, and the scored sessions.' },
    { name: 'Usage', description: 'The organization’s plan and monthly session count.' },
    { name: 'Support', description: 'Support tickets and the anonymous lead form.' },
    { name: 'Demo', description: 'The live demo: the model on caller-supplied features.' },
    { name: 'Auth', description: 'Dashboard sign-up and login (password + emailed code), token refresh.' },
    { name: 'GraphQL', description: 'The dashboard API.' },
    { name: 'Health', description: 'Liveness and readiness.' },
  ],
}

export function docsModule(info: DocumentInfo = DOCS_INFO) {
  return (app: AnyElysia) => {
    let document: string | undefined
    const json = () => (document ??= JSON.stringify(openApiDocument(app.routes as never, info)))
    const hide = { detail: { hide: true } }
    return app
      .get('/docs', () => new Response(PAGE, { headers: PAGE_HEADERS }), hide)
      .get(
        '/docs/json',
        () =>
          new Response(json(), {
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'cache-control': 'no-cache',
              // Public, and fetched by the sandboxed (opaque-origin) reference page and by tools on any origin.
              'access-control-allow-origin': '*',
            },
          }),
        hide
      )
      .get('/docs/assets/api-reference.js', ({ request }) => serveScript(request, rendererBundle()), hide)
      .get('/docs/assets/init.js', ({ request }) => serveScript(request, init), hide)
      .get('/docs/assets/storage.js', ({ request }) => serveScript(request, storage), hide)
  }
}
