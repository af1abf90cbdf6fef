/**
 * Shared pieces of the property-based hostile-input suites (tests/security/fuzz-*.test.ts):
 * hostile value arbitraries, body mutators that work on raw JSON text, a transport that can send
 * bytes, an independent oracle for "what must the server conclude about this body", the
 * contract invariants every response must satisfy, and row counts to prove refusals store nothing.
 */
import { expect } from 'bun:test'
import fc from 'fast-check'
import * as v from 'valibot'
import { ERROR_STATUS, issuesToDetails } from '../../src/server/platform/errors'
import { MAX_JSON_DEPTH } from '../../src/server/platform/http'
import type { Harness } from '../helpers/harness'

/** Rate limits out of the way, so every request reaches the real parsing and validation paths. */
export const HOSTILE_ENV = {
  RATE_LIMIT_IP_PER_MIN: '1000000',
  RATE_LIMIT_AUTH_PER_MIN: '1000000',
  RATE_LIMIT_KEY_PER_MIN: '1000000',
  RATE_LIMIT_ORG_PER_MIN: '1000000',
  RATE_LIMIT_GRAPHQL_PER_MIN: '1000000',
}

/**
 * fast-check parameters. FUZZ_SEED replays a reported failure; FUZZ_SHRINK=1 shrinks it (slow: every
 * shrink step is a request), otherwise the first counterexample is reported as found.
 * FUZZ_RUNS_FACTOR=10 multiplies every property's runs for a longer hunt.
 */
export function fcParams(numRuns: number): fc.Parameters<unknown> {
  return {
    numRuns: Math.max(1, Math.round(numRuns * Number(process.env.FUZZ_RUNS_FACTOR ?? 1))),
    endOnFailure: process.env.FUZZ_SHRINK !== '1',
    ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Characters that break naive code: NUL and controls, lone surrogates, bidi overrides, BOM, emoji, combining marks. */
export const NASTY_CHARS = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff', // lone surrogates
  '\u200b',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069', // zero-width and bidi controls
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\uffff',
  'ש',
  'ل',
  '𝕏',
  '😀',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'e\u0301',
  'Z̤͔ͧ̑̓',
  'İ',
  'ß',
  'ﬀ',
  '"',
  '\\',
  '/',
  "'",
  '`',
  '<',
  '>',
  '&',
  '%',
  '$',
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
]

/** Whole strings an attacker tries first. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '   ',
  '\t\n',
  'null',
  'undefined',
  'NaN',
  'true',
  '0',
  '-1',
  '1e309',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  "' OR 1=1 --",
  '"; drop table users; --',
  '$1',
  '%s%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, literal on purpose
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '..\\..\\windows',
  'file:///etc/passwd',
  'javascript:alert(1)',
  '\u202egnp.exe',
  'مرحبا بالعالم',
  'שלום עולם',
  '😀'.repeat(50),
  '\ud83d',
  '\ude00\ud83d',
  'a\u0000b',
  '\u0000',
  'x'.repeat(257),
  'svc_live_sk_',
  'svc_live_pk_',
  'Bearer ',
  'rt_',
]

export const nastyUnit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_CHARS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) }
)

/** A short string of hostile characters. */
export const nastyShortString = fc.string({ unit: nastyUnit, maxLength: 24 })

/** A string of up to `max` UTF-16 units, built by repeating a short hostile pattern (cheap to generate), cut anywhere (so surrogate pairs can be split). */
export function hugeString(max = 100_000): fc.Arbitrary<string> {
  return fc
    .tuple(fc.string({ unit: nastyUnit, minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max }))
    .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n))
}

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: nastyShortString },
  { weight: 2, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: hugeString() }
)

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1.5,
    -1.5,
    0.1,
    1e21,
    1e308,
    -1e308,
    5e-324,
    -5e-324,
    2 ** 31,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 63),
    Number.MAX_VALUE,
    Number.MIN_VALUE
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true })
)

/** Any JSON value of a possibly wrong type (NaN/Infinity cannot be expressed in JSON text: see RAW_LITERALS). */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [null], [[]], { '': '' }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(hostileNumber, nastyShortString, fc.constant(null)), { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyShortString, fc.oneof(hostileNumber, nastyShortString), { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }
)

