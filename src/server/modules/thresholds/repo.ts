import type { Sql, Tx } from '../../platform/db'

/** The only file that names verdict_thresholds and threshold_changes in SQL. */

type Q = Sql | Tx

export type ThresholdRow = { bot_below: number; human_above: number }
export type ThresholdChangeRow = {
  changed_at: Date
  changed_by: string
  previous_bot_below: number
  previous_human_above: number
  bot_below: number
  human_above: number
}

export async function findThresholds(sql: Q, orgId: string): Promise<ThresholdRow | null> {
  const [row]: [ThresholdRow?] = await sql`select bot_below, human_above from verdict_thresholds where org_id = ${orgId}`
  return row ?? null
}

/** The current row locked for the change (null: none yet, the defaults apply). */
export async function lockThresholds(tx: Tx, orgId: string): Promise<ThresholdRow | null> {
  const [row]: [ThresholdRow?] = await tx`select bot_below, human_above from verdict_thresholds where org_id = ${orgId} for update`
  return row ?? null
}

/** Writes the new thresholds and records the change, in the caller's transaction. */
export async function writeThresholds(
  tx: Tx,
  c: { orgId: string; previous: ThresholdRow; next: ThresholdRow; by: string; now: Date }
): Promise<void> {
  await Promise.all([
    tx`insert into verdict_thresholds (org_id, bot_below, human_above, updated_at)
       values (${c.orgId}, ${c.next.bot_below}, ${c.next.human_above}, ${c.now})
       on conflict (org_id) do update set bot_below = excluded.bot_below, human_above = excluded.human_above, updated_at = excluded.updated_at`,
    tx`insert into threshold_changes (org_id, changed_at, changed_by, previous_bot_below, previous_human_above, bot_below, human_above)
       values (${c.orgId}, ${c.now}, ${c.by}, ${c.previous.bot_below}, ${c.previous.human_above}, ${c.next.bot_below}, ${c.next.human_above})`,
  ])
}

export function listChanges(sql: Q, orgId: string, first: number): Promise<ThresholdChangeRow[]> {
  return sql<ThresholdChangeRow[]>`
    select changed_at, changed_by, previous_bot_below, previous_human_above, bot_below, human_above
    from threshold_changes where org_id = ${orgId} order by changed_at desc limit ${first}`
}
