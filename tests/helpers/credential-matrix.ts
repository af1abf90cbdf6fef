import { describe, expect, it } from 'bun:test'
import type { Harness, SeededOrg } from './harness'

/**
 * The credential matrix of one route, after Unkey's `runCommonRouteTests`: a control with each
 * accepted credential, then no credential, each credential the route does not take, revoked
 * credentials, and another organization's resource. Statuses are the contract's (shared/API.md):
 *   no credential, or a revoked one                                  → 401 unauthorized
 *   an API key of a kind the route does not take, where it takes keys → 403 forbidden (public key on a secret route)
 *   a credential the route does not read at all                       → 401 (an API key on /graphql, a JWT on a key-only route)
 *   another organization's resource                                   → 404 not_found, never 403
 *   a secret key in the URL (`?key=`, the sendBeacon form)              → 401; a public key there works only where public keys do
 * GraphQL answers 401 with an UNAUTHENTICATED error, and NOT_FOUND as a GraphQL error.
 */
export type Credential = 'public' | 'secret' | 'jwt'

export type MatrixCase = {
  /** The route as the app lists it (`GET /v1/session/:session_id`); for GraphQL, `POST /graphql`. */
  route: string
  /** Test title; the route by default. */
  name?: string
  accepts: Credential[]
  /** A well-formed request for the caller's organization (`resource` is that organization's, when the route has one). */
  request: (resource?: string) => { path: string; body?: unknown }
  /** Status with each accepted credential: the control proving the refusals come from the credential, not the request. */
  ok: number | Partial<Record<Credential, number>>
  /** Creates a resource of `org` for the request to address; the cross-organization check asks for A's with B's credentials. */
  resource?: (h: Harness, org: SeededOrg) => Promise<string>
  graphql?: boolean
}

const ALL: Credential[] = ['public', 'secret', 'jwt']

export function headersFor(org: SeededOrg, kind: Credential): Record<string, string> {
  if (kind === 'jwt') return { authorization: `Bearer ${org.jwt}` }
  return { 'x-api-key': kind === 'public' ? org.publicKey : org.secretKey }
}

/** The contract's answer to a credential the route does not accept. */
export function refusalOf(accepts: Credential[], kind: Credential, graphql = false): 401 | 403 {
  const takesKeys = accepts.includes('public') || accepts.includes('secret')
  return !graphql && kind !== 'jwt' && takesKeys ? 403 : 401
}

type Answer = { status: number; body: any }

export function credentialMatrix(harness: () => Harness, c: MatrixCase) {
  const [method, route] = c.route.split(' ') as [string, string]
  const okFor = (kind: Credential) => (typeof c.ok === 'number' ? c.ok : c.ok[kind]!)
  const resourceOf = async (org: SeededOrg) => (c.resource ? c.resource(harness(), org) : undefined)

  const send = async (resource: string | undefined, headers: Record<string, string>, queryKey?: string): Promise<Answer> => {
    const { path, body } = c.request(resource)
    expect(path.split('?')[0]!).toMatch(new RegExp(`^${route.replace(/:[a-z_]+/g, '[^/]+')}$`))
    const url = queryKey ? `${path}${path.includes('?') ? '&' : '?'}key=${queryKey}` : path
    const res = await harness().json(method, url, { headers, body })
    return { status: res.status, body: res.body }
  }
  const gqlCodes = (a: Answer): string[] => (a.body?.errors ?? []).map((e: any) => e.extensions?.code)

  const expectOk = (a: Answer, kind: Credential) => {
    expect(a.status).toBe(okFor(kind))
    if (c.graphql) expect(a.body.errors).toBeUndefined()
  }
  const expectRefused = (a: Answer, status: 401 | 403) => {
    expect(a.status).toBe(status)
    if (c.graphql) expect(gqlCodes(a)).toEqual([status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN'])
    else expect(a.body.error.code).toBe(status === 401 ? 'unauthorized' : 'forbidden')
  }

  describe(`credential matrix: ${c.name ?? c.route}`, () => {
    for (const kind of c.accepts) {
      it(`${kind} of its own organization → ${okFor(kind)}`, async () => {
        const h = harness()
        expectOk(await send(await resourceOf(h.a), headersFor(h.a, kind)), kind)
      })
    }

    it('no credential → 401', async () => {
      expectRefused(await send(await resourceOf(harness().a), {}), 401)
    })

    // `?key=` exists for navigator.sendBeacon, which cannot set headers: public keys only, and only where public keys are taken.
    it('secret key in the URL → 401', async () => {
      const h = harness()
      expectRefused(await send(await resourceOf(h.a), {}, h.a.secretKey), 401)
    })
    const publicInUrl = c.accepts.includes('public') ? okFor('public') : 401
    it(`public key in the URL → ${publicInUrl}`, async () => {
      const h = harness()
      const answer = await send(await resourceOf(h.a), {}, h.a.publicKey)
      if (publicInUrl === 401) expectRefused(answer, 401)
      else expectOk(answer, 'public')
    })

    for (const kind of ALL.filter((k) => !c.accepts.includes(k))) {
      const status = refusalOf(c.accepts, kind, c.graphql)
      it(`${kind} (not accepted here) → ${status}`, async () => {
        const h = harness()
        expectRefused(await send(await resourceOf(h.a), headersFor(h.a, kind)), status)
      })
    }

    it('revoked credentials → 401', async () => {
      const h = harness()
      // A fresh organization, so revoking does not disturb A and B.
      const org = await h.seedOrg(`Revoked ${c.name ?? c.route}`)
      const resource = await resourceOf(org)
      const keys = c.accepts.filter((k) => k !== 'jwt')
      for (const kind of keys) expectOk(await send(resource, headersFor(org, kind)), kind)
      if (keys.length) {
        // Revoked the way a customer does it, through the dashboard API.
        const revoke = await h.json('POST', '/graphql', {
          headers: headersFor(org, 'jwt'),
          body: { query: 'mutation($id: ID!) { revokeApiKey(keyPairId: $id) { revokedAt } }', variables: { id: org.keyPairId } },
        })
        expect(revoke.body.data?.revokeApiKey?.revokedAt).toBeString()
        for (const kind of keys) expectRefused(await send(resource, headersFor(org, kind)), 401)
      }
      if (c.accepts.includes('jwt')) {
        expectOk(await send(resource, headersFor(org, 'jwt')), 'jwt')
        // The dashboard's equivalent of revocation: the user no longer belongs to the organization.
        await h.testDb.db.sql`delete from memberships where user_id = ${org.userId} and org_id = ${org.orgId}`
        expectRefused(await send(resource, headersFor(org, 'jwt')), 401)
      }
    })

    if (c.resource) {
      it('another organization’s resource → 404', async () => {
        const h = harness()
        const ofA = await resourceOf(h.a)
        for (const kind of c.accepts) {
          const answer = await send(ofA, headersFor(h.b, kind))
          if (c.graphql) {
            expect(answer.status).toBe(200)
            expect(gqlCodes(answer)).toEqual(['NOT_FOUND'])
          } else {
            expect(answer.status).toBe(404)
            expect(answer.body.error.code).toBe('not_found')
          }
          expect(JSON.stringify(answer.body)).not.toContain(h.a.orgId)
        }
        // The same resource with its own organization's credential is there: the 404 is about who asks.
        expectOk(await send(ofA, headersFor(h.a, c.accepts[0]!)), c.accepts[0]!)
      })
    }
  })
}