/** Literals that look like JSON values but are not JSON. */
export const RAW_LITERALS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '+Infinity',
  'undefined',
  '0x10',
  '01',
  '+1',
  '.5',
  '1.',
  '1e',
  '-',
  '--1',
  "'x'",
  'True',
  'None',
  'nul',
  'tru',
  '"\\x41"',
  '"\\u12"',
  '"a\nb"',
  '"\u0000"',
  '[1,]',
  '{"a":1,}',
  '{a:1}',
  '//c\n1',
  '/*c*/1',
  'new Date()',
]

// ---------------------------------------------------------------------------------------------
// Mutating a valid body

type Path = (string | number)[]
const SENTINEL = '@@FUZZ_SENTINEL@@'
const SENTINEL_KEY = '@@FUZZ_KEY@@'

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix)
  if (out.length > 400) return out
  if (Array.isArray(value)) value.forEach((item, i) => void pathsOf(item, [...prefix, i], out))
  else if (value && typeof value === 'object')
    for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out)
  return out
}

function objectPathsOf(value: unknown): Path[] {
  return pathsOf(value).filter((p) => {
    const target = getAt(value, p)
    return target !== null && typeof target === 'object' && !Array.isArray(target)
  })
}

function getAt(value: unknown, path: Path): unknown {
  let cur = value
  for (const seg of path) cur = (cur as Record<string | number, unknown>)[seg]
  return cur
}

