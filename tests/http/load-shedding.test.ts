import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { Admission, QUEUE_MS } from '../../src/server/http/admission'
import { createHarness, type Harness } from '../helpers/harness'
import { makeBatch, rowCounts, withKey } from '../ingest/support'

// Past capacity the service used to queue every request without bound (bench/README.md, Soak: at
// 600 req/s p50 80 s by minute 5, /health too). Here an instance working on MAX_IN_FLIGHT requests
// refuses new ones with 503 + Retry-After at once, half of the slots at most for one credential.
// Requests are held in flight by holding the database: every credential lookup waits for it.

const MAX = 4

let h: Harness
beforeAll(async () => {
  // No key cache: every request looks its key up, so holding the database holds the request.
  h = await createHarness({ env: { MAX_IN_FLIGHT: String(MAX), KEY_CACHE_TTL_MS: '0' } })
})
afterAll(() => h.close())

/** Holds the database until the returned function is called: PGlite's one connection, or a lock on the key table. */
async function holdDatabase(): Promise<() => Promise<void>> {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  let held!: () => void
  const ready = new Promise<void>((resolve) => (held = resolve))
  const tx = h.deps.db.sql.begin(async (tx) => {
    if (h.deps.db.kind === 'postgres') await tx`lock table api_key_pairs in access exclusive mode`
    else await tx`select 1`
    held()
    await gate
  })
  await ready
  return async () => {
    release()
    await tx
  }
}

async function until(condition: () => boolean) {
  for (let i = 0; i < 500 && !condition(); i++) await Bun.sleep(2)
  expect(condition()).toBe(true)
}

const ingestRequest = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  h.app.handle(
    new Request('http://localhost/v1/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...withKey(key), ...headers },
      body: JSON.stringify(body),
    })
  )
const sessionRead = (key: string) =>
  h.app.handle(new Request(`http://localhost/v1/session/${crypto.randomUUID()}`, { headers: withKey(key) }))

