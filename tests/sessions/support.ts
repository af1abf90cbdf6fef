import { expect } from 'bun:test'
import { codes, gql } from '../graphql/gql'
import type { Harness, SeededOrg } from '../helpers/harness'
import type { Signal } from '../../src/scoring/signals'

export { codes }

/** One GraphQL call as `org`'s owner; returns the whole answer. */
export const ask = (h: Harness, org: SeededOrg, query: string, variables?: Record<string, unknown>) =>
  gql(h.app, { jwt: org.jwt }, query, variables)

/** A GraphQL call that must succeed; its data. */
export async function data(h: Harness, org: SeededOrg, query: string, variables?: Record<string, unknown>) {
  const res = await ask(h, org, query, variables)
  expect(res.body.errors).toBeUndefined()
  expect(res.status).toBe(200)
  return res.body.data
}

/** A session sent with `org`'s secret key (so it is scored at once); its id. */
export async function scoredSession(h: Harness, org: SeededOrg, signals?: Signal[]): Promise<string> {
  const session_id = crypto.randomUUID()
  const body = {
    session_id,
    sdk_type: 'server',
    captured_at: h.clock.now().toISOString(),
    signals: signals ?? [
      { t: 0, k: 'mm', x: 1, y: 2 },
      { t: 16, k: 'mm', x: 5, y: 4 },
    ],
    features: Array(34).fill(0.1),
  }
  const res = await h.json('POST', '/v1/ingest', { headers: { 'x-api-key': org.secretKey }, body })
  expect(res.status).toBe(200)
  return session_id
}

/**
 * Rows written straight into the database (the owner's table, as a fixture): hcs, verdict, label and
 * first_seen_at chosen by the test, for the figures that must come out of them exactly.
 */
export async function fixtureSessions(
  h: Harness,
  org: SeededOrg,
  rows: { hcs: number | null; verdict: string | null; label?: 'human' | 'bot' | null; at?: Date; reasons?: string[] }[]
): Promise<string[]> {
  const ids: string[] = []
  for (const r of rows) {
    const id = crypto.randomUUID()
    const at = r.at ?? h.clock.now()
    await h.deps.db.sql`
      insert into sessions (org_id, session_id, sdk_type, usage_month, first_seen_at, last_batch_at, batch_count, scored_batches,
        hcs, m3_score, verdict, reasons, model_version, scored_at, label, labeled_at, labeled_by)
      values (${org.orgId}, ${id}, 'server', ${`${at.toISOString().slice(0, 8)}01`}, ${at}, ${at}, 0, ${r.verdict ? 0 : null},
        ${r.hcs}, ${r.hcs === null ? null : r.hcs / 100}, ${r.verdict}, ${r.reasons ?? []}::text[], ${r.verdict ? 'fixture' : null},
        ${r.verdict ? at : null}, ${r.label ?? null}, ${r.label ? at : null}, ${r.label ? 'fixture' : null})`
    ids.push(id)
  }
  return ids
}
