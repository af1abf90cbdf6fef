import * as v from 'valibot'
import { SDK_TYPES } from '../../platform/contract'

export const MAX_ALLOWED_ORIGINS = 20
const ORIGIN_SHAPE = /^https?:\/\/[^/?#@\s*\\]+\/?$/i

/** `scheme://host[:port]` (http or https, nothing else), normalised to what browsers send in `Origin`. */
export function normaliseOrigin(input: string): string | null {
  if (!ORIGIN_SHAPE.test(input)) return null
  try {
    const url = new URL(input)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    return url.origin
  } catch {
    return null
  }
}

/**
 * The refused value as the error names it, so a list of origins says which ones are wrong: bounded,
 * and with any user:password@ part blanked (an error must not echo a credential back).
 */
export function shownOrigin(input: string): string {
  const safe = input.replace(/^([^/]*\/\/)[^/?#]*@/, '$1…@')
  return safe.length > 80 ? `${safe.slice(0, 80)}…` : safe
}

const Origin = v.pipe(
  v.string(),
  v.maxLength(2048, 'origin is too long'),
  v.check(
    (s) => normaliseOrigin(s) !== null,
    (issue) =>
      `"${shownOrigin(String(issue.input))}" is not an origin: write it like https://shop.example.com (http or https, no path, query or wildcard)`
  ),
  v.transform((s) => normaliseOrigin(s)!)
)

const AllowedOrigins = v.pipe(
  v.array(Origin),
  v.maxLength(MAX_ALLOWED_ORIGINS, `at most ${MAX_ALLOWED_ORIGINS} origins`),
  v.transform((list) => [...new Set(list)])
)

export const CreateKeyInput = v.object({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(100, 'must be at most 100 characters'),
    // PostgreSQL text cannot hold NUL: without this the insert failed as an internal error.
    v.excludes('\u0000', 'must not contain NUL characters')
  ),
  sdkType: v.picklist(SDK_TYPES),
  allowedOrigins: v.pipe(
    v.optional(v.nullable(v.array(Origin)), []),
    v.transform((list) => list ?? []),
    v.maxLength(MAX_ALLOWED_ORIGINS, `at most ${MAX_ALLOWED_ORIGINS} origins`),
    v.transform((list) => [...new Set(list)])
  ),
})
export type CreateKeyInput = v.InferOutput<typeof CreateKeyInput>

const KeyPairId = v.pipe(v.string(), v.uuid('must be a UUID'))
export const KeyPairIdInput = v.object({ keyPairId: KeyPairId })

/** The contract's bound on a rotation's grace period: 7 days. */
export const MAX_GRACE_SECONDS = 604_800

/** rotateApiKey(keyPairId, gracePeriodSeconds = 0); an explicit null means the default. */
export const RotateKeyInput = v.object({
  keyPairId: KeyPairId,
  gracePeriodSeconds: v.pipe(
    v.optional(v.nullable(v.number()), 0),
    v.transform((n) => n ?? 0),
    v.integer('must be a whole number of seconds'),
    v.minValue(0, 'must be at least 0'),
    v.maxValue(MAX_GRACE_SECONDS, `must be at most ${MAX_GRACE_SECONDS} (7 days)`)
  ),
})

/** updateApiKeyOrigins(keyPairId, allowedOrigins): the same origin rules as createApiKey; [] allows any origin. */
export const UpdateOriginsInput = v.object({ keyPairId: KeyPairId, allowedOrigins: AllowedOrigins })

export const MAX_PAGE = 100

/** listApiKeys(first = 100, after, includeRevoked = true); an explicit null means the default. */
export const ListKeysInput = v.object({
  first: v.pipe(
    v.optional(v.nullable(v.number()), MAX_PAGE),
    v.transform((n) => n ?? MAX_PAGE),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(MAX_PAGE, `must be at most ${MAX_PAGE}`)
  ),
  after: v.pipe(
    v.optional(v.nullable(v.pipe(v.string(), v.uuid('must be a keyPairId from an earlier page'))), null),
    v.transform((s) => s ?? null)
  ),
  includeRevoked: v.pipe(
    v.optional(v.nullable(v.boolean()), true),
    v.transform((b) => b ?? true)
  ),
})
export type ListKeysInput = v.InferOutput<typeof ListKeysInput>
