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

export function parseJson(text: string): unknown {
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError('invalid_json', `request body is nested more than ${MAX_JSON_DEPTH} levels deep`)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('invalid_json', 'request body is not valid JSON')
  }
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
