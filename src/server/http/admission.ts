import { Elysia } from 'elysia'
import { ApiError } from '../platform/errors'
import { graphqlErrorResponse } from './access-log'

/** Liveness and readiness stay answerable past capacity: a supervisor must not restart a busy instance. */
const EXEMPT = new Set(['/health', '/ready'])

/** A request still counted after this long has lost its answer somewhere; it stops counting (see `sweep`). */
const STALE_MS = 60_000

type Admitted = { credential: string; at: number }

/**
 * Load shedding. Past capacity nothing else refuses work: every request joins an open-ended queue
 * (measured at 600 req/s of the soak's mix: p50 9 s in the first minute, 80 s by the fifth, /health
 * too). So this instance counts the requests it is working on, and while `maxInFlight` are, or half
 * of that for one credential, it answers new ones `503 unavailable` with `Retry-After: 1` at once,
 * before they cost a body parse, a credential lookup or an Idempotency-Key claim. Those they would
 * have queued behind keep their latency; the SDK retries after Retry-After.
 *
 * What counts: a request from when its body has been read (Elysia's transform) until its answer is
 * out, so a slow upload holds no slot (counting from the first byte would let anyone with slow
 * connections refuse everybody else). Why a cap per credential (the X-API-Key or Authorization
 * header as sent, so before any lookup): one tenant's burst fills at most half of the slots and never
 * gets another tenant refused. A credential nobody holds gets a slot like any other; its request is
 * then refused by authentication as usual.
 */
export class Admission {
  private readonly admitted = new Map<Request, Admitted>()
  private readonly perCredential = new Map<string, number>()
  /** Requests refused since start (for tests and the log). */
  shed = 0

  constructor(
    readonly maxInFlight: number,
    private readonly now: () => number = () => performance.now()
  ) {}

  get inFlight(): number {
    return this.admitted.size
  }

  /** Why a new request with this credential must be refused now, or null. */
  refusal(credential: string): string | null {
    if (this.maxInFlight <= 0) return null
    if (this.admitted.size >= this.maxInFlight) this.sweep()
    if (this.admitted.size >= this.maxInFlight) return 'the service is over capacity; retry shortly'
    if ((this.perCredential.get(credential) ?? 0) >= this.perCredentialMax)
      return 'too many requests with this credential are being processed at once; retry shortly'
    return null
  }

  admit(request: Request, credential: string): void {
    if (this.maxInFlight <= 0 || this.admitted.has(request)) return
    this.admitted.set(request, { credential, at: this.now() })
    this.perCredential.set(credential, (this.perCredential.get(credential) ?? 0) + 1)
  }

  release(request: Request): void {
    const entry = this.admitted.get(request)
    if (!entry) return
    this.admitted.delete(request)
    const left = this.perCredential.get(entry.credential)! - 1
    if (left > 0) this.perCredential.set(entry.credential, left)
    else this.perCredential.delete(entry.credential)
  }

  private get perCredentialMax(): number {
    return Math.max(1, Math.floor(this.maxInFlight / 2))
  }

  /**
   * Drops entries older than STALE_MS. Every answered request is released by the after-response hook;
   * this only bounds the harm if some path ever skipped it (a leak would otherwise shed every request
   * for good). It runs only when the instance is full, so it costs nothing below capacity.
   */
  private sweep(): void {
    const cutoff = this.now() - STALE_MS
    for (const [request, entry] of this.admitted) if (entry.at < cutoff) this.release(request)
  }
}

/** The credential a request presents, as sent (no lookup): the API key, else the Authorization header. */
function credentialOf(request: Request): string {
  return request.headers.get('x-api-key') ?? request.headers.get('authorization') ?? ''
}

function pathOf(request: Request): string {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const end = url.indexOf('?', start)
  return start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end)
}

/** The pipeline's shedding step: refuse in onRequest, count from transform, release with the answer. */
export function loadShedding(gate: Admission) {
  return (
    new Elysia({ name: 'http-admission' })
      .onRequest(({ request }) => {
        const path = pathOf(request)
        if (EXEMPT.has(path)) return
        const reason = gate.refusal(credentialOf(request))
        if (reason === null) return
        gate.shed++
        // /graphql answers in GraphQL's shape, as it does for a database outage (API.md).
        if (path === '/graphql') return graphqlErrorResponse(request, 503, 'UNAVAILABLE', reason, { 'retry-after': '1' })
        throw new ApiError('unavailable', reason, undefined, { 'retry-after': '1' })
      })
      .onTransform({ as: 'global' }, ({ request }) => {
        if (!EXEMPT.has(pathOf(request))) gate.admit(request, credentialOf(request))
      })
      // Released as soon as the answer exists; after-response (run on a later turn of the event loop, and
      // for every answer) releases whatever those two missed.
      .onAfterHandle({ as: 'global' }, ({ request }) => gate.release(request))
      .onError({ as: 'global' }, ({ request }) => gate.release(request))
      .onAfterResponse({ as: 'global' }, ({ request }) => gate.release(request))
  )
}
