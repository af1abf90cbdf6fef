// Typed loaders for the real recordings of ml/data/real (README there: what
// they are, licences). Groups are what k-fold keeps together so that a model
// never scores a person it was trained on: SapiMouse by user; DELBOT by
// family, because each DELBOT human family is one recording setup (most
// likely one person) and its `user` field names single recordings.
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import type { Signal } from '../../src/scoring/signals'

export type RealSource = 'sapimouse' | 'delbot'

export type RealSession = {
  source: RealSource
  /** `window60s` (SapiMouse), `page` or `trajectory` (DELBOT) */
  unit: string
  user: string
  /** k-fold group: never split between training and scoring */
  group: string
  /** SapiMouse session S1/S3; DELBOT human_pc1, bot_pynput, … */
  family: string
  label: 'human' | 'bot'
  capture: string
  span_s: number
  signals: Signal[]
}

type Raw = Omit<RealSession, 'group'> & { part?: string }

/** the lines of a gzipped JSON-lines file of this folder, parsed */
function readJsonLines<T>(path: string): T[] {
  const text = gunzipSync(readFileSync(new URL(path, import.meta.url))).toString('utf8')
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T)
}

const cache = new Map<RealSource, RealSession[]>()

export function loadReal(source: RealSource): RealSession[] {
  const hit = cache.get(source)
  if (hit) return hit
  const out = readJsonLines<Raw>(`./real/${source}.jsonl.gz`).map(
    (r): RealSession => ({
      source,
      unit: r.unit,
      user: r.user,
      group: source === 'sapimouse' ? `sapimouse:${r.user}` : `delbot:${r.family}`,
      family: r.family,
      label: r.label,
      capture: r.capture,
      span_s: r.span_s,
      signals: r.signals,
    })
  )
  cache.set(source, out)
  return out
}

export const loadAllReal = (): RealSession[] => [...loadReal('sapimouse'), ...loadReal('delbot')]

/** A bot tool's visit recorded through the SDK in a real browser (ml/data/browser/README.md). */
export type BrowserVisit = { browser: string; tool: string; visit: number; signals: Signal[] }

const browserCache = new Map<string, BrowserVisit[]>()

/** The recorded visits of one tool (`humanizer_bezier`), every browser. */
export function loadBrowserVisits(tool: string): BrowserVisit[] {
  const hit = browserCache.get(tool)
  if (hit) return hit
  const out = readJsonLines<BrowserVisit>(`./browser/${tool}.jsonl.gz`)
  browserCache.set(tool, out)
  return out
}

/**
 * A real person's window played into a real browser by the X server (ml/data/browser/README.md): the window
 * as SapiMouse recorded it and what the SDK stored from the browser. `rate`: 0 when played at the recorded
 * moves, else the mouse rate (Hz) the window was resampled to before it was played.
 */
export type PersonVisit = {
  browser: string
  rate: number
  /** the window's length */
  seconds: number
  visit: number
  user: string
  recorded: Signal[]
  signals: Signal[]
}

let peopleCache: PersonVisit[] | null = null

/** Every recorded visit of real people's windows through real browsers (`people.jsonl.gz`). */
export function loadPeopleThroughBrowsers(): PersonVisit[] {
  peopleCache ??= readJsonLines<PersonVisit>('./browser/people.jsonl.gz')
  return peopleCache
}
