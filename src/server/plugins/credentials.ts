import type { Config } from '../platform/config'
import type { AccessTokens, Role } from '../platform/access-token'
import { timingSafeEqualString, sha256Hex } from '../platform/crypto'
import { ApiError } from '../platform/errors'
import type { Logger } from '../platform/log'

export type CredentialKind = 'public' | 'secret' | 'jwt'

/** Who is calling, always derived from the credential — never from the body or the path. */
export type Principal = {
  kind: CredentialKind
  orgId: string
  planId: string
  keyPairId?: string
  userId?: string
  role?: Role
}

/** An active key pair found by its public key or its secret's hash (keys module), with its organization's plan. */
export type KeyRecord = {
  orgId: string
  planId: string
  keyPairId: string
  secretHash: string | null
  allowedOrigins: string[]
  /** A rotated-out secret in its grace period stops at this time (ms since the epoch). */
  validUntil?: number
}

/**
 * Where credentials are looked up. The owners of the tables implement it (keys, auth, org; wired in
 * services.ts), so this plugin reads no table itself and imports no module.
 */
export type CredentialStore = {
  findKey(kind: 'public' | 'secret', value: string): Promise<KeyRecord | null>
  /** The member's role and the organization's plan, read fresh on every request. */
  findMember(orgId: string, userId: string): Promise<{ planId: string; role: Role } | null>
  touchKey(orgId: string, keyPairId: string): Promise<void>
}

export const PUBLIC_PREFIX = 'svc_live_pk_'
export const SECRET_PREFIX = 'svc_live_sk_'

type CacheEntry = { record: KeyRecord | null; expires: number }

