import { Elysia } from 'elysia'
import { ApiError } from '../platform/errors'
import { graphqlErrorResponse } from './access-log'

/** Liveness and readiness stay answerable past capacity: a supervisor must not restart a busy instance. */
const EXEMPT = new Set(['/health', '/ready'])

/** A request still counted after this long has lost its answer somewhere; it stops counting (see `sweep`). */
const STALE_MS = 60_000

/**
 * How long the oldest request of a full scope must have been in work before new ones are refused: a
 * full scope whose requests are all younger is a burst or a short stall, which drains by itself.
 */
export const QUEUE_MS = 100

type Admitted = { credential: string; at: number }

/** Requests in work, oldest first (a Map keeps insertion order); one entry object per request, shared by both scopes. */
type Slots = Map<Request, Admitted>

/**
 * Load shedding. Past capacity nothing else refuses work: every request joins an open-ended queue
 * (measured at 600 req/s of the soak's mix: p50 9 s in the first minute, 80 s by the fifth, /health
 * too). So this instance counts the requests it is working on, and while `maxInFlight` are, or half
 * of that for one credential, and the oldest of them has been in work for QUEUE_MS or more (a queue
 * that stands, not a burst), it answers new ones `503 unavailable` with `Retry-After: 1` at once,
 * before they cost a body parse, a credential lookup or an Idempotency-Key claim. Those they would
 * have queued behind keep their latency; the SDK retries after Retry-After.
 *
 * What counts: a request from when its body has been read (Elysia's transform) until its answer is
 * out, so a slow upload holds no slot (counting from the first byte would let anyone with slow
 * connections refuse everybody else). Why a cap per credential (as sent, so before any lookup:
 * `credentialOf`): one tenant's burst fills at most half of the slots and never
 * gets another tenant refused. A credential nobody holds gets a slot like any other; its request is
 * then refused by authentication as usual.
 */
export class Admission {
  private readonly all: Slots = new Map()
  private readonly perCredential = new Map<string, Slots>()
  constructor(
    readonly maxInFlight: number,
    private readonly now: () => number = () => performance.now()
  ) {}

  get inFlight(): number {
    return this.all.size
  }

  /** Why a new request with this credential must be refused now, or null. */
  refusal(credential: string): string | null {
    if (this.maxInFlight <= 0) return null
    const now = this.now()
    this.sweep(now)
    if (standing(this.all, this.maxInFlight, now)) return 'the service is over capacity; retry shortly'
    const mine = this.perCredential.get(credential)
    if (mine && standing(mine, Math.max(1, Math.floor(this.maxInFlight / 2)), now))
      return 'too many requests with this credential are being processed at once; retry shortly'
    return null
  }

  admit(request: Request, credential: string): void {
    if (this.maxInFlight <= 0 || this.all.has(request)) return
    const entry = { credential, at: this.now() }
    this.all.set(request, entry)
    let mine = this.perCredential.get(credential)
    if (!mine) this.perCredential.set(credential, (mine = new Map()))
    mine.set(request, entry)
  }

  release(request: Request): void {
    const entry = this.all.get(request)
    if (!entry) return
    this.all.delete(request)
    const mine = this.perCredential.get(entry.credential)!
    mine.delete(request)
    if (mine.size === 0) this.perCredential.delete(entry.credential)
  }

  /**
   * Drops entries older than STALE_MS, oldest first, so it stops at the first younger one. Every
   * answer releases its request; this only bounds the harm if some path ever skipped that (a leak
   * would otherwise refuse requests for good).
   */
  private sweep(now: number): void {
    for (const [request, { at }] of this.all) {
      if (now - at < STALE_MS) return
      this.release(request)
    }
  }
}

/** A scope is full and its oldest request has waited long enough for the rest to be a queue. */
function standing(slots: Slots, max: number, now: number): boolean {
  if (slots.size < max) return false
  const oldest = slots.values().next().value as Admitted
  return now - oldest.at >= QUEUE_MS
}

/**
 * The credential a request presents, as sent (no lookup): the API key, the Authorization header, or the
 * public key of a `navigator.sendBeacon` batch (`?key=`; without it every tenant's beacons would share
 * the anonymous half).
 */
function credentialOf(request: Request): string {
  const header = request.headers.get('x-api-key') ?? request.headers.get('authorization')
  if (header !== null) return header
  const url = request.url
  const query = url.indexOf('?')
  if (query < 0) return ''
  return `key:${new URLSearchParams(url.slice(query + 1)).get('key') ?? ''}`
}

function pathOf(request: Request): string {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const end = url.indexOf('?', start)
  return start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end)
}

/** The pipeline's shedding step: refuse in onRequest, count from transform, release with the answer. */
export function loadShedding(gate: Admission) {
  // The credential of each request let through, read once in onRequest for transform to count it under.
  const passed = new WeakMap<Request, string>()
  return (
    new Elysia({ name: 'http-admission' })
      .onRequest(({ request }) => {
        const path = pathOf(request)
        if (EXEMPT.has(path)) return
        const credential = credentialOf(request)
        const reason = gate.refusal(credential)
        if (reason === null) {
          passed.set(request, credential)
          return
        }
        // /graphql answers in GraphQL's shape, as it does for a database outage (API.md).
        if (path === '/graphql') return graphqlErrorResponse(request, 503, 'UNAVAILABLE', reason, { 'retry-after': '1' })
        throw new ApiError('unavailable', reason, undefined, { 'retry-after': '1' })
      })
      .onTransform({ as: 'global' }, ({ request }) => {
        const credential = passed.get(request)
        if (credential !== undefined) gate.admit(request, credential)
      })
      // Released as soon as the answer exists; after-response (run on a later turn of the event loop, and
      // for every answer) releases whatever those two missed.
      .onAfterHandle({ as: 'global' }, ({ request }) => gate.release(request))
      .onError({ as: 'global' }, ({ request }) => gate.release(request))
      .onAfterResponse({ as: 'global' }, ({ request }) => gate.release(request))
  )
}
