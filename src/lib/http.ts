import { ApiError } from '../errors'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/

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

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('invalid_json', 'request body is not valid JSON')
  }
}

export function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}
