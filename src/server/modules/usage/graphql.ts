import { getPlanUsage } from '../org/usage'
import { notFound } from './errors'
import type { GraphQLContext, GraphQLPart } from './types'

/** getPlanUsage over GraphQL: the same service as REST GET /v1/org/usage, in camelCase. */
export const usageGraphQL: GraphQLPart = {
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
      getPlanUsage: async (_parent, _args, { principal, deps }: GraphQLContext) => {
        const usage = await deps.db.tenant(principal.orgId, (tx) => getPlanUsage(tx, principal.orgId, deps.clock.now()))
        if (!usage) throw notFound('organization')
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