describe('load shedding (MAX_IN_FLIGHT)', () => {
  it('refuses past the bound with 503 unavailable and Retry-After, stores nothing, and keeps /health and other tenants answered', async () => {
    const gate = h.deps.admission
    const release = await holdDatabase()
    let answered: Response[] = []
    try {
      // Org A fills its half of the slots.
      const held = [ingestRequest(h.a.secretKey, makeBatch(h)), ingestRequest(h.a.secretKey, makeBatch(h))]
      await until(() => gate.inFlight === 2)
      // A full scope is a queue once its oldest request has waited QUEUE_MS (younger, it is a burst).
      await Bun.sleep(QUEUE_MS + 20)

      // A third request with A's key is refused at once; nothing of it is stored.
      const refusedBatch = makeBatch(h)
      const refused = await ingestRequest(h.a.secretKey, refusedBatch, { 'idempotency-key': 'shed-1' })
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('1')
      const body = (await refused.json()) as { error: { code: string; message: string; request_id: string } }
      expect(body.error.code).toBe('unavailable')
      expect(body.error.message).toContain('this credential')
      expect(body.error.request_id).toBe(refused.headers.get('x-request-id')!)
      // The access log has it, so an operator can count refusals.
      await until(() => h.logs.some((line) => line.includes(body.error.request_id)))
      const logged = JSON.parse(h.logs.find((line) => line.includes(body.error.request_id))!)
      expect(logged).toMatchObject({ msg: 'request', route: '/v1/ingest', status: 503 })

      // Another organization still gets in, up to the bound…
      held.push(sessionRead(h.b.secretKey), sessionRead(h.b.publicKey))
      await until(() => gate.inFlight === MAX)
      await Bun.sleep(QUEUE_MS + 20)

      // …past which everybody is refused, except liveness and readiness.
      const full = await sessionRead(h.b.secretKey)
      expect(full.status).toBe(503)
      expect(((await full.json()) as { error: { message: string } }).error.message).toContain('over capacity')
      expect((await h.app.handle(new Request('http://localhost/health'))).status).toBe(200)
      // /graphql is refused in GraphQL's shape, as during a database outage.
      const graphql = await h.json('POST', '/graphql', {
        body: { query: '{ getPlanUsage { __typename } }' },
        headers: { authorization: `Bearer ${h.a.jwt}` },
      })
      expect(graphql.status).toBe(503)
      expect(graphql.headers.get('retry-after')).toBe('1')
      expect(graphql.body.errors[0].extensions.code).toBe('UNAVAILABLE')
      expect(gate.inFlight).toBe(MAX)

      await release()
      answered = await Promise.all(held)
      // The held requests were worked on, not refused.
      expect(answered.map((r) => r.status)).toEqual([200, 200, 404, 403])
      expect(await rowCounts(h, h.a)).toMatchObject({ sessions: 2, batches: 2 })

      // The refused batch's Idempotency-Key was never claimed: its retry runs now.
      const retried = await ingestRequest(h.a.secretKey, refusedBatch, { 'idempotency-key': 'shed-1' })
      expect(retried.status).toBe(200)
      expect(retried.headers.get('idempotent-replayed')).toBeNull()
      expect(await rowCounts(h, h.a)).toMatchObject({ sessions: 3, batches: 3 })
    } finally {
      await release()
    }
    await until(() => gate.inFlight === 0)
  })

  it("a beacon's ?key= is its credential: one tenant's beacons fill their own half, not every tenant's", async () => {
    const gate = h.deps.admission
    const beacon = (key: string) =>
      h.app.handle(
        new Request(`http://localhost/v1/ingest?key=${key}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify(makeBatch(h)),
        })
      )
    const release = await holdDatabase()
    try {
      const held = [beacon(h.a.publicKey), beacon(h.a.publicKey)]
      await until(() => gate.inFlight === 2)
      await Bun.sleep(QUEUE_MS + 20)
      const refused = await beacon(h.a.publicKey)
      expect(refused.status).toBe(503)
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('this credential')
      // B's beacons are another credential, though neither sends a header.
      held.push(beacon(h.b.publicKey))
      await until(() => gate.inFlight === 3)
      await release()
      expect((await Promise.all(held)).map((r) => r.status)).toEqual([202, 202, 202])
    } finally {
      await release()
    }
    await until(() => gate.inFlight === 0)
  })

  it('a slow upload holds no slot: a request counts once its body has been read', async () => {
    const gate = h.deps.admission
    let push!: ReadableStreamDefaultController<Uint8Array>
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => (push = controller) })
    const slow = h.app.handle(
      new Request('http://localhost/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...withKey(h.a.secretKey) },
        body: stream,
        duplex: 'half',
      } as RequestInit)
    )
    const text = JSON.stringify(makeBatch(h))
    push.enqueue(new TextEncoder().encode(text.slice(0, 20)))
    await Bun.sleep(20)
    expect(gate.inFlight).toBe(0)
    // Requests with the same credential are not refused while that upload trickles.
    const others = await Promise.all(Array.from({ length: MAX }, () => sessionRead(h.a.secretKey)))
    expect(others.map((r) => r.status)).toEqual(Array(MAX).fill(404))
    push.enqueue(new TextEncoder().encode(text.slice(20)))
    push.close()
    expect((await slow).status).toBe(200)
    await until(() => gate.inFlight === 0)
  })

  it('every kind of answer releases its slot (success, client errors, auth errors, GraphQL)', async () => {
    const gate = h.deps.admission
    const answers: (() => Promise<number>)[] = [
      () => ingestRequest(h.a.secretKey, makeBatch(h)).then((r) => r.status),
      () =>
        h.app
          .handle(
            new Request('http://localhost/v1/ingest', {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...withKey(h.a.secretKey) },
              body: '{not json',
            })
          )
          .then((r) => r.status),
      () => ingestRequest(h.a.secretKey, { ...makeBatch(h), signals: 'nope' }).then((r) => r.status),
      () => ingestRequest('pk_live_nobody', makeBatch(h)).then((r) => r.status),
      () => h.app.handle(new Request('http://localhost/v1/org/usage')).then((r) => r.status),
      () =>
        h
          .json('POST', '/graphql', { body: { query: '{ getPlanUsage { __typename } }' }, headers: { authorization: `Bearer ${h.a.jwt}` } })
          .then((r) => r.status),
      () => h.app.handle(new Request('http://localhost/no/such/route')).then((r) => r.status),
    ]
    const statuses: number[] = []
    // One after another, each checked: a path that skipped the release would leave its slot taken.
    for (const answer of answers) {
      statuses.push(await answer())
      await until(() => gate.inFlight === 0)
    }
    expect(statuses).toEqual([200, 400, 400, 401, 401, 200, 404])
  })
})

describe('Admission', () => {
  it('0 turns shedding off', () => {
    const gate = new Admission(0)
    for (let i = 0; i < 10; i++) gate.admit(new Request('http://x/'), 'k')
    expect(gate.refusal('k')).toBeNull()
    expect(gate.inFlight).toBe(0)
  })

  it('refuses only a queue that stands: a full scope whose oldest request is younger than QUEUE_MS is a burst', () => {
    let now = 0
    const gate = new Admission(4, () => now)
    const a = [new Request('http://x/1'), new Request('http://x/2')]
    for (const r of a) gate.admit(r, 'a')
    // A's half is full, but young: a burst or a short stall, admitted.
    now = QUEUE_MS - 1
    expect(gate.refusal('a')).toBeNull()
    now = QUEUE_MS
    expect(gate.refusal('a')).toContain('this credential')
    expect(gate.refusal('b')).toBeNull()
    // The oldest answered: the next one's age decides.
    gate.admit(new Request('http://x/3'), 'a')
    gate.release(a[0]!)
    gate.release(a[1]!)
    expect(gate.refusal('a')).toBeNull()
    gate.admit(new Request('http://x/4'), 'b')
    gate.admit(new Request('http://x/5'), 'b')
    gate.admit(new Request('http://x/6'), 'c')
    now += QUEUE_MS - 1
    expect(gate.refusal('d')).toBeNull()
    now += 1
    expect(gate.refusal('d')).toContain('over capacity')
  })

  it('a request that never released stops counting after a minute, so a leak cannot refuse every request for good', () => {
    let now = 0
    const gate = new Admission(2, () => now)
    gate.admit(new Request('http://x/1'), 'a')
    gate.admit(new Request('http://x/2'), 'b')
    now = QUEUE_MS
    expect(gate.refusal('c')).toContain('over capacity')
    now = 59_000
    expect(gate.refusal('c')).toContain('over capacity')
    now = 61_000
    expect(gate.refusal('c')).toBeNull()
    expect(gate.inFlight).toBe(0)
  })
})
