import * as v from 'valibot'
import { KEY_CLASSES, SIGNAL_KINDS } from '../../../scoring/signals'
import { FEATURE_COUNT, SDK_TYPES, UUID_RE } from '../../platform/contract'
import { ApiError } from '../../platform/errors'
import { pageSize } from '../graphql'

export const MAX_SIGNALS = 10_000
export const MAX_FUTURE_MS = 5 * 60_000
export const MAX_PAST_MS = 30 * 24 * 3600_000
const ISO_UTC_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/

const finite = v.pipe(v.number(), v.finite())
const optionalFinite = v.optional(finite)

/** One signal event. v.object (not strictObject): unknown keys are dropped from the output, never stored. */
export const SignalEvent = v.object({
  t: v.pipe(v.number(), v.finite(), v.minValue(0)),
  k: v.picklist(SIGNAL_KINDS),
  x: optionalFinite,
  y: optionalFinite,
  dy: optionalFinite,
  kc: v.optional(v.picklist(KEY_CLASSES)),
  tr: v.optional(v.boolean()),
  ox: optionalFinite,
  oy: optionalFinite,
  p: optionalFinite,
  r: optionalFinite,
  n: optionalFinite,
  sc: v.optional(v.union([v.picklist([0, 1]), v.boolean()])),
})
export type SignalEvent = v.InferOutput<typeof SignalEvent>

/**
 * The events of one batch. abortEarly stops at the first bad event (its path, e.g. `signals[12].k`), so a
 * 10,000-event batch of garbage costs one issue, not 10,000; then `t` must never go back.
 */
export const Signals = v.pipe(
  v.config(v.array(SignalEvent, 'must be an array of signal events'), { abortEarly: true }),
  v.maxLength(MAX_SIGNALS, `must hold at most ${MAX_SIGNALS} events`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return
    const events = dataset.value
    for (let i = 1; i < events.length; i++) {
      if (events[i]!.t < events[i - 1]!.t) {
        addIssue({
          message: `must not be less than the previous event's t (${events[i - 1]!.t})`,
          input: events[i]!.t,
          path: [
            { type: 'array', origin: 'value', input: events, key: i, value: events[i]! },
            { type: 'object', origin: 'value', input: events[i]!, key: 't', value: events[i]!.t },
          ],
        })
        return
      }
    }
  })
)

const KINDS = new Set<unknown>(SIGNAL_KINDS)
const KEY_CLASS_SET = new Set<unknown>(KEY_CLASSES)
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * The events of a batch exactly as `Signals` outputs them (keys in the schema's order, unknown keys
 * dropped), or undefined at the first thing that is not plainly valid — then `Signals` itself runs and
 * words the error. Valibot's generic object walk was ~20 % of the service's CPU per batch (bench
 * profile); tests/ingest/validation-fast.test.ts holds this to valibot's answer on arbitrary input.
 */
export function fastSignals(input: unknown): SignalEvent[] | undefined {
  if (!Array.isArray(input) || input.length > MAX_SIGNALS) return
  const out = new Array<SignalEvent>(input.length)
  let previous = 0
  for (let i = 0; i < input.length; i++) {
    const e = input[i] as Record<string, unknown>
    if (typeof e !== 'object' || e === null) return
    const { t, k } = e
    if (!isFiniteNumber(t) || t < 0 || (i > 0 && t < previous) || !KINDS.has(k)) return
    previous = t
    const o = { t, k } as SignalEvent
    let v: unknown
    if ((v = e.x) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.x = v
    }
    if ((v = e.y) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.y = v
    }
    if ((v = e.dy) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.dy = v
    }
    if ((v = e.kc) !== undefined) {
      if (!KEY_CLASS_SET.has(v)) return
      o.kc = v as SignalEvent['kc']
    }
    if ((v = e.tr) !== undefined) {
      if (typeof v !== 'boolean') return
      o.tr = v
    }
    if ((v = e.ox) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.ox = v
    }
    if ((v = e.oy) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.oy = v
    }
    if ((v = e.p) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.p = v
    }
    if ((v = e.r) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.r = v
    }
    if ((v = e.n) !== undefined) {
      if (!isFiniteNumber(v)) return
      o.n = v
    }
    if ((v = e.sc) !== undefined) {
      if (v !== 0 && v !== 1 && typeof v !== 'boolean') return
      o.sc = v as SignalEvent['sc']
    }
    out[i] = o
  }
  return out
}

/** `Signals` with the fast path in front: the same schema (and JSON Schema) to everything that reads it. */
export const FastSignals: typeof Signals = {
  ...Signals,
  '~run'(dataset, config) {
    const fast = fastSignals(dataset.value)
    if (!fast) return Signals['~run'](dataset, config)
    return { typed: true, value: fast }
  },
}

