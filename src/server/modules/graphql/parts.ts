import { keysGraphQL } from '../keys/graphql'
import { orgGraphQL } from '../org/graphql'
import type { GraphQLPart } from './types'
import { usageGraphQL } from './usage'

/** Every module's GraphQL part; the schema is their merge (each may declare or extend `type Query` / `type Mutation`). */
export const graphqlParts: GraphQLPart[] = [usageGraphQL, keysGraphQL, orgGraphQL]