/** Own data property, even for `__proto__` (a plain assignment would set the prototype instead). */
function defineOwn(target: object, key: string | number, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A copy of `value` with `fn` applied at `path` (fn gets the parent and the key; the root is replaced by its result). */
function editAt(value: unknown, path: Path, fn: (parent: any, key: string | number) => void): unknown {
  const copy = structuredClone(value)
  if (path.length === 0) return copy
  const parent = getAt(copy, path.slice(0, -1)) as any
  fn(parent, path[path.length - 1]!)
  return copy
}

const setAt = (value: unknown, path: Path, replacement: unknown) =>
  path.length === 0 ? replacement : editAt(value, path, (parent, key) => defineOwn(parent, key, replacement))

const deleteAt = (value: unknown, path: Path) =>
  editAt(value, path, (parent, key) => {
    if (Array.isArray(parent)) parent.splice(Number(key), 1)
    else delete parent[key]
  })

/** JSON text of `value` with the value at `path` replaced by raw text. */
function withRawValue(value: unknown, path: Path, raw: string): string {
  return JSON.stringify(setAt(value, path, SENTINEL)).replace(JSON.stringify(SENTINEL), () => raw)
}

/** JSON text of `value` with raw `"key":value` members inserted into the object at `path`. */
function withRawMember(value: unknown, path: Path, rawMember: string): string {
  const copy = structuredClone(value)
  const target = getAt(copy, path) as object
  defineOwn(target, SENTINEL_KEY, 0)
  return JSON.stringify(copy).replace(`${JSON.stringify(SENTINEL_KEY)}:0`, () => rawMember)
}

/** Deeply nested JSON text: arrays, objects or both, `depth` levels. */
export function nestedText(depth: number, shape: 'array' | 'object' | 'mixed'): string {
  if (shape === 'array') return '['.repeat(depth) + ']'.repeat(depth)
  if (shape === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
  const open: string[] = []
  const close: string[] = []
  for (let i = 0; i < depth; i++) {
    if (i % 2) {
      open.push('[')
      close.push(']')
    } else {
      open.push('{"k":')
      close.push('}')
    }
  }
  return open.join('') + '0' + close.reverse().join('')
}

const POLLUTION_KEYS = ['polluted', 'isAdmin', 'role', 'org_id', 'orgId', 'plan_id', 'priority', 'admin']
const pollutionPayload = fc.constantFrom(...POLLUTION_KEYS).map((k) => `{${JSON.stringify(k)}:"yes","polluted":true}`)
const protoMember = fc.oneof(
  pollutionPayload.map((p) => `"__proto__":${p}`),
  pollutionPayload.map((p) => `"constructor":{"prototype":${p}}`),
  pollutionPayload.map((p) => `"prototype":${p}`),
  pollutionPayload.map((p) => `"__proto__":${p},"__proto__":${p}`),
  fc.constantFrom(
    '"__proto__":null',
    '"__proto__":[]',
    '"__proto__":"x"',
    '"__proto__":{"__proto__":{"polluted":1}}',
    '"constructor":null',
    '"constructor":{"name":"x"}'
  )
)

export type HostileBody = { label: string; body: string | Uint8Array; contentType?: string | null }

/** Content types a client might send; null = no header at all. */
export const contentTypes = fc.constantFrom<string | null>(
  null,
  '',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/jsonx',
  'json',
  'application/*',
  '*/*',
  'application/json, text/plain',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  ' application/json ',
  'application/json;;;',
  'application/problem+json',
  'application/vnd.api+json',
  'application/graphql',
  'application/json; charset=utf-16'
)

/**
 * Hostile request bodies derived from valid ones: wrong types, missing and extra fields, huge strings
 * and numbers, deep nesting, prototype keys, duplicate keys and non-JSON literals as raw text,
 * nulls, empty bodies, arrays, other types, random bytes and other content types.
 */
export function hostileBodies(valid: fc.Arbitrary<unknown>): fc.Arbitrary<HostileBody> {
  const withPath = (pick: (value: unknown) => Path[]) =>
    valid.chain((value) => {
      const paths = pick(value)
      return fc.nat(paths.length - 1).map((i) => ({ value, path: paths[i]! }))
    })
  const anyPath = withPath((value) => pathsOf(value))
  const innerPath = withPath((value) => {
    const paths = pathsOf(value).slice(1)
    return paths.length ? paths : [[]]
  })
  const objectPath = withPath(objectPathsOf)
  const json = (label: string, value: unknown): HostileBody => ({ label, body: JSON.stringify(value) ?? '' })

  return fc.oneof(
    // Wrong types, nulls, huge strings and numbers at any place, or instead of the whole body.
    {
      weight: 6,
      arbitrary: fc
        .tuple(anyPath, wrongValue)
        .map(([{ value, path }, w]) => json(`set ${path.join('.') || 'body'}`, setAt(value, path, w))),
    },
    { weight: 3, arbitrary: innerPath.map(({ value, path }) => json(`delete ${path.join('.')}`, deleteAt(value, path))) },
    {
      weight: 2,
      arbitrary: fc.tuple(anyPath).map(([{ value, path }]) => json(`null at ${path.join('.') || 'body'}`, setAt(value, path, null))),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(objectPath, nastyShortString, wrongValue).map(([{ value, path }, key, w]) =>
        json(
          `extra key ${JSON.stringify(key).slice(0, 20)}`,
          editAt(value, [...path, key], (parent) => defineOwn(parent ?? {}, key, w))
        )
      ),
    },
    { weight: 1, arbitrary: valid.map((value) => json('body wrapped in an array', [value])) },
    // Non-JSON literals where a value should be: the body must be refused as invalid_json.
    {
      weight: 3,
      arbitrary: fc
        .tuple(anyPath, fc.constantFrom(...RAW_LITERALS))
        .map(([{ value, path }, lit]) => ({ label: `literal ${lit}`, body: withRawValue(value, path, lit) })),
    },
    // Prototype-pollution keys and duplicate keys, as raw text (JSON.stringify cannot produce them).
    {
      weight: 3,
      arbitrary: fc
        .tuple(objectPath, protoMember)
        .map(([{ value, path }, member]) => ({ label: `proto ${member.slice(0, 40)}`, body: withRawMember(value, path, member) })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(innerPath, wrongValue, fc.boolean()).map(([{ value, path }, w, wrongLast]) => {
        const key = path[path.length - 1]!
        const parent = getAt(value, path.slice(0, -1))
        if (typeof key === 'number' || Array.isArray(parent)) return json('duplicate (array: none)', value)
        const original = JSON.stringify(getAt(value, path))
        const [first, last] = wrongLast ? [original, JSON.stringify(w)] : [JSON.stringify(w), original]
        return {
          label: `duplicate key ${key} (${wrongLast ? 'wrong last' : 'wrong first'})`,
          body: withRawValue(value, path, `${first},${JSON.stringify(key)}:${last}`),
        }
      }),
    },
    // Deep nesting: as the whole body, or as one field's value; up to 10,000 levels (and a few 100,000).
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          anyPath,
          fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 100_000)),
          fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>
        )
        .map(([{ value, path }, depth, shape]) => ({
          label: `nested ${shape} ${depth} at ${path.join('.') || 'body'}`,
          body: withRawValue(value, path, nestedText(depth, shape)),
        })),
    },
    // Truncated and padded texts.
    {
      weight: 2,
      arbitrary: valid.chain((value) => {
        const text = JSON.stringify(value)
        return fc.nat(Math.max(0, text.length - 1)).map((n) => ({ label: `truncated at ${n}`, body: text.slice(0, n) }))
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(',', '}', ']', ' x', '\u0000', '//c', '/*c*/', '\n\n', '{}', ' null'), fc.boolean())
        .map(([value, pad, before]) => ({
          label: `padded with ${JSON.stringify(pad)}`,
          body: before ? pad + JSON.stringify(value) : JSON.stringify(value) + pad,
        })),
    },
    // Not an object at all.
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '',
          ' ',
          '\n',
          'null',
          'true',
          'false',
          '0',
          '-0',
          '1e400',
          '""',
          '"x"',
          '[]',
          '[{}]',
          '{}',
          '\ufeff{}',
          '\ufeff',
          '\u0000',
          'ÿþ{}'
        )
        .map((body) => ({ label: `body ${JSON.stringify(body)}`, body })),
    },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => ({ label: `${bytes.length} random bytes`, body: bytes })) },
    { weight: 1, arbitrary: hugeString(200_000).map((s) => ({ label: `raw text of ${s.length} chars`, body: s })) },
    // A valid body under another content type.
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, contentTypes)
        .map(([value, contentType]) => ({ label: `content-type ${contentType}`, body: JSON.stringify(value), contentType })),
    }
  )
}