/** Milliseconds since the epoch of a strict `YYYY-MM-DDTHH:MM:SS(.fff)Z` string, or NaN (also for 2026-02-31). */
export function parseIsoUtc(text: string): number {
  const m = ISO_UTC_RE.exec(text)
  if (!m) return NaN
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const ms = Number(((m[7] ?? '') + '000').slice(0, 3))
  const at = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  const d = new Date(at)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59)
    return NaN
  return at
}

/** captured_at's rule: a strict UTC time at most 5 minutes ahead of `now` and at most 30 days behind it; else the issue's message. */
function capturedAtOrIssue(text: string, now: Date): number | string {
  const at = parseIsoUtc(text)
  if (Number.isNaN(at)) return 'must be an ISO 8601 UTC time like 2026-01-31T12:00:00.000Z'
  const current = now.getTime()
  if (at > current + MAX_FUTURE_MS) return 'must not be more than 5 minutes in the future'
  if (at < current - MAX_PAST_MS) return 'must not be more than 30 days in the past'
  return at
}

/** The plain valibot schema of the body; ingestBody puts the fast path in front of it. */
export function ingestBodySchema(now: () => Date) {
  return v.object({
    session_id: v.pipe(v.string(), v.regex(UUID_RE, 'must be a UUID'), v.toLowerCase()),
    sdk_type: v.picklist(SDK_TYPES, `must be one of ${SDK_TYPES.join(', ')}`),
    captured_at: v.pipe(
      v.string(),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const at = capturedAtOrIssue(dataset.value, now())
        if (typeof at === 'string') {
          addIssue({ message: at })
          return NEVER
        }
        return new Date(at)
      })
    ),
    signals: FastSignals,
    // Length first: an array of 100,000 bad elements must cost one issue, not 100,000.
    features: v.pipe(
      v.array(v.unknown(), 'must be an array of numbers'),
      v.length(FEATURE_COUNT, `must have exactly ${FEATURE_COUNT} numbers`),
      v.array(finite, 'must be an array of numbers')
    ),
  })
}
export type IngestBody = v.InferOutput<ReturnType<typeof ingestBodySchema>>

const SDK_TYPE_SET = new Set<unknown>(SDK_TYPES)

/**
 * The body exactly as `ingestBodySchema` outputs it (keys in the schema's order, unknown keys dropped),
 * or undefined at the first thing that is not plainly valid — then the schema itself runs and words
 * the error. Valibot's walk of the top level and of the 34 features was ≈ 4 % of the service's CPU
 * per batch beside fastSignals; tests/ingest/validation-fast.test.ts holds this to valibot's answer.
 */
export function fastIngestBody(input: unknown, now: Date): IngestBody | undefined {
  if (typeof input !== 'object' || input === null) return
  const { session_id, sdk_type, captured_at, signals, features } = input as Record<string, unknown>
  if (typeof session_id !== 'string' || !UUID_RE.test(session_id) || !SDK_TYPE_SET.has(sdk_type)) return
  if (typeof captured_at !== 'string') return
  const at = capturedAtOrIssue(captured_at, now)
  if (typeof at === 'string') return
  if (!Array.isArray(features) || features.length !== FEATURE_COUNT) return
  const outFeatures = new Array<number>(FEATURE_COUNT)
  for (let i = 0; i < FEATURE_COUNT; i++) {
    const f = features[i]
    if (!isFiniteNumber(f)) return
    outFeatures[i] = f
  }
  const events = fastSignals(signals)
  if (!events) return
  return {
    session_id: session_id.toLowerCase(),
    sdk_type: sdk_type as IngestBody['sdk_type'],
    captured_at: new Date(at),
    signals: events,
    features: outFeatures,
  }
}

/**
 * Body of POST /v1/ingest (API.md). `now` is the injected clock: captured_at may be at most
 * 5 minutes ahead of it and at most 30 days behind it. The schema with `fastIngestBody` in front
 * (the same schema, JSON Schema and errors to everything that reads it).
 */
export function ingestBody(now: () => Date): ReturnType<typeof ingestBodySchema> {
  const schema = ingestBodySchema(now)
  const fast: typeof schema = {
    ...schema,
    '~run'(dataset, config) {
      const value = fastIngestBody(dataset.value, now())
      if (!value) return schema['~run'](dataset, config)
      return { typed: true, value }
    },
    // valibot's ~standard.validate calls the schema it was made for: made again for this one.
    '~standard': {
      ...schema['~standard'],
      validate: (value: unknown) => fast['~run']({ value }, v.getGlobalConfig()) as ReturnType<(typeof schema)['~standard']['validate']>,
    },
  }
  return fast
}

export const SessionParams = v.object({
  session_id: v.pipe(v.string(), v.regex(UUID_RE, 'must be a UUID'), v.toLowerCase()),
})

