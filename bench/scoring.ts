// bun run bench/scoring.ts — time feature extraction and M3 inference on
// sessions of 2,000 signals (synthetic humans, concatenated to length).
import { loadavg } from 'node:os'
import { extractFeatures } from '../src/scoring/features'
import { humanProbability } from '../src/scoring/inference'
import { M3_MODEL as model, scoreSession, trajectoryFingerprint } from '../src/scoring/service'
import type { Signal } from '../src/scoring/signals'
import { sessionFor } from '../ml/training/pipeline'

const SIGNALS = 2000
const SESSIONS = 200
const ROUNDS = 5
const WARMUP_ROUNDS = 5

function sessionOf(length: number, start: number): Signal[] {
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

const sessions = Array.from({ length: SESSIONS }, (_, i) => sessionOf(SIGNALS, i * 20))
const features = sessions.map((s) => extractFeatures(s))

console.log(`${SESSIONS} sessions × ${SIGNALS} signals, ${ROUNDS} rounds, Bun ${Bun.version}; µs per session; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`)
console.log('| step | p50 | p99 | mean |\n|---|---:|---:|---:|')
time('extractFeatures', (s) => extractFeatures(s), sessions, features)
time('inference (200 trees + calibration)', (_, f) => humanProbability(model, f), sessions, features)
time('extractFeatures + inference', (s) => humanProbability(model, extractFeatures(s)), sessions, features)
time('scoreSession (features, integrity checks, reasons)', (s, f) => scoreSession({ signals: s, clientFeatures: f }), sessions, features)
time('trajectoryFingerprint', (s) => trajectoryFingerprint(s), sessions, features)
