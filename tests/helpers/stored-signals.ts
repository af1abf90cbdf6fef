import type { Signal } from '../../src/scoring/signals'
import { unpackSignals } from '../../src/server/modules/ingest/codec'
import type { Sql } from '../../src/server/platform/db'

export type StoredBatch = { seq: number; captured_at: Date; signal_count: number; signals: Signal[] | null }

/**
 * A session's stored batches in seq order, signals decoded as ingest reads them: `packed` (0012), or
 * the JSONB of rows written before it; null once purged.
 */
export async function storedBatches(sql: Sql, orgId: string, sessionId: string): Promise<StoredBatch[]> {
  const rows = await sql<(Omit<StoredBatch, 'signals'> & { signals: Signal[] | null; packed: Uint8Array | null })[]>`
    select seq, captured_at, signal_count, signals, packed from session_batches
    where org_id = ${orgId} and session_id = ${sessionId} order by seq`
  return rows.map((r) => ({
    seq: r.seq,
    captured_at: r.captured_at,
    signal_count: r.signal_count,
    signals: r.packed ? unpackSignals(r.packed) : r.signals,
  }))
}
