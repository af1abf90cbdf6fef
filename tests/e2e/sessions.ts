// Sessions for the dashboard's browser tests: generated signals ingested with the demo organization's
// secret key (scored by the real service), and their stored results read back over REST.
import { expect } from 'bun:test'
import { extractFeatures } from '../../src/scoring/features'
import type { Signal } from '../../src/scoring/signals'
import type { Server } from './support'

export type Result = { session_id: string; hcs: number; verdict: string; reasons: string[]; signals: number; model_version: string }

/** A deterministic generator, so a failing run can be repeated. */
function random(seed: number) {
  let s = seed
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31
    return s / 2 ** 31
  }
}

/** Pointer moves (and a few keys): straight and evenly timed for `mechanical`, curved and uneven otherwise. */
function sessionSignals(i: number, mechanical: boolean): Signal[] {
  const rnd = random(1000 + i)
  const out: Signal[] = []
  let t = 0
  for (let n = 0; n < 120; n++) {
    const p = n / 119
    if (mechanical) {
      t += 16
      out.push({ t, k: 'mm', x: 100 + 500 * p, y: 100 + 200 * p } as Signal)
    } else {
      t += 8 + Math.round(rnd() * 30)
      out.push({ t, k: 'mm', x: 100 + 500 * p + 60 * Math.sin(p * 3) + rnd() * 4, y: 300 - 150 * p * p + rnd() * 4 } as Signal)
    }
  }
  for (let n = 0; n < 12; n++) {
    t += mechanical ? 50 : 90 + Math.round(rnd() * 160)
    out.push({ t, k: 'kd', kc: 'char' } as Signal)
    t += mechanical ? 1 : 60 + Math.round(rnd() * 60)
    out.push({ t, k: 'ku', kc: 'char' } as Signal)
  }
  return out
}

export async function ingestGenerated(server: Server, count: number): Promise<Result[]> {
  const out: Result[] = []
  for (let i = 0; i < count; i++) {
    const signals = sessionSignals(i, i % 3 === 0)
    const res = await fetch(`${server.url}/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.demo.secret_key },
      body: JSON.stringify({
        session_id: crypto.randomUUID(),
        sdk_type: 'server',
        captured_at: new Date().toISOString(),
        signals,
        features: extractFeatures(signals),
      }),
    })
    expect(res.status).toBe(200)
    out.push((await res.json()) as Result)
  }
  return out
}

export const stored = async (server: Server, id: string) =>
  (await (await fetch(`${server.url}/v1/session/${id}`, { headers: { 'x-api-key': server.demo.secret_key } })).json()) as Result & {
    label: string | null
  }

/** Wilson 95 % interval, as issue 18 asks. */
export function wilson(k: number, n: number): [number, number] {
  const z = 1.959963984540054
  const p = k / n
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  return [Math.max(0, centre - half), Math.min(1, centre + half)]
}
export const pct = (share: number) => `${(share * 100).toFixed(1)} %`
