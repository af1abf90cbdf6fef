import { type AnyElysia, Elysia } from 'elysia'
import { ApiError } from '../platform/errors'
import { mediaType, parseJson, readBodyLimited } from '../platform/http'

/** What a route takes as its body: JSON only (the default), JSON also as text/plain, or the untouched stream. */
type BodyMode = 'json' | 'beacon' | 'raw'

// Markers the route options below put in a route's parse hooks; the parser recognises its routes by them.
const beaconMarker = () => undefined
const rawMarker = () => null // non-undefined: Elysia's own parser leaves the body unread

/**
 * Route options for the exceptions to JSON-only bodies:
 *   { beaconBody: true }  JSON also sent as text/plain (navigator.sendBeacon cannot set Content-Type)
 *   { rawBody: true }     the handler reads the body itself (GraphQL Yoga)
 */
export const bodyOptions = new Elysia({ name: 'http-body-options' }).macro({
  beaconBody: (on: boolean) => (on ? { parse: beaconMarker } : undefined),
  rawBody: (on: boolean) => (on ? { parse: rawMarker } : undefined),
})

const utf8 = new TextDecoder('utf-8', { fatal: false })

/**
 * The body as text. With a Content-Length within the limit (413 above it, unread) the server delivers
 * exactly that many bytes, so one arrayBuffer() read replaces the chunk-by-chunk stream walk, whose
 * stream machinery was ≈ 4 % of the ingest service's CPU; a chunked body (no length) is still read
 * chunk by chunk and refused as soon as it grows past the limit.
 */
async function readBody(request: Request, limitBytes: number): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared === null || request.headers.has('transfer-encoding')) return readBodyLimited(request, limitBytes)
  const length = Number(declared)
  if (!Number.isSafeInteger(length) || length > limitBytes) return readBodyLimited(request, limitBytes)
  const bytes = await request.arrayBuffer()
  // Never trusted blindly: a body longer than the limit is refused as the stream walk would.
  if (bytes.byteLength > limitBytes) throw new ApiError('payload_too_large', `request body is larger than ${limitBytes} bytes`)
  return utf8.decode(bytes)
}

function modeOfRoute(hooks: { parse?: unknown }): BodyMode {
  const parse = ([] as unknown[]).concat(hooks.parse ?? [])
  const fns = parse.map((h) => (typeof h === 'function' ? h : (h as { fn?: unknown })?.fn))
  if (fns.includes(rawMarker)) return 'raw'
  if (fns.includes(beaconMarker)) return 'beacon'
  return 'json'
}

/**
 * The one body parser: JSON only (415 otherwise), read with a size limit (413) and a nesting limit.
 * A function plugin so it can read the composed app's routes and find which of them opted out.
 */
export function bodyParser(limitBytes: number) {
  return (app: AnyElysia) => {
    const modes = new Map<string, BodyMode>()
    const modeOf = (method: string, route: string): BodyMode => {
      const key = `${method} ${route}`
      let mode = modes.get(key)
      if (!mode) {
        const found = app.routes.find((r) => r.method === method && r.path === route)
        mode = found ? modeOfRoute(found.hooks as { parse?: unknown }) : 'json'
        modes.set(key, mode)
      }
      return mode
    }
    return app.use(
      new Elysia({ name: 'http-body' }).onParse({ as: 'global' }, async ({ request, route }) => {
        if (request.method === 'OPTIONS') return
        const mode = modeOf(request.method, route)
        if (mode === 'raw') return
        const type = mediaType(request)
        const textAllowed = mode === 'beacon' && type === 'text/plain'
        if (type !== 'application/json' && !type.endsWith('+json') && !textAllowed) {
          throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json')
        }
        return parseJson(await readBody(request, limitBytes))
      })
    )
  }
}

/** For the OpenAPI document: the media types a route's body may be sent as. */
export function bodyMediaTypes(hooks: { parse?: unknown }): string[] {
  return modeOfRoute(hooks) === 'beacon' ? ['application/json', 'text/plain'] : ['application/json']
}
