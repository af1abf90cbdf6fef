import * as v from 'valibot'
import type { Db } from '../../platform/db'
import { ApiError, issuesToDetails } from '../../platform/errors'
import type { Credentials } from '../../plugins/auth'
import { chargeListItems, type GraphQLContext, type GraphQLPart, requireRole } from '../graphql'
import { CreateKeyInput, KeyPairIdInput, ListKeysInput, RotateKeyInput, UpdateOriginsInput } from './model'
import { createKeyPair, type KeyPairRow, listKeyPairs, revokeKeyPair, rotateKeyPair, updateKeyPairOrigins } from './service'

const MANAGERS = ['owner', 'admin'] as const

const typeDefs = /* GraphQL */ `
  enum SdkType { WEB IOS ANDROID SERVER }
  type ApiKeyPair {
    keyPairId: ID!
    name: String!
    sdkType: SdkType!
    publicKey: String!
    "Only in the createApiKey / rotateApiKey response; never stored in plaintext."
    secretKey: String
    createdAt: String!
    lastUsedAt: String
    revokedAt: String
    allowedOrigins: [String!]!
    "Set while the secret replaced by rotateApiKey still works (its grace period); it stops then."
    previousSecretExpiresAt: String
  }
  type Query {
    "Oldest first. first: 1–100; after: the last keyPairId of the previous page."
    listApiKeys(first: Int = 100, after: ID, includeRevoked: Boolean = true): [ApiKeyPair!]!
  }
  type Mutation {
    createApiKey(name: String!, sdkType: SdkType!, allowedOrigins: [String!]): ApiKeyPair!
    revokeApiKey(keyPairId: ID!): ApiKeyPair!
    "A new secret; the old one keeps working for gracePeriodSeconds (0 … 604800), then stops."
    rotateApiKey(keyPairId: ID!, gracePeriodSeconds: Int = 0): ApiKeyPair!
    "Replaces the public key's origin allow-list (same rules as createApiKey; [] allows any origin)."
    updateApiKeyOrigins(keyPairId: ID!, allowedOrigins: [String!]!): ApiKeyPair!
  }
`

type ApiKeyPair = {
  keyPairId: string
  name: string
  sdkType: string
  publicKey: string
  secretKey: string | null
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  allowedOrigins: string[]
  previousSecretExpiresAt: string | null
}

function toApiKeyPair(row: KeyPairRow, secretKey: string | null = null): ApiKeyPair {
  return {
    keyPairId: row.key_pair_id,
    name: row.name,
    sdkType: row.sdk_type,
    publicKey: row.public_key,
    secretKey,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    allowedOrigins: row.allowed_origins,
    // Past its end the old secret is refused (findActiveKey), so it is not reported either.
    previousSecretExpiresAt:
      row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > Date.now()
        ? row.previous_secret_expires_at.toISOString()
        : null,
  }
}

function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input)
  if (!result.success) {
    const details = issuesToDetails(result.issues as unknown as Parameters<typeof issuesToDetails>[0])
    // Every problem in the message too (e.g. each bad origin of a list), not only the first.
    const message = details.map((d) => `${d.path}: ${d.message}`).join('; ')
    throw new ApiError('validation_failed', message || 'invalid input', details)
  }
  return result.output
}

const keyPairNotFound = () => new ApiError('not_found', 'key pair not found')

/** A rotation or origin change that did not happen: another organization's or an unknown pair is not found; a revoked one is bad input. */
function refuseChange(status: 'not_found' | 'revoked', revokedMessage: string): never {
  if (status === 'not_found') throw keyPairNotFound()
  throw new ApiError('validation_failed', revokedMessage, [{ path: 'keyPairId', message: 'key pair is revoked' }])
}

/** API key pairs in the dashboard; `credentials` is told to forget a revoked or rotated key on this instance. */
export function keysGraphQL({ db, credentials }: { db: Db; credentials: Credentials }): GraphQLPart {
  return {
    typeDefs,
    resolvers: {
      // Enum values map to the lowercase sdk_type stored in the database.
      SdkType: { WEB: 'web', IOS: 'ios', ANDROID: 'android', SERVER: 'server' },
      Query: {
        listApiKeys: async (_parent: unknown, args: Record<string, unknown>, { principal, listBudget }: GraphQLContext) => {
          const page = parse(ListKeysInput, args)
          chargeListItems(listBudget, page.first)
          return (await db.tenant(principal.orgId, (tx) => listKeyPairs(tx, principal.orgId, page))).map((row) => toApiKeyPair(row))
        },
      },
      Mutation: {
        createApiKey: async (_parent: unknown, args: Record<string, unknown>, context: GraphQLContext) => {
          requireRole(context, MANAGERS)
          const input = parse(CreateKeyInput, args)
          const { keyPair, secretKey } = await db.tenant(context.principal.orgId, (tx) => createKeyPair(tx, context.principal.orgId, input))
          return toApiKeyPair(keyPair, secretKey)
        },
        revokeApiKey: async (_parent: unknown, args: Record<string, unknown>, context: GraphQLContext) => {
          requireRole(context, MANAGERS)
          const { keyPairId } = parse(KeyPairIdInput, args)
          const row = await db.tenant(context.principal.orgId, (tx) => revokeKeyPair(tx, context.principal.orgId, keyPairId))
          if (!row) throw keyPairNotFound()
          // This instance stops accepting the keys now; other instances within KEY_CACHE_TTL_MS.
          credentials.forget()
          return toApiKeyPair(row)
        },
        rotateApiKey: async (_parent: unknown, args: Record<string, unknown>, context: GraphQLContext) => {
          requireRole(context, MANAGERS)
          const { keyPairId, gracePeriodSeconds } = parse(RotateKeyInput, args)
          const result = await db.tenant(context.principal.orgId, (tx) =>
            rotateKeyPair(tx, context.principal.orgId, keyPairId, gracePeriodSeconds)
          )
          if (result.status !== 'rotated') refuseChange(result.status, 'a revoked key pair cannot be rotated: create a new one')
          credentials.forget()
          return toApiKeyPair(result.keyPair, result.secretKey)
        },
        updateApiKeyOrigins: async (_parent: unknown, args: Record<string, unknown>, context: GraphQLContext) => {
          requireRole(context, MANAGERS)
          const { keyPairId, allowedOrigins } = parse(UpdateOriginsInput, args)
          const result = await db.tenant(context.principal.orgId, (tx) =>
            updateKeyPairOrigins(tx, context.principal.orgId, keyPairId, allowedOrigins)
          )
          if (result.status !== 'updated') refuseChange(result.status, 'a revoked key pair cannot be changed')
          // The new list applies on this instance now, on the others within KEY_CACHE_TTL_MS.
          credentials.forget()
          return toApiKeyPair(result.keyPair)
        },
      },
    },
  }
}
