import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Signal } from '../../src/scoring/signals'
import { packSignals } from '../../src/server/modules/ingest/codec'
import { createHarness, type Harness, type SeededOrg } from '../helpers/harness'
import { FEATURES, makeSignals, midMonth, rowCounts, unlimitEnterprise, postIngest } from './support'

// Group commit (issue 14): concurrent batches of different sessions share one transaction. Each batch
// must still be answered exactly as if it had been written alone — a refused quota claim, a closed or
// full session, a retry — and nothing of a refused batch may stay behind, whatever else its group held.

let h: Harness
let busy: SeededOrg
let small: SeededOrg
beforeAll(async () => {
  h = await createHarness()
  h.clock.current = midMonth()
  await unlimitEnterprise(h)
  await h.deps.db.sql`insert into plans (plan_id, display_name, sessions_limit) values ('five', 'Five', 5)`
  busy = await h.seedOrg('Busy', 'enterprise')
  small = await h.seedOrg('Small', 'five')
}, 60_000)
afterAll(() => h.close())

const post = (key: string, body: unknown) => postIngest(h, key, body)

const batch = (sessionId: string, signals: unknown[], at = h.clock.now()) => ({
  session_id: sessionId,
  sdk_type: 'web',
  captured_at: at.toISOString(),
  signals,
  features: FEATURES,
})

describe('group commit', () => {
  it('answers every batch of a mixed burst as if it had been written alone', async () => {
    const closed = crypto.randomUUID()
    expect((await post(busy.publicKey, batch(closed, makeSignals(10)))).status).toBe(202)
    h.clock.advance(31 * 60_000)
    const full = crypto.randomUUID()
    for (let i = 0; i < 5; i++) {
      const res = await post(busy.publicKey, batch(full, makeSignals(10_000, i * 200_000), new Date(h.clock.now().getTime() - i)))
      expect(res.status).toBe(202)
    }
    const open = Array.from({ length: 6 }, () => crypto.randomUUID())
    const firsts = open.map((id, i) => batch(id, makeSignals(20, 0, i)))
    for (const b of firsts) expect((await post(busy.publicKey, b)).status).toBe(202)
    const before = { busy: await rowCounts(h, busy), small: await rowCounts(h, small) }
    h.clock.advance(1000)

    const burst: { name: string; key: string; body: unknown }[] = [
      ...open.map((id, i) => ({ name: 'continuing', key: busy.publicKey, body: batch(id, makeSignals(30, 50_000, i)) })),
      ...firsts.map((b) => ({ name: 'retry', key: busy.publicKey, body: b })),
      { name: 'closed', key: busy.publicKey, body: batch(closed, makeSignals(5, 90_000)) },
      { name: 'full', key: busy.publicKey, body: batch(full, makeSignals(1, 2_000_000)) },
      ...Array.from({ length: 12 }, (_, i) => ({
        name: 'new-small',
        key: small.publicKey,
        body: batch(crypto.randomUUID(), makeSignals(15, 0, i)),
      })),
      ...Array.from({ length: 8 }, (_, i) => ({
        name: 'new-busy',
        key: busy.publicKey,
        body: batch(crypto.randomUUID(), makeSignals(25, 0, i)),
      })),
    ]
    const responses = await Promise.all(burst.map((r) => post(r.key, r.body)))
    const answers = await Promise.all(responses.map(async (res) => ({ status: res.status, body: (await res.json()) as any })))
    const of = (name: string) => answers.filter((_, i) => burst[i]!.name === name)

    expect(of('continuing').map((a) => a.status)).toEqual(Array(6).fill(202))
    expect(of('continuing').map((a) => a.body.accepted)).toEqual(Array(6).fill(30))
    // A retry answers with the original batch's count and stores nothing.
    expect(of('retry').map((a) => [a.status, a.body.accepted])).toEqual(Array(6).fill([202, 20]))
    expect(of('closed')[0]!.status).toBe(409)
    expect(of('closed')[0]!.body.error.message).toContain('30 minutes')
    expect(of('full')[0]!.status).toBe(409)
    expect(of('full')[0]!.body.error.message).toContain('50,000 signals')
    // Exactly the plan's five new sessions, the rest refused and gone.
    const small429 = of('new-small').filter((a) => a.status === 429)
    expect(of('new-small').filter((a) => a.status === 202)).toHaveLength(5)
    expect(small429).toHaveLength(7)
    for (const a of small429) expect(a.body.error.code).toBe('plan_limit_exceeded')
    expect(of('new-busy').map((a) => a.status)).toEqual(Array(8).fill(202))

    expect(await rowCounts(h, small)).toEqual({ sessions: before.small.sessions + 5, batches: before.small.batches + 5, used: 5 })
    expect(await rowCounts(h, busy)).toEqual({
      sessions: before.busy.sessions + 8,
      batches: before.busy.batches + 6 + 8,
      used: before.busy.used + 8,
    })
    // Rows written in one transaction share its xmin: the burst's batches went in shared transactions.
    const [tx] = await h.deps.db.sql<{ batches: number; transactions: number }[]>`
      select count(*)::int as batches, count(distinct xmin::text)::int as transactions
      from session_batches where received_at = ${h.clock.now()} and org_id in (${busy.orgId}, ${small.orgId})`
    expect(tx!.batches).toBe(6 + 5 + 8)
    expect(tx!.transactions).toBeLessThan(tx!.batches)
    const rows = await h.deps.db.sql<{ batch_count: number; signal_count: number }[]>`
      select batch_count, signal_count from sessions where org_id = ${busy.orgId} and session_id in ${h.deps.db.sql(open)}`
    expect(rows.map((r) => [r.batch_count, r.signal_count])).toEqual(Array(6).fill([2, 50]))
    // Each batch of a shared statement stored its own bytes, exactly (a group's packed bytes go as one parameter).
    for (const [i, id] of open.entries()) {
      const sent = [makeSignals(20, 0, i), makeSignals(30, 50_000, i)] as Signal[][]
      const stored = await h.deps.db.sql<{ packed: Uint8Array }[]>`
        select packed from session_batches where org_id = ${busy.orgId} and session_id = ${id} order by seq`
      expect(stored.map((r) => Buffer.from(r.packed).toString('hex'))).toEqual(sent.map((s) => Buffer.from(packSignals(s)).toString('hex')))
    }
  }, 60_000)

  it('writes the other batches of a group that a database error aborted again, one by one', async () => {
    // A test-only trigger makes the insert of any 7-signal batch fail, which aborts its whole group.
    const sql = h.deps.db.sql
    await sql.unsafe(`create function fail_seven() returns trigger language plpgsql as $$
      begin if new.signal_count = 7 then raise exception 'seven'; end if; return new; end $$`)
    await sql.unsafe('create trigger fail_seven before insert on session_batches for each row execute function fail_seven()')
    try {
      const before = await rowCounts(h, busy)
      const bodies = Array.from({ length: 24 }, (_, i) => batch(crypto.randomUUID(), makeSignals(i === 12 ? 7 : 10, 0, i)))
      const answers = await Promise.all(bodies.map((b) => post(busy.publicKey, b)))
      const statuses = answers.map((r) => r.status)
      expect(statuses.filter((_, i) => i !== 12)).toEqual(Array(23).fill(202))
      expect(statuses[12]).toBe(500)
      expect(await rowCounts(h, busy)).toEqual({ sessions: before.sessions + 23, batches: before.batches + 23, used: before.used + 23 })
    } finally {
      await sql.unsafe('drop trigger fail_seven on session_batches')
      await sql.unsafe('drop function fail_seven()')
    }
  }, 60_000)
})
