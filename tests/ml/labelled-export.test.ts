import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { loadLabelledExport, parseLabelledExport } from '../../ml/data/labelled-export'
import type { RealSession } from '../../ml/data/load'
import { extractFeatures, windowFeatures } from '../../src/scoring/features'
import { judgeEvidence, MODEL, sessionEvidence } from '../../src/scoring/service'
import type { Signal } from '../../src/scoring/signals'
import { createHarness, type Harness } from '../helpers/harness'

/** The export of labelled sessions round-trips through the ml/ loader into the eval's session format. */
let h: Harness
beforeAll(async () => {
  h = await createHarness()
}, 60_000)
afterAll(() => h?.close())

/** as ml/training/eval.ts scores a session: the honest client vector of its signals */
const evalScore = (signals: readonly Signal[]) =>
  judgeEvidence(
    MODEL,
    sessionEvidence({
      signals,
      clientFeatures: windowFeatures(signals),
    })
  )

function typing(n: number, jitter: number): Signal[] {
  const out: Signal[] = []
  let t = 0
  for (let i = 0; i < n; i++) {
    out.push({ t, k: 'kd', kc: i % 7 ? 'char' : 'space' }, { t: t + 70 + ((i * jitter) % 60), k: 'ku', kc: 'char' })
    t += 140 + ((i * 97 * jitter) % 230)
  }
  return out
}

describe('ml/data/labelled-export.ts', () => {
  it('export → loader → the eval’s session format, signals and labels intact, scored as the server scored them', async () => {
    const sessions = [
      { signals: typing(30, 53), label: 'human' },
      { signals: typing(30, 0), label: 'bot' },
      { signals: [...typing(10, 7), { t: 3000, k: 'mm', x: 10, y: 10 } as Signal, { t: 3016, k: 's', dy: 100 } as Signal], label: 'human' },
    ] as const
    const ids: string[] = []
    for (const s of sessions) {
      const session_id = crypto.randomUUID()
      const res = await h.json('POST', '/v1/ingest', {
        headers: { 'x-api-key': h.a.secretKey },
        body: {
          session_id,
          sdk_type: 'web',
          captured_at: h.clock.now().toISOString(),
          signals: s.signals,
          features: extractFeatures(s.signals),
        },
      })
      expect(res.status).toBe(200)
      expect(
        (await h.json('POST', `/v1/session/${session_id}/label`, { headers: { 'x-api-key': h.a.secretKey }, body: { label: s.label } }))
          .status
      ).toBe(200)
      ids.push(session_id)
      h.clock.advance(1000)
    }
    const res = await h.request('GET', '/v1/labels/export', { headers: { authorization: `Bearer ${h.a.jwt}` } })
    expect(res.status).toBe(200)
    const text = await res.text()
    const dir = mkdtempSync(join(tmpdir(), 'labelled-export-'))
    writeFileSync(join(dir, 'export.ndjson.gz'), gzipSync(text))
    const loaded = loadLabelledExport(join(dir, 'export.ndjson.gz'))
    expect(loaded).toEqual(parseLabelledExport(text))
    expect(loaded.map((s) => s.sessionId)).toEqual(ids)
    loaded.forEach((s, i) => {
      // the eval's format: every field of RealSession, with the same types
      const asEval: Omit<RealSession, 'source'> = s
      expect(Object.keys(asEval)).toEqual(
        expect.arrayContaining(['unit', 'user', 'group', 'family', 'label', 'capture', 'span_s', 'signals'])
      )
      expect(s.label).toBe(sessions[i]!.label)
      expect(s.family).toBe(`customer_${sessions[i]!.label}`)
      expect(s.signals).toEqual([...sessions[i]!.signals])
      expect(s.span_s).toBeGreaterThan(0)
      const scored = evalScore(s.signals)
      expect(scored.hcs).toBe(s.served.hcs!)
      expect(scored.verdict).toBe(s.served.verdict as typeof scored.verdict)
    })
  })

  it('a malformed line is an error naming it, not skipped', () => {
    const good = JSON.stringify({ session_id: 'x', label: 'bot', signals: [{ t: 0, k: 'mm', x: 1, y: 1 }] })
    expect(parseLabelledExport(`${good}\n\n`)).toHaveLength(1)
    expect(() => parseLabelledExport(`${good}\n{"session_id":`)).toThrow('line 2: not JSON')
    expect(() => parseLabelledExport(JSON.stringify({ session_id: 'x', label: 'maybe', signals: [] }))).toThrow('line 1: label')
    expect(() => parseLabelledExport(JSON.stringify({ session_id: 'x', label: 'bot', signals: [{ t: 0, k: 'zz' }] }))).toThrow('signals[0]')
  })
})
