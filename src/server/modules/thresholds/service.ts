import { DEFAULT_THRESHOLDS, type VerdictThresholds } from '../../../scoring/service'
import type { Sql, Tx } from '../../platform/db'
import * as repo from './repo'

export type { VerdictThresholds }
export { DEFAULT_THRESHOLDS }

const toThresholds = (row: repo.ThresholdRow | null): VerdictThresholds =>
  row ? { botBelow: Number(row.bot_below), humanAbove: Number(row.human_above) } : DEFAULT_THRESHOLDS

/** The organization's thresholds, or the defaults (70 / 30) when it never set any. */
export async function getThresholds(sql: Sql | Tx, orgId: string): Promise<VerdictThresholds> {
  return toThresholds(await repo.findThresholds(sql, orgId))
}

/** Sets the thresholds and records the change (who, when, old, new), in one transaction; returns the new ones. */
export async function setThresholds(tx: Tx, orgId: string, next: VerdictThresholds, by: string, now: Date): Promise<VerdictThresholds> {
  // The row lock orders two concurrent changes, so each history row's "previous" is what it replaced.
  const previous = toThresholds(await repo.lockThresholds(tx, orgId))
  await repo.writeThresholds(tx, {
    orgId,
    previous: { bot_below: previous.botBelow, human_above: previous.humanAbove },
    next: { bot_below: next.botBelow, human_above: next.humanAbove },
    by,
    now,
  })
  return next
}

export type ThresholdChange = { changedAt: string; changedBy: string; previous: VerdictThresholds; next: VerdictThresholds }

export async function thresholdHistory(sql: Sql | Tx, orgId: string, first: number): Promise<ThresholdChange[]> {
  return (await repo.listChanges(sql, orgId, first)).map((r) => ({
    changedAt: r.changed_at.toISOString(),
    changedBy: r.changed_by,
    previous: { botBelow: Number(r.previous_bot_below), humanAbove: Number(r.previous_human_above) },
    next: { botBelow: Number(r.bot_below), humanAbove: Number(r.human_above) },
  }))
}
