import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import { findUserEmail } from '../auth'
import { chargeListItems, type GraphQLContext, type GraphQLPart, parseArgs } from '../graphql'
import {
  errorRates,
  labelSession,
  listSessions,
  MAX_TIMELINE,
  MAX_TRAJECTORY,
  sessionDetail,
  simulateThresholds,
  verdictStats,
} from './dashboard'
import { LabelInput, ListSessionsInput, PeriodInput, periodOf, SessionIdInput, SimulateInput, StatsInput } from './model'

const typeDefs = /* GraphQL */ `
  "Lowercase, the same strings as the REST API."
  enum Verdict { human_verified suspicious bot insufficient_data }
  enum Label { human bot }

  "A reason code with its plain-language meaning; detail = the figures behind it for this session when known (session() only)."
  type Reason { code: String!  meaning: String!  detail: String }

  type SessionSummary {
    sessionId: ID!
    "null while the session has not been scored yet"
    hcs: Float
    m3Score: Float
    "null while not scored yet (the background scorer scores quiet sessions within about a minute)"
    verdict: Verdict
    reasons: [Reason!]!
    signals: Int!
    batches: Int!
    firstSeenAt: String!
    lastSeenAt: String!
    scoredAt: String
    modelVersion: String
    label: Label
    labelNote: String
    labeledAt: String
  }
  type SessionPage { sessions: [SessionSummary!]!  endCursor: String  hasNextPage: Boolean! }

  "Pointer (mm/md/mu/c) or touch (ts/tm/te) position, downsampled server-side to ≤ ${MAX_TRAJECTORY} points per session, in stored order."
  type TrajectoryPoint { t: Float!  x: Float!  y: Float!  kind: String! }
  "One event of the downsampled timeline (≤ ${MAX_TIMELINE} events; every non-move event kept first, moves thinned). keyClass only for kd/ku (a class, never a key value); dy only for s."
  type TimelineEvent { t: Float!  kind: String!  keyClass: String  dy: Float }
  type KindCount { kind: String!  count: Int! }
  type SessionDetail {
    session: SessionSummary!
    durationMs: Float!
    trajectory: [TrajectoryPoint!]!
    timeline: [TimelineEvent!]!
    "every stored signal counted by kind (before downsampling)"
    eventCounts: [KindCount!]!
  }

  "day = YYYY-MM-DD (UTC) of first_seen_at"
  type DayVerdicts { day: String!  humanVerified: Int!  suspicious: Int!  bot: Int!  insufficientData: Int!  unscored: Int! }
  "ten buckets [0,10) … [90,100]"
  type HcsBucket { from: Float!  to: Float!  count: Int! }
  "every day of the window listed, zeros included, oldest first"
  type VerdictStats { days: [DayVerdicts!]!  hcsHistogram: [HcsBucket!]!  total: Int! }

  "labeledBy: the user's e-mail or 'api key <name>'"
  type LabelResult { sessionId: ID!  label: Label!  note: String  labeledAt: String!  labeledBy: String! }
  "count of total, share = count/total (null when total = 0), Wilson 95 % interval [low, high] (null when total = 0)"
  type Rate { count: Int!  total: Int!  share: Float  low: Float  high: Float }
  "Rates count only judged sessions: insufficient_data and unscored sessions are left out of every total."
  type ErrorRates {
    thresholds: VerdictThresholds!
    labelledHumans: Int!
    labelledBots: Int!
    "labelled human, verdict bot"
    humansCalledBot: Rate!
    "labelled human, verdict suspicious"
    humansCalledSuspicious: Rate!
    "labelled bot, verdict human_verified"
    botsLetThrough: Rate!
  }
  type VerdictCounts { humanVerified: Int!  suspicious: Int!  bot: Int!  insufficientData: Int!  unscored: Int! }
  "verdicts = as if the thresholds applied; current = as stored"
  type ThresholdSimulation { rates: ErrorRates!  verdicts: VerdictCounts!  current: VerdictCounts! }

  type Query {
    "Newest first (first_seen_at, then session id). first: 1–100 (default 25); after: endCursor of the previous page (opaque). from/to: ISO dates or timestamps on first_seen_at, to exclusive."
    listSessions(first: Int = 25, after: String, verdict: Verdict, label: Label, from: String, to: String): SessionPage!
    "null for an unknown session or another organization's; scores a stale session first, like GET /v1/session."
    session(sessionId: ID!): SessionDetail
    "days: 1–90 (default 30), ending today (UTC)."
    verdictStats(days: Int = 30): VerdictStats!
    errorRates(from: String, to: String): ErrorRates!
    simulateThresholds(botBelow: Float!, humanAbove: Float!, from: String, to: String): ThresholdSimulation!
  }
  type Mutation {
    "Any member may label; relabel replaces. note ≤ 500 chars."
    labelSession(sessionId: ID!, label: Label!, note: String): LabelResult!
  }
`

/** Sessions, verdict statistics, labels and error rates in the dashboard (issues 17 and 18); every role may use them. */
export function sessionsGraphQL({ db, clock }: { db: Db; clock: Clock }): GraphQLPart {
  return {
    typeDefs,
    resolvers: {
      Query: {
        listSessions: (_p: unknown, args: Record<string, unknown>, { principal, listBudget }: GraphQLContext) => {
          const { first, after, verdict, label, ...period } = parseArgs(ListSessionsInput, args)
          const { from, to } = periodOf(period)
          chargeListItems(listBudget, first)
          return listSessions(db, principal.orgId, {
            first,
            after: after ?? null,
            verdict: verdict ?? null,
            label: label ?? null,
            from,
            to,
          })
        },
        session: (_p: unknown, args: Record<string, unknown>, { principal }: GraphQLContext) => {
          const { sessionId } = parseArgs(SessionIdInput, args)
          return sessionDetail(db, principal.orgId, sessionId, clock.now())
        },
        verdictStats: (_p: unknown, args: Record<string, unknown>, { principal }: GraphQLContext) => {
          const { days } = parseArgs(StatsInput, args)
          return verdictStats(db, principal.orgId, days, clock.now())
        },
        errorRates: (_p: unknown, args: Record<string, unknown>, { principal }: GraphQLContext) =>
          errorRates(db, principal.orgId, periodOf(parseArgs(PeriodInput, args))),
        simulateThresholds: (_p: unknown, args: Record<string, unknown>, { principal }: GraphQLContext) => {
          const { botBelow, humanAbove, ...period } = parseArgs(SimulateInput, args)
          return simulateThresholds(db, principal.orgId, { botBelow, humanAbove }, periodOf(period))
        },
      },
      Mutation: {
        labelSession: async (_p: unknown, args: Record<string, unknown>, { principal }: GraphQLContext) => {
          const { sessionId, label, note } = parseArgs(LabelInput, args)
          const by = (principal.userId && (await findUserEmail(db.sql, principal.userId))) ?? 'unknown user'
          const row = await labelSession(db, principal.orgId, { sessionId, label, note: note ?? null, by, now: clock.now() })
          return {
            sessionId: row.session_id,
            label: row.label,
            note: row.label_note,
            labeledAt: row.labeled_at.toISOString(),
            labeledBy: row.labeled_by,
          }
        },
      },
    },
  }
}