/**
 * encodeURIComponent that does not throw on lone surrogates: those become the percent-encoded
 * WTF-8 bytes (`%ED%A0%80`), which is invalid UTF-8 for the server to cope with.
 */
export function encodeLoose(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.charCodeAt(0)
    if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => '%' + b.toString(16).toUpperCase()).join('')
    } else out += encodeURIComponent(ch)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Transport

export type Sent = { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array }
export type Got = { status: number; text: string; json: any; headers: Headers; contentType: string; requestText: string }

/** Sends a request straight to the app (bypassing the harness helpers, so bytes and odd headers go as they are). */
export async function send(h: Harness, sent: Sent): Promise<Got> {
  const request = new Request(`http://localhost${sent.path}`, {
    method: sent.method,
    headers: sent.headers,
    body: sent.body as BodyInit | undefined,
  })
  const contentType = request.headers.get('content-type') ?? ''
  const res = await h.app.handle(request)
  const text = await res.text()
  let json: any
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {}
  const bodyText = sent.body === undefined ? '' : typeof sent.body === 'string' ? sent.body : new TextDecoder().decode(sent.body)
  let path = sent.path
  try {
    path = decodeURIComponent(sent.path)
  } catch {}
  return {
    status: res.status,
    text,
    json,
    headers: res.headers,
    contentType,
    requestText: [path, sent.path, bodyText, ...Object.values(sent.headers)].join('\n'),
  }
}

// ---------------------------------------------------------------------------------------------
// Oracles

/** Depth of containers in a parsed JSON value (`[]` is 1), iteratively so 100,000 levels are fine. */
export function depthOf(value: unknown): number {
  let max = 0
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [cur, d] = stack.pop()!
    if (cur === null || typeof cur !== 'object') {
      max = Math.max(max, d)
      continue
    }
    max = Math.max(max, d + 1)
    for (const child of Array.isArray(cur) ? cur : Object.values(cur)) stack.push([child, d + 1])
  }
  return max
}

