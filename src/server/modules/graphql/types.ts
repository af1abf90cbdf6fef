import type { AppDeps } from '../../deps'
import type { Principal } from '../tenancy'

/** What every resolver receives as context: the caller (always a dashboard JWT) and the app deps. */
export type GraphQLContext = { principal: Principal; deps: AppDeps; request: Request }

type Resolver = (parent: unknown, args: any, context: GraphQLContext, info: unknown) => unknown

/** Each module contributes a part (SDL + resolvers); src/server/modules/graphql/index.ts merges them. */
export type GraphQLPart = {
  typeDefs: string
  resolvers: { Query?: Record<string, Resolver>; Mutation?: Record<string, Resolver>; [type: string]: Record<string, unknown> | undefined }
}
