import type { AppDeps } from '../../deps'
import { ApiError } from '../../platform/errors'
import type { Role } from '../../platform/access-token'
import { sha256Hex, timingSafeEqualString } from '../../platform/crypto'
import { PUBLIC_PREFIX, SECRET_PREFIX } from '../keys/service'

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

type KeyRecord = { orgId: string; planId: string; keyPairId: string; secretHash: string | null; allowedOrigins: string[] }
type CacheEntry = { record: KeyRecord | null; expires: number }

const PUBLIC_RE = new RegExp(`^${PUBLIC_PREFIX}[0-9A-Za-z]{24,128}$`)
const SECRET_RE = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{32,128}$`)
const LAST_USED_EVERY_MS = 60_000
const MAX_CACHE_ENTRIES = 50_000

const unauthorized = (message = 'a valid credential is required') => new ApiError('unauthorized', message)

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
export function createResolver({ db, config, tokens, log }: AppDeps) {
  const cache = new Map<string, CacheEntry>()
  const lastUsedWritten = new Map<string, number>()

  async function lookupKey(kind: 'public' | 'secret', presented: string): Promise<KeyRecord | null> {
    const digest = sha256Hex(presented)
    const cacheKey = `${kind}:${digest}`
    const now = Date.now()
    const hit = cache.get(cacheKey)
    if (hit && hit.expires > now) return hit.record
    const rows =
      kind === 'public'
        ? await db.sql<KeyRow[]>`
            select k.org_id, k.key_pair_id, k.allowed_origins, null as secret_hash, o.plan_id
            from api_key_pairs k join organizations o on o.org_id = k.org_id
            where k.public_key = ${presented} and k.revoked_at is null`
        : await db.sql<KeyRow[]>`
            select k.org_id, k.key_pair_id, k.allowed_origins, k.secret_hash, o.plan_id
            from api_key_pairs k join organizations o on o.org_id = k.org_id
            where k.secret_hash = ${digest} and k.revoked_at is null`
    const row = rows[0]
    // The index found the row by hash; compare again in constant time so equality never short-circuits.
    const valid = row && (kind === 'public' || timingSafeEqualString(row.secret_hash ?? '', digest))
    const record: KeyRecord | null = valid
      ? { orgId: row.org_id, planId: row.plan_id, keyPairId: row.key_pair_id, secretHash: row.secret_hash, allowedOrigins: row.allowed_origins }
      : null
    if (config.keyCacheTtlMs > 0) {
      if (cache.size >= MAX_CACHE_ENTRIES) cache.clear()
      // Unknown keys are cached only briefly so a freshly created key works at once on every instance.
      cache.set(cacheKey, { record, expires: now + (record ? config.keyCacheTtlMs : Math.min(1000, config.keyCacheTtlMs)) })
    }
    return record
  }

  function touch(record: KeyRecord) {
    const now = Date.now()
    if ((lastUsedWritten.get(record.keyPairId) ?? 0) > now - LAST_USED_EVERY_MS) return
    lastUsedWritten.set(record.keyPairId, now)
    db.sql`update api_key_pairs set last_used_at = now()
           where org_id = ${record.orgId} and key_pair_id = ${record.keyPairId}
             and (last_used_at is null or last_used_at < now() - interval '1 minute')`
      .execute()
      .catch((error: unknown) => log.warn('last_used_at update failed', { error: String(error) }))
  }

  async function fromApiKey(presented: string, accepted: readonly CredentialKind[], origin: string | null): Promise<Principal> {
    const kind = PUBLIC_RE.test(presented) ? 'public' : SECRET_RE.test(presented) ? 'secret' : null
    if (!kind) throw unauthorized('the API key is malformed')
    const record = await lookupKey(kind, presented)
    if (!record) throw unauthorized('the API key is unknown or revoked')
    if (!accepted.includes(kind)) {
      throw new ApiError('forbidden', kind === 'public' ? 'a public key cannot be used here: use the secret key from your backend' : 'this credential is not accepted here')
    }
    if (kind === 'public' && record.allowedOrigins.length > 0 && (!origin || !record.allowedOrigins.includes(origin))) {
      throw new ApiError('forbidden', 'this public key is not allowed from this origin')
    }
    touch(record)
    return { kind, orgId: record.orgId, planId: record.planId, keyPairId: record.keyPairId }
  }

  async function fromJwt(token: string): Promise<Principal> {
    const claims = await tokens.verify(token)
    if (!claims) throw unauthorized('the access token is invalid or expired')
    // The membership is read fresh: a removed member or a changed role takes effect at once.
    const [row]: [{ plan_id: string; role: Role }?] = await db.sql`
      select o.plan_id, m.role from memberships m join organizations o on o.org_id = m.org_id
      where m.org_id = ${claims.org} and m.user_id = ${claims.sub}`
    if (!row) throw unauthorized('the access token is invalid or expired')
    return { kind: 'jwt', orgId: claims.org, planId: row.plan_id, userId: claims.sub, role: row.role }
  }

  return {
    async resolve(request: Request, options: ResolveOptions): Promise<Principal> {
      const { accepted, queryKey } = options
      const header = request.headers.get('x-api-key')
      if (header) {
        if (!accepted.includes('public') && !accepted.includes('secret')) throw unauthorized('API keys are not accepted here')
        return fromApiKey(header.trim(), accepted, request.headers.get('origin'))
      }
      if (queryKey !== undefined) {
        if (!PUBLIC_RE.test(queryKey)) throw unauthorized('only a public key may be sent in the URL')
        return fromApiKey(queryKey, accepted.filter((k) => k === 'public'), request.headers.get('origin'))
      }
      const auth = request.headers.get('authorization')
      if (auth && accepted.includes('jwt')) {
        const match = /^Bearer\s+(\S+)$/i.exec(auth)
        if (!match) throw unauthorized('use Authorization: Bearer <access token>')
        return fromJwt(match[1]!)
      }
      throw unauthorized()
    },
    /** Drops cached lookups (tests; and after a local revoke, so this instance stops at once). */
    forget() {
      cache.clear()
    },
  }
}

type KeyRow = { org_id: string; key_pair_id: string; allowed_origins: string[]; secret_hash: string | null; plan_id: string }

export type Resolver = ReturnType<typeof createResolver>