/** What reading the body must conclude: the bytes as UTF-8 (as the network would carry them), then JSON within the depth limit. */
export function readAsServer(body: string | Uint8Array | undefined): { ok: true; value: unknown } | { ok: false } {
  const bytes = body === undefined ? new Uint8Array() : typeof body === 'string' ? new TextEncoder().encode(body) : body
  const text = new TextDecoder().decode(bytes)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false }
  }
  return depthOf(value) > MAX_JSON_DEPTH ? { ok: false } : { ok: true, value }
}

export const mediaTypeOf = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase()

export type Expectation = { kind: 'refused'; status: number; code: string; details?: string[] } | { kind: 'valid'; output: any }

/** The contract's answer for a body sent to a JSON endpoint with a valid credential: 415, 413, invalid_json, validation_failed, or valid. */
export function expectFor(
  schema: v.GenericSchema,
  got: Pick<Got, 'contentType'>,
  body: string | Uint8Array | undefined,
  options: { textPlain?: boolean; limit?: number } = {}
): Expectation {
  const type = mediaTypeOf(got.contentType)
  const jsonType = type === 'application/json' || type.endsWith('+json') || (options.textPlain === true && type === 'text/plain')
  if (!jsonType) return { kind: 'refused', status: 415, code: 'unsupported_media_type' }
  const size = body === undefined ? 0 : typeof body === 'string' ? new TextEncoder().encode(body).length : body.length
  if (size > (options.limit ?? 1024 * 1024)) return { kind: 'refused', status: 413, code: 'payload_too_large' }
  const read = readAsServer(body)
  if (!read.ok) return { kind: 'refused', status: 400, code: 'invalid_json' }
  const parsed = v.safeParse(schema, read.value)
  if (!parsed.success)
    return { kind: 'refused', status: 400, code: 'validation_failed', details: issuesToDetails(parsed.issues as any).map((d) => d.path) }
  return { kind: 'valid', output: parsed.output }
}

// ---------------------------------------------------------------------------------------------
// Invariants

/** Stack frames, source paths, SQL and driver names: none may reach a response unless the request itself carried it. */
export const LEAK_PATTERNS = [
  /at \w+ \(/,
  /\.ts:\d+/,
  /\.m?js:\d+/,
  /select /i,
  /insert /i,
  /postgres/i,
  /node_modules/,
  /\b(PostgresError|RangeError|TypeError|ReferenceError)\b/,
  /\/work\//,
]

export function assertNoLeak(got: Pick<Got, 'text' | 'requestText'>) {
  for (const pattern of LEAK_PATTERNS) {
    if (pattern.test(got.text) && !pattern.test(got.requestText)) throw new Error(`response leaks ${pattern}: ${got.text.slice(0, 400)}`)
  }
}

const ERROR_KEYS = new Set(['code', 'message', 'details', 'request_id'])

/** Every REST answer: never 5xx, the request id and API version headers, no leak, and for 4xx the contract's envelope. */
export function assertRestInvariants(got: Got) {
  if (got.status >= 500) throw new Error(`status ${got.status}: ${got.text.slice(0, 400)}`)
  expect(got.headers.get('x-api-version')).toBe('1.0.0')
  const requestId = got.headers.get('x-request-id')
  expect(requestId).toBeTruthy()
  assertNoLeak(got)
  if (got.status < 400) return
  expect(got.json && typeof got.json === 'object' && !Array.isArray(got.json)).toBe(true)
  expect(Object.keys(got.json)).toEqual(['error'])
  const e = got.json.error
  for (const key of Object.keys(e)) expect(ERROR_KEYS.has(key)).toBe(true)
  expect(typeof e.code).toBe('string')
  expect((ERROR_STATUS as Record<string, number>)[e.code]).toBe(got.status)
  expect(typeof e.message).toBe('string')
  expect(e.message.length).toBeGreaterThan(0)
  expect(e.request_id).toBe(requestId)
  if (e.details !== undefined) {
    expect(Array.isArray(e.details) && e.details.length > 0).toBe(true)
    for (const d of e.details) expect(typeof d.path === 'string' && typeof d.message === 'string').toBe(true)
  }
  if (got.status === 429) expect(got.headers.get('retry-after')).toMatch(/^\d+$/)
}

/** A refusal matches the expectation (status, code, and the fields validation named). */
export function assertRefusal(got: Got, expected: Extract<Expectation, { kind: 'refused' }>, label: string) {
  if (got.status !== expected.status || got.json?.error?.code !== expected.code) {
    throw new Error(`${label}: expected ${expected.status} ${expected.code}, got ${got.status} ${got.text.slice(0, 300)}`)
  }
  if (expected.details) expect(got.json.error.details.map((d: { path: string }) => d.path)).toEqual(expected.details)
}

// ---------------------------------------------------------------------------------------------
// Storage

export const TABLES = [
  'organizations',
  'users',
  'memberships',
  'api_key_pairs',
  'sessions',
  'session_batches',
  'usage_counters',
  'otp_challenges',
  'refresh_tokens',
  'mail_outbox',
  'support_tickets',
  'leads',
] as const

/** Rows in every table the API writes, plus the sum of counted sessions (an update, not a row). */
export async function rowCounts(h: Harness): Promise<Record<string, number>> {
  const columns = TABLES.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')
  const [row] = await h.deps.db.sql.unsafe(
    `select ${columns}, (select coalesce(sum(sessions_used), 0) from usage_counters)::int as sessions_used`
  )
  return { ...(row as Record<string, number>) }
}

export const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.keys(after)
      .filter((k) => after[k] !== before[k])
      .map((k) => [k, after[k]! - before[k]!])
  )

