import {
  CANDIDATE_LIMIT,
  decodeMaterial,
  encodeMaterial,
  hasMaterial,
  judgeReuse,
  KEY_FANOUT_LIMIT,
  materialKeys,
  type ReplayMaterial,
  type ReuseJudgement,
  replayMaterial,
} from '../../../scoring/replay'
import type { Signal } from '../../../scoring/signals'
import type { Tx } from '../../platform/db'
import * as repo from './repo'

/**
 * The organization's store of reused human material (session_replay and session_replay_keys, migration
 * 0020; its statements
 * are in repo.ts). The rule is replay.ts's, and `npm run eval`'s in-memory store (MemoryReplayStore)
 * applies the same: candidates are the organization's other sessions that started no later than this
 * one and share a key with it (each key its KEY_FANOUT_LIMIT most recent ones), the CANDIDATE_LIMIT sharing most; judgeReuse decides by distance. It runs when a
 * session is scored, over the signals the score already reads: a batch's write never comes here.
 */

/** A session's material and keys, computed once per scoring (pure, from the signals the score reads). */
export type SessionMaterial = { material: ReplayMaterial; stored: number[]; lookup: number[] }

export function sessionMaterial(orgId: string, signals: readonly Signal[]): SessionMaterial {
  const material = replayMaterial(signals)
  return { material, ...materialKeys(orgId, material) }
}

/** What scoring needs: whether the session reuses strokes or a typing rhythm of earlier sessions. */
export type Reuse = { strokes: boolean; typing: boolean; judgement?: ReuseJudgement }

/**
 * Judges the session against the organization's earlier sessions: the CANDIDATE_LIMIT sessions sharing
 * most keys with it (each key counting its KEY_FANOUT_LIMIT most recent sharers), then their material
 * (two statements), then judgeReuse.
 */
export async function findReuse(tx: Tx, orgId: string, sessionId: string, m: SessionMaterial): Promise<Reuse> {
  if (!hasMaterial(m.material)) return { strokes: false, typing: false }
  const top = await repo.replayKeyMatches(tx, orgId, sessionId, m.lookup, KEY_FANOUT_LIMIT, CANDIDATE_LIMIT)
  if (!top.length) return { strokes: false, typing: false }
  const rows = await repo.replayMaterials(
    tx,
    orgId,
    top.map((t) => t.session_id)
  )
  const material = new Map(rows.map((r) => [r.session_id, decodeMaterial(r.material)]))
  const candidates = top.filter((t) => material.has(t.session_id)).map((t) => ({ id: t.session_id, material: material.get(t.session_id)! }))
  const judgement = judgeReuse(orgId, m.material, candidates)
  return { strokes: judgement.strokesReused, typing: judgement.typingReused, judgement }
}

/** Stores the session's material with its score; nothing for a session without distinctive material. */
export async function storeMaterial(tx: Tx, orgId: string, sessionId: string, m: SessionMaterial): Promise<void> {
  if (!hasMaterial(m.material)) return
  await repo.storeReplayMaterial(tx, orgId, sessionId, m.stored, encodeMaterial(m.material))
}
