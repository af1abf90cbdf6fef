import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { findUserEmail } from '../auth'
import { chargeListItems, type GraphQLContext, type GraphQLPart, parseArgs, requireRole } from '../graphql'
import { HistoryInput, SetThresholdsInput } from './model'
import { getThresholds, setThresholds, thresholdHistory } from './service'

const typeDefs = /* GraphQL */ `
  type VerdictThresholds { botBelow: Float!  humanAbove: Float! }
  type ThresholdChange { changedAt: String!  changedBy: String!  previous: VerdictThresholds!  next: VerdictThresholds! }
  type Query {
    "The organization's thresholds: hcs ≥ humanAbove → human_verified, hcs < botBelow → bot (defaults 70 / 30)."
    verdictThresholds: VerdictThresholds!
    "Every change, newest first. first: 1–100 (default 50)."
    thresholdHistory(first: Int = 50): [ThresholdChange!]!
  }
  type Mutation {
    "owner/admin; 0 < botBelow ≤ humanAbove < 100; applies to verdicts computed from then on."
    setVerdictThresholds(botBelow: Float!, humanAbove: Float!): VerdictThresholds!
  }
`

/** Verdict thresholds per organization (issue 18). */
export function thresholdsGraphQL({ db, clock }: { db: Db; clock: Clock }): GraphQLPart {
  return {
    typeDefs,
    resolvers: {
      Query: {
        verdictThresholds: (_p: unknown, _a: unknown, { principal }: GraphQLContext) =>
          db.tenant(principal.orgId, (tx) => getThresholds(tx, principal.orgId)),
        thresholdHistory: (_p: unknown, args: Record<string, unknown>, { principal, listBudget }: GraphQLContext) => {
          const { first } = parseArgs(HistoryInput, args)
          chargeListItems(listBudget, first)
          return db.tenant(principal.orgId, (tx) => thresholdHistory(tx, principal.orgId, first))
        },
      },
      Mutation: {
        setVerdictThresholds: async (_p: unknown, args: Record<string, unknown>, context: GraphQLContext) => {
          requireRole(context, ['owner', 'admin'])
          const next = parseArgs(SetThresholdsInput, args)
          const { orgId, userId } = context.principal
          const by = (userId && (await findUserEmail(db.sql, userId))) ?? 'unknown user'
          return db.tenant(orgId, (tx) => setThresholds(tx, orgId, next, by, clock.now()))
        },
      },
    },
  }
}