// Response shapes, for the OpenAPI document (the handlers return SessionResult from the service).
export const SessionResultSchema = v.object({
  session_id: v.pipe(v.string(), v.uuid(), v.description('Lowercase.')),
  hcs: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.description('Human-confidence score, one decimal.')),
  m3_score: v.pipe(v.number(), v.minValue(0), v.maxValue(1), v.description('The M3 model’s probability of a human, four decimals.')),
  verdict: v.picklist(['human_verified', 'suspicious', 'bot', 'insufficient_data']),
  reasons: v.pipe(v.array(v.string()), v.description('Machine-readable codes for what drove the score.')),
  signals: v.pipe(v.number(), v.integer(), v.minValue(0)),
  batches: v.pipe(v.number(), v.integer(), v.minValue(0)),
  model_version: v.string(),
  first_seen_at: v.pipe(v.string(), v.isoTimestamp()),
  scored_at: v.pipe(v.string(), v.isoTimestamp()),
  label: v.pipe(v.nullable(v.picklist(['human', 'bot'])), v.description('The customer’s own label (POST …/label), else null.')),
})

export const IngestAcceptedSchema = v.object({
  session_id: v.pipe(v.string(), v.uuid()),
  accepted: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Signals in this batch.')),
})

// ---- Dashboard (issue 17) and labels (issue 18) ----

export const VERDICTS = ['human_verified', 'suspicious', 'bot', 'insufficient_data'] as const
export const LABELS = ['human', 'bot'] as const
export const MAX_NOTE = 500
export const MAX_SESSION_PAGE = 100

const sessionIdArg = v.pipe(v.string('must be a string'), v.regex(UUID_RE, 'must be a UUID'), v.toLowerCase())

/** An ISO 8601 date (YYYY-MM-DD, UTC midnight) or timestamp with a zone; null/absent: open end. */
const instant = v.pipe(
  v.optional(v.nullable(v.string('must be a string'))),
  v.transform((s) => s ?? null),
  v.check(
    (s) =>
      s === null || (/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(s) && !Number.isNaN(Date.parse(s))),
    'must be an ISO 8601 date (YYYY-MM-DD) or timestamp with a zone (…Z)'
  ),
  v.transform((s) => (s === null ? null : new Date(s)))
)

/** from/to as given (absent: an open end); from must be before to. */
export function periodOf(p: { from?: Date | null; to?: Date | null }): { from: Date | null; to: Date | null } {
  const from = p.from ?? null
  const to = p.to ?? null
  if (from && to && from >= to)
    throw new ApiError('validation_failed', 'from: must be before to', [{ path: 'from', message: 'must be before to' }])
  return { from, to }
}

export const ListSessionsInput = v.pipe(
  v.object({
    first: pageSize(25, MAX_SESSION_PAGE),
    after: v.pipe(
      v.optional(v.nullable(v.string())),
      v.transform((s) => s ?? null)
    ),
    verdict: v.pipe(
      v.optional(v.nullable(v.picklist(VERDICTS))),
      v.transform((s) => s ?? null)
    ),
    label: v.pipe(
      v.optional(v.nullable(v.picklist(LABELS))),
      v.transform((s) => s ?? null)
    ),
    from: instant,
    to: instant,
  })
)

export const SessionIdInput = v.object({ sessionId: sessionIdArg })

export const StatsInput = v.object({
  days: v.pipe(
    v.optional(v.nullable(v.number()), 30),
    v.transform((n) => n ?? 30),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(90, 'must be at most 90')
  ),
})

export const PeriodInput = v.object({ from: instant, to: instant })

const threshold = v.pipe(
  v.number('must be a number'),
  v.finite('must be a finite number'),
  v.gtValue(0, 'must be more than 0'),
  v.ltValue(100, 'must be less than 100')
)
export const SimulateInput = v.pipe(
  v.object({ botBelow: threshold, humanAbove: threshold, from: instant, to: instant }),
  v.forward(
    v.check((t) => t.botBelow <= t.humanAbove, 'must not be more than humanAbove'),
    ['botBelow']
  )
)

const note = v.pipe(
  v.optional(v.nullable(v.string('must be a string'))),
  v.transform((s) => s ?? null),
  v.check((s) => s === null || s.length <= MAX_NOTE, `must be at most ${MAX_NOTE} characters`)
)
export const LabelInput = v.object({ sessionId: sessionIdArg, label: v.picklist(LABELS, 'must be human or bot'), note })

/** POST /v1/session/:session_id/label */
export const LabelBody = v.object({
  label: v.pipe(v.picklist(LABELS, 'must be human or bot'), v.description('`human` or `bot`.')),
  note: v.pipe(
    v.optional(v.pipe(v.string(), v.maxLength(MAX_NOTE, `must be at most ${MAX_NOTE} characters`))),
    v.description('Up to 500 characters.')
  ),
})
export const LabelResultSchema = v.object({
  session_id: v.pipe(v.string(), v.uuid()),
  label: v.picklist(LABELS),
  labeled_at: v.pipe(v.string(), v.isoTimestamp()),
})

/** GET /v1/labels/export?from=&to= */
export const ExportQuery = PeriodInput
