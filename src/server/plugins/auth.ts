import { Elysia } from 'elysia'
import { tagOrg } from '../../app'
import type { AppDeps } from '../../deps'
import { createResolver, type CredentialKind, type Resolver } from './service'

export type { CredentialKind, Principal } from './service'

const resolvers = new WeakMap<AppDeps, Resolver>()

/** One resolver (and so one key cache) per app instance. */
export function resolverFor(deps: AppDeps): Resolver {
  let resolver = resolvers.get(deps)
  if (!resolver) resolvers.set(deps, (resolver = createResolver(deps)))
  return resolver
}

/**
 * Credential plugin. A route declares which credentials it accepts:
 *   { auth: ['secret'] }          secret key only
 *   { auth: ['public', 'secret'] } either key (ingest)
 *   { auth: ['secret', 'jwt'] }    secret key or dashboard JWT
 * and receives `principal`. Failures answer the contract's 401/403 through the error envelope.
 */
export function tenancy(deps: AppDeps) {
  const resolver = resolverFor(deps)
  return new Elysia({ name: 'tenancy', seed: deps })
    .macro({
      auth: (accepted: CredentialKind[]) => ({
        async resolve({ request }) {
          // Only routes that take a public key (ingest) read `?key=`: the sendBeacon path.
          const queryKey = accepted.includes('public') ? (new URL(request.url).searchParams.get('key') ?? undefined) : undefined
          const principal = await resolver.resolve(request, { accepted, queryKey })
          tagOrg(request, principal.orgId)
          return { principal }
        },
      }),
    })
}

export { ingestCors } from './cors'