const PUBLIC_RE = new RegExp(`^${PUBLIC_PREFIX}[0-9A-Za-z]{24,128}$`)
const SECRET_RE = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{32,128}$`)
const LAST_USED_EVERY_MS = 60_000
const MAX_CACHE_ENTRIES = 50_000

/**
 * RFC 9110 §11.6.1: a 401 names the schemes the route accepts, so a client knows what to send.
 * `ApiKey` is not a registered scheme; it is the common name for a key sent in X-API-Key.
 */
function challenge(accepted: readonly CredentialKind[]): string {
  const schemes: string[] = []
  if (accepted.includes('public') || accepted.includes('secret')) schemes.push('ApiKey realm="bss"')
  if (accepted.includes('jwt')) schemes.push('Bearer realm="bss"')
  return schemes.join(', ')
}

export type ResolveOptions = {
  accepted: readonly CredentialKind[]
  /** Ingest only: a public key in `?key=` (navigator.sendBeacon cannot send headers). */
  queryKey?: string
}

/**
 * Resolves X-API-Key (public or secret) or a dashboard Bearer JWT to a Principal.
 * Key lookups are cached per instance for at most KEY_CACHE_TTL_MS (≤ 5 s), which bounds how long
 * a revoked or rotated key can keep working on another instance.
 */
export function createCredentials({
  store,
  config,
  tokens,
  log,
}: {
  store: CredentialStore
  config: Pick<Config, 'keyCacheTtlMs'>
  tokens: AccessTokens
  log: Logger
}) {
  const cache = new Map<string, CacheEntry>()
  const lastUsedWritten = new Map<string, number>()

  async function lookupKey(kind: 'public' | 'secret', presented: string): Promise<KeyRecord | null> {
    // A public key is no secret (it ships in the browser SDK) and is looked up as it is: the hash is made
    // for secret keys only, which are never held in memory in the clear (≈ 1 % of ingest CPU per batch).
    const digest = kind === 'public' ? presented : sha256Hex(presented)
    const cacheKey = `${kind}:${digest}`
    const now = Date.now()
    const hit = cache.get(cacheKey)
    if (hit && hit.expires > now) return hit.record?.validUntil !== undefined && hit.record.validUntil <= now ? null : hit.record
    const found = await store.findKey(kind, digest)
    // The index found the row by hash; compare again in constant time so equality never short-circuits.
    const record = found && (kind === 'public' || timingSafeEqualString(found.secretHash ?? '', digest)) ? found : null
    if (config.keyCacheTtlMs > 0) {
      if (cache.size >= MAX_CACHE_ENTRIES) cache.clear()
      // Unknown keys are cached only briefly so a freshly created key works at once on every instance.
      // An old secret in its grace period is never cached past the end of that period.
      const ttl = record
        ? Math.min(config.keyCacheTtlMs, (record.validUntil ?? Number.POSITIVE_INFINITY) - now)
        : Math.min(1000, config.keyCacheTtlMs)
      cache.set(cacheKey, { record, expires: now + ttl })
    }
    return record
  }

  function touch(record: KeyRecord) {
    const now = Date.now()
    if ((lastUsedWritten.get(record.keyPairId) ?? 0) > now - LAST_USED_EVERY_MS) return
    lastUsedWritten.set(record.keyPairId, now)
    store
      .touchKey(record.orgId, record.keyPairId)
      .catch((error: unknown) => log.warn('last_used_at update failed', { error: String(error) }))
  }

  async function fromApiKey(
    presented: string,
    accepted: readonly CredentialKind[],
    origin: string | null,
    unauthorized: (message: string) => ApiError
  ): Promise<Principal> {
    const kind = PUBLIC_RE.test(presented) ? 'public' : SECRET_RE.test(presented) ? 'secret' : null
    if (!kind) throw unauthorized('the API key is malformed')
    const record = await lookupKey(kind, presented)
    if (!record) throw unauthorized('the API key is unknown or revoked')
    if (!accepted.includes(kind)) {
      throw new ApiError(
        'forbidden',
        kind === 'public'
          ? 'a public key cannot be used here: use the secret key from your backend'
          : 'this credential is not accepted here'
      )
    }
    if (kind === 'public' && record.allowedOrigins.length > 0 && (!origin || !record.allowedOrigins.includes(origin))) {
      throw new ApiError('forbidden', 'this public key is not allowed from this origin')
    }
    touch(record)
    return { kind, orgId: record.orgId, planId: record.planId, keyPairId: record.keyPairId }
  }

  async function fromJwt(token: string, unauthorized: (message: string) => ApiError): Promise<Principal> {
    const claims = await tokens.verify(token)
    if (!claims) throw unauthorized('the access token is invalid or expired')
    // The membership is read fresh: a removed member or a changed role takes effect at once.
    const member = await store.findMember(claims.org, claims.sub)
    if (!member) throw unauthorized('the access token is invalid or expired')
    return { kind: 'jwt', orgId: claims.org, planId: member.planId, userId: claims.sub, role: member.role }
  }

  return {
    async resolve(request: Request, options: ResolveOptions): Promise<Principal> {
      const { accepted, queryKey } = options
      const header401 = { 'www-authenticate': challenge(accepted) }
      const unauthorized = (message = 'a valid credential is required') => new ApiError('unauthorized', message, undefined, header401)
      const header = request.headers.get('x-api-key')
      if (header) {
        if (!accepted.includes('public') && !accepted.includes('secret')) throw unauthorized('API keys are not accepted here')
        return fromApiKey(header.trim(), accepted, request.headers.get('origin'), unauthorized)
      }
      if (queryKey !== undefined) {
        if (!PUBLIC_RE.test(queryKey)) throw unauthorized('only a public key may be sent in the URL')
        return fromApiKey(
          queryKey,
          accepted.filter((k) => k === 'public'),
          request.headers.get('origin'),
          unauthorized
        )
      }
      const auth = request.headers.get('authorization')
      if (auth && accepted.includes('jwt')) {
        const match = /^Bearer\s+(\S+)$/i.exec(auth)
        if (!match) throw unauthorized('use Authorization: Bearer <access token>')
        return fromJwt(match[1]!, unauthorized)
      }
      throw unauthorized()
    },
    /**
     * The organization a request's credential names, without deciding whether the route accepts it
     * (the auth macro does that later): the Idempotency-Key scope. Null when there is none or it is
     * not valid; such a request is refused before it runs.
     */
    async orgOf(request: Request): Promise<string | null> {
      const header = request.headers.get('x-api-key')?.trim()
      if (header) {
        const kind = PUBLIC_RE.test(header) ? 'public' : SECRET_RE.test(header) ? 'secret' : null
        return kind ? ((await lookupKey(kind, header))?.orgId ?? null) : null
      }
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')
      return match ? ((await tokens.verify(match[1]!))?.org ?? null) : null
    },
    /** Drops cached lookups (tests; and after a local revoke, so this instance stops at once). */
    forget() {
      cache.clear()
    },
  }
}

export type Credentials = ReturnType<typeof createCredentials>
