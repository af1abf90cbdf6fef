import * as v from 'valibot'
import { issuesToDetails } from '../../platform/errors'
import { badUserInput, gqlError, notFound, requireRole } from '../graphql/errors'
import type { GraphQLContext, GraphQLPart } from '../graphql/types'
import { resolverFor } from '../tenancy'
import { CreateKeyInput, KeyPairIdInput } from './model'
import { createKeyPair, listKeyPairs, revokeKeyPair, rotateKeyPair, type KeyPairRow } from './service'

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
  }
  type Query { listApiKeys: [ApiKeyPair!]! }
  type Mutation {
    createApiKey(name: String!, sdkType: SdkType!, allowedOrigins: [String!]): ApiKeyPair!
    revokeApiKey(keyPairId: ID!): ApiKeyPair!
    rotateApiKey(keyPairId: ID!): ApiKeyPair!
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
  }
}

function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input)
  if (!result.success) throw badUserInput(issuesToDetails(result.issues as unknown as Parameters<typeof issuesToDetails>[0]))
  return result.output
}

export const keysGraphQL: GraphQLPart = {
  typeDefs,
  resolvers: {
    // Enum values map to the lowercase sdk_type stored in the database.
    SdkType: { WEB: 'web', IOS: 'ios', ANDROID: 'android', SERVER: 'server' },
    Query: {
      listApiKeys: async (_parent, _args, { principal, deps }: GraphQLContext) =>
        (await deps.db.tenant(principal.orgId, (tx) => listKeyPairs(tx, principal.orgId))).map((row) => toApiKeyPair(row)),
    },
    Mutation: {
      createApiKey: async (_parent, args, context: GraphQLContext) => {
        requireRole(context, MANAGERS)
        const input = parse(CreateKeyInput, args)
        const { keyPair, secretKey } = await context.deps.db.tenant(context.principal.orgId, (tx) => createKeyPair(tx, context.principal.orgId, input))
        return toApiKeyPair(keyPair, secretKey)
      },
      revokeApiKey: async (_parent, args, context: GraphQLContext) => {
        requireRole(context, MANAGERS)
        const { keyPairId } = parse(KeyPairIdInput, args)
        const row = await context.deps.db.tenant(context.principal.orgId, (tx) => revokeKeyPair(tx, context.principal.orgId, keyPairId))
        if (!row) throw notFound('key pair')
        // This instance stops accepting the keys now; other instances within KEY_CACHE_TTL_MS.
        resolverFor(context.deps).forget()
        return toApiKeyPair(row)
      },
      rotateApiKey: async (_parent, args, context: GraphQLContext) => {
        requireRole(context, MANAGERS)
        const { keyPairId } = parse(KeyPairIdInput, args)
        const result = await context.deps.db.tenant(context.principal.orgId, (tx) => rotateKeyPair(tx, context.principal.orgId, keyPairId))
        if (result.status !== 'rotated') {
          if (result.status === 'not_found') throw notFound('key pair')
          throw gqlError('BAD_USER_INPUT', 'a revoked key pair cannot be rotated: create a new one', [{ path: 'keyPairId', message: 'key pair is revoked' }])
        }
        resolverFor(context.deps).forget()
        return toApiKeyPair(result.keyPair, result.secretKey)
      },
    },
  },
}
