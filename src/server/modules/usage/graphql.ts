import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import type { GraphQLContext, GraphQLPart } from '../graphql'
import { readPlanUsage } from './service'

/** getPlanUsage over GraphQL: the same service as REST GET /v1/org/usage, in camelCase. */
export function usageGraphQL({ db, clock }: { db: Db; clock: Clock }): GraphQLPart {
  return {
    typeDefs: /* GraphQL */ `
      type PlanUsage {
        planId: ID!
        displayName: String!
        sessionsUsed: Int!
        sessionsLimit: Int!
        percentUsed: Float!
        periodStart: String!
        periodEnd: String!
      }
      type Query { getPlanUsage: PlanUsage! }
    `,
    resolvers: {
      Query: {
        getPlanUsage: async (_parent: unknown, _args: unknown, { principal }: GraphQLContext) => {
          const usage = await readPlanUsage(db, principal.orgId, clock.now())
          if (!usage) throw new ApiError('not_found', 'organization not found')
          return {
            planId: usage.plan_id,
            displayName: usage.display_name,
            sessionsUsed: usage.sessions_used,
            sessionsLimit: usage.sessions_limit,
            percentUsed: usage.percent_used,
            periodStart: usage.period_start,
            periodEnd: usage.period_end,
          }
        },
      },
    },
  }
}
