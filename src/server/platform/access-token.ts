import { jwt } from '@elysiajs/jwt'
import { UUID_RE } from './contract'

export type Role = 'owner' | 'admin' | 'member'
export type AccessClaims = { sub: string; org: string; role: Role }

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ALG = 'HS256'
const ISSUER = 'bss'
const AUDIENCE = 'bss-dashboard'

export type AccessTokens = {
  sign(claims: AccessClaims): Promise<string>
  /** The claims, or null for anything not signed by us with HS256, expired, or malformed. */
  verify(token: string): Promise<AccessClaims | null>
}

/** Dashboard access tokens through @elysiajs/jwt, with the algorithm pinned (no `alg: none`, no RS/HS confusion). */
export function createAccessTokens(secret: string): AccessTokens {
  const plugin = jwt({ name: 'accessJwt', secret, alg: ALG, iss: ISSUER, aud: AUDIENCE, exp: `${ACCESS_TOKEN_TTL_SECONDS}s` })
  const signer = plugin.decorator.accessJwt
  return {
    sign: (claims) => signer.sign({ sub: claims.sub, org: claims.org, role: claims.role }),
    async verify(token) {
      const payload = await signer.verify(token, { algorithms: [ALG], issuer: ISSUER, audience: AUDIENCE, requiredClaims: ['exp', 'sub'] })
      if (!payload) return null
      const { sub, org, role } = payload as Record<string, unknown>
      if (typeof sub !== 'string' || typeof org !== 'string' || (role !== 'owner' && role !== 'admin' && role !== 'member')) return null
      // Ids reach uuid columns: a signed token with other ids (e.g. forged with the public dev secret) was a 500.
      if (!UUID_RE.test(sub) || !UUID_RE.test(org)) return null
      return { sub, org, role }
    },
  }
}
