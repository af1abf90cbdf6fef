import { ApiError } from './errors'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function requestIdFrom(request: Request): string {
  const sent = request.headers.get('x-request-id')
  return sent && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID()
}

/** Reads a body as text, refusing (413) as soon as it grows past limit bytes, without buffering the rest. */
export async function readBodyLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes)
}

const tooLarge = (limit: number) => new ApiError('payload_too_large', `request body is larger than ${limit} bytes`)

/**
 * Deepest object/array nesting a request body may have. The contract's bodies are at most 3 deep;
 * a deeper body is refused before parsing, because everything downstream that walks the value
 * recursively (the validation error, JSON.stringify) would cost quadratic time or overflow the stack.
 */
export const MAX_JSON_DEPTH = 32

const tooDeep = () => new ApiError('invalid_json', `request body is nested more than ${MAX_JSON_DEPTH} levels deep`)

/**
 * Parses first and measures the depth on the value: JSON.parse (JavaScriptCore) is iterative, so deep
 * nesting cannot overflow it, and walking the parsed containers costs a fraction of scanning every
 * character of the text (which was 2.5–3.5 % of the ingest service's CPU). A body that does not parse
 * is scanned, so it gets the same error as before: too deep, or not JSON.
 */
export function parseJson(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeep()
    throw new ApiError('invalid_json', 'request body is not valid JSON')
  }
  if (valueDeeperThan(value, MAX_JSON_DEPTH)) throw tooDeep()
  return value
}

/**
 * Whether arrays and objects nest more than `max` levels. Recursive, but never deeper than max + 1
 * frames (it stops there), so it cannot overflow; no work list to allocate per container (the tuple
 * per object of the former iterative walk was ≈ 3 % of the ingest service's CPU).
 */
function valueDeeperThan(node: unknown, max: number): boolean {
  if (typeof node !== 'object' || node === null) return false
  if (max <= 0) return true
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child = node[i]
      if (typeof child === 'object' && child !== null && valueDeeperThan(child, max - 1)) return true
    }
  } else {
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key]
      if (typeof child === 'object' && child !== null && valueDeeperThan(child, max - 1)) return true
    }
  }
  return false
}

/** One linear pass over JSON text counting open brackets outside strings (text that is not JSON fails JSON.parse anyway). */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

export function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}
