// Reads the NDJSON export of customers' labelled sessions (GET /v1/labels/export, docs/labels.md)
// into the session format the evaluation and training use (RealSession of ./load.ts), so real
// labelled traffic can join the data. Nothing reads it automatically: a person decides to.
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { SIGNAL_KINDS, type Signal } from '../../src/scoring/signals'
import type { RealSession } from './load'

/** One exported line, as the server writes it. */
export type ExportLine = {
  session_id: string
  label: 'human' | 'bot'
  note: string | null
  labeled_at: string
  hcs: number | null
  m3_score: number | null
  verdict: string | null
  model_version: string | null
  first_seen_at: string
  signals: Signal[]
}

/**
 * A labelled customer session in the eval's format. Each session is its own k-fold group (the export
 * names no person), family `customer_human` / `customer_bot`; what the server said is kept beside it.
 */
export type LabelledSession = Omit<RealSession, 'source'> & {
  source: 'labelled_export'
  sessionId: string
  note: string | null
  labeledAt: string
  served: { hcs: number | null; m3Score: number | null; verdict: string | null; modelVersion: string | null }
}

const KINDS = new Set<string>(SIGNAL_KINDS)

function check(line: unknown, n: number): ExportLine {
  const fail = (what: string) => {
    throw new Error(`labelled export, line ${n}: ${what}`)
  }
  if (!line || typeof line !== 'object') fail('not an object')
  const l = line as Record<string, unknown>
  if (typeof l.session_id !== 'string') fail('session_id missing')
  if (l.label !== 'human' && l.label !== 'bot') fail(`label must be human or bot, not ${JSON.stringify(l.label)}`)
  if (!Array.isArray(l.signals)) fail('signals missing')
  for (const [i, s] of (l.signals as unknown[]).entries()) {
    const sig = s as Record<string, unknown>
    if (!sig || typeof sig.t !== 'number' || typeof sig.k !== 'string' || !KINDS.has(sig.k)) fail(`signals[${i}] is not a signal`)
  }
  return l as unknown as ExportLine
}

/** Parses the export's text (NDJSON); a malformed line is an error naming it, never skipped silently. */
export function parseLabelledExport(text: string): LabelledSession[] {
  const out: LabelledSession[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim()) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(lines[i]!)
    } catch {
      throw new Error(`labelled export, line ${i + 1}: not JSON`)
    }
    const l = check(parsed, i + 1)
    const ts = l.signals.map((s) => s.t).filter(Number.isFinite)
    out.push({
      source: 'labelled_export',
      unit: 'session',
      user: l.session_id,
      group: `export:${l.session_id}`,
      family: `customer_${l.label}`,
      label: l.label,
      capture: 'customer site (SDK)',
      span_s: ts.length ? (Math.max(...ts) - Math.min(...ts)) / 1000 : 0,
      signals: l.signals,
      sessionId: l.session_id,
      note: l.note,
      labeledAt: l.labeled_at,
      served: { hcs: l.hcs, m3Score: l.m3_score, verdict: l.verdict, modelVersion: l.model_version },
    })
  }
  return out
}

/** Reads an export file (`.ndjson`, or `.ndjson.gz`). */
export function loadLabelledExport(path: string): LabelledSession[] {
  const raw = readFileSync(path)
  return parseLabelledExport((path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'))
}
