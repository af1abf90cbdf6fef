import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import type { GraphQLContext, GraphQLPart } from '../graphql'
import { listTickets } from './service'

/** Support tickets in the dashboard: owners and admins of the organization only. */
export function orgGraphQL({ db }: { db: Db }): GraphQLPart {
  return {
    typeDefs: /* GraphQL */ `
      type SupportTicket { ticketId: ID! subject: String! message: String! priority: String! status: String! createdAt: String! }
      extend type Query { listSupportTickets: [SupportTicket!]! }
    `,
    resolvers: {
      Query: {
        listSupportTickets: async (_parent: unknown, _args: unknown, { principal }: GraphQLContext) => {
          if (principal.role !== 'owner' && principal.role !== 'admin') {
            throw new ApiError('forbidden', 'only owners and admins can read support tickets')
          }
          const tickets = await listTickets(db, principal.orgId)
          return tickets.map((t) => ({
            ticketId: t.ticket_id,
            subject: t.subject,
            message: t.message,
            priority: t.priority,
            status: t.status,
            createdAt: new Date(t.created_at).toISOString(),
          }))
        },
      },
    },
  }
}