// ---------------------------------------------------------------------------------------------
// Prototype pollution

const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype }

export function prototypeSnapshot(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(PROTOTYPES).map(([name, proto]) => [name, Object.getOwnPropertyNames(proto).sort()]))
}

export function assertNoPollution(before: Record<string, string[]>) {
  expect(prototypeSnapshot()).toEqual(before)
  const probe = {} as Record<string, unknown>
  for (const key of POLLUTION_KEYS) expect(probe[key]).toBeUndefined()
  expect(([] as any).polluted).toBeUndefined()
}

// ---------------------------------------------------------------------------------------------
// Contract-shaped valid values

/** A contract-valid e-mail address (letters, digits, `_ + - .` locally; dotted alphanumeric domain). */
export const emailAddress = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9_+-]{1,16}(\.[a-z0-9_+-]{1,8}){0,2}$/),
    fc.array(fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,8})?$/), { minLength: 1, maxLength: 3 }),
    fc.stringMatching(/^[a-z]{2,8}$/)
  )
  .map(([local, labels, tld]) => `${local}@${labels.join('.')}.${tld}`)

/** Text of 1..max UTF-16 units after trimming, any characters but NUL (which PostgreSQL text cannot hold). */
export function text(max: number, min = 1): fc.Arbitrary<string> {
  const unit = nastyUnit.filter((c) => c !== '\u0000')
  const candidates =
    max > 1000
      ? fc.oneof(
          fc.string({ unit, minLength: min, maxLength: 40 }),
          hugeString(max).map((s) => s.replaceAll('\u0000', 'x'))
        )
      : fc.string({ unit, minLength: min, maxLength: max })
  return candidates
    .map((s) => (s.trim().length < min ? `${'x'.repeat(min)}${s}`.slice(0, max) : s))
    .filter((s) => s.trim().length >= min && s.trim().length <= max)
}

/** Any finite double, including -0, subnormals and ±1.79e308. */
export const finiteNumber = fc.double({ noNaN: true, noDefaultInfinity: true })

/** How many cases a fuzz file ran, and (FUZZ_STATS=1) how their outcomes spread, to see each kind of refusal occurs. */
export class FuzzLedger {
  cases = 0
  private outcomes = new Map<string, number>()

  constructor(private readonly name: string) {}

  tally(key: string) {
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1)
  }

  report() {
    console.log(`fuzz: ${this.name} ${this.cases} cases`)
    if (process.env.FUZZ_STATS === '1') console.log(Object.fromEntries([...this.outcomes].sort()))
  }
}
