import { Elysia } from 'elysia'
import { tagOrg } from '../http/context'
import { securityFor } from '../http/openapi'
import type { CredentialKind, Credentials } from './credentials'

export type { CredentialKind, Credentials, Principal } from './credentials'

/**
 * Credential plugin. A route declares which credentials it accepts:
 *   { auth: ['secret'] }          secret key only
 *   { auth: ['public', 'secret'] } either key (ingest)
 *   { auth: ['secret', 'jwt'] }    secret key or dashboard JWT
 * and receives `principal`. Failures answer the contract's 401/403 through the error envelope.
 */
export function authPlugin(credentials: Credentials) {
  return new Elysia({ name: 'auth-credentials' }).macro({
    auth: (accepted: CredentialKind[]) => ({
      // The OpenAPI document's security for the route, from what it really accepts.
      detail: { security: securityFor(accepted) },
      async resolve({ request }) {
        // Only routes that take a public key (ingest) read `?key=`: the sendBeacon path.
        const queryKey = accepted.includes('public') ? (new URL(request.url).searchParams.get('key') ?? undefined) : undefined
        const principal = await credentials.resolve(request, { accepted, queryKey })
        tagOrg(request, principal.orgId)
        return { principal }
      },
    }),
  })
}
