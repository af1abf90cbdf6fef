// bun run bench/scoring.ts — time the server's features and M4 inference on
// sessions of 2,000 signals (real SapiMouse windows cut to length, plus
// synthetic page sessions with keys and scrolls, concatenated to length).
import { loadavg } from 'node:os'
import { extractFeatures } from '../src/scoring/features'
import { sessionEvidenceOf } from '../src/scoring/evidence'
import { MODEL as model, scoreSession, trajectoryFingerprint } from '../src/scoring/service'
import { sessionFeatures } from '../src/scoring/session-features'
import type { Signal } from '../src/scoring/signals'
import { sessionFor } from '../ml/training/pipeline'
import { loadReal } from '../ml/data/load'

const SIGNALS = 2000
const SESSIONS = 200
const ROUNDS = 5
const WARMUP_ROUNDS = 5

const sapi = loadReal('sapimouse')

function sessionOf(length: number, start: number): Signal[] {
  // even sessions: a real SapiMouse window (≈ 2,200 signals) cut to length; odd: synthetic pages with every modality
  if (start % 2 === 0) return sapi[(start / 2) % sapi.length].signals.slice(0, length)
  const out: Signal[] = []
  let offset = 0
  for (let i = start; out.length < length; i++) {
    const part = sessionFor(1, 'human', i)
    for (const s of part) out.push({ ...s, t: s.t + offset })
    offset = out.length ? out[out.length - 1].t + 1000 : offset
  }
  return out.slice(0, length)
}

function time(label: string, run: (s: Signal[], f: number[]) => unknown, sessions: Signal[][], features: number[][]): void {
  for (let r = 0; r < WARMUP_ROUNDS; r++) for (let i = 0; i < sessions.length; i++) run(sessions[i], features[i])
  const samples: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < sessions.length; i++) {
      const t0 = performance.now()
      run(sessions[i], features[i])
      samples.push((performance.now() - t0) * 1000)
    }
  }
  samples.sort((a, b) => a - b)
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))].toFixed(1)
  const mean = (samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(1)
  console.log(`| ${label} | ${q(0.5)} | ${q(0.99)} | ${mean} |`)
}

const sessions = Array.from({ length: SESSIONS }, (_, i) => sessionOf(SIGNALS, i % 2 ? i * 20 + 1 : i))
const features = sessions.map((s) => extractFeatures(s))

console.log(
  `${SESSIONS} sessions × ${SIGNALS} signals, ${ROUNDS} rounds, Bun ${Bun.version}; µs per session; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`
)
console.log('| step | p50 | p99 | mean |\n|---|---:|---:|---:|')
time("sessionFeatures (the model's features)", (s) => sessionFeatures(s), sessions, features)
time('sessionFeatures + inference (all modalities, reasons)', (s) => sessionEvidenceOf(model, sessionFeatures(s)), sessions, features)
time('extractFeatures (34-number vector, for the SDK check)', (s) => extractFeatures(s), sessions, features)
time(
  'scoreSession (everything: both feature sets, checks, verdict)',
  (s, f) => scoreSession({ signals: s, clientFeatures: f }),
  sessions,
  features
)
time('trajectoryFingerprint', (s) => trajectoryFingerprint(s), sessions, features)
