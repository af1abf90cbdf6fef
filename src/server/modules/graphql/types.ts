import type { Principal } from '../../plugins/auth'
import type { ListBudget } from './limits'

/**
 * What every resolver receives as context: the caller (always a dashboard JWT), its request, and
 * the request's list-row budget (list resolvers charge it with chargeListItems before reading).
 */
export type GraphQLContext = { principal: Principal; request: Request; listBudget: ListBudget }

type Resolver = (parent: unknown, args: any, context: GraphQLContext, info: unknown) => unknown

/** Each module contributes a part (SDL + resolvers); src/server/modules/graphql/index.ts merges them. */
export type GraphQLPart = {
  typeDefs: string
  resolvers: { Query?: Record<string, Resolver>; Mutation?: Record<string, Resolver>; [type: string]: Record<string, unknown> | undefined }
}
