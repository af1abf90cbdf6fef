/** Strict CSP for our own pages: every script and style is a same-origin file, nothing inline. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ')

export const HTML_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  // The dashboard page itself is static, but never worth caching next to a signed-in session.
  'cache-control': 'no-store',
}

/** The SDK is embedded by customers' pages on any origin; a short max-age lets a fix reach them quickly. */
export const SDK_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
  'cache-control': 'public, max-age=300',
}

export const ASSET_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'public, max-age=300',
}
