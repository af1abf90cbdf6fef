import { GraphQLError } from 'graphql'
import type { GraphQLContext, GraphQLPart } from '../graphql/types'
import { listTickets } from './tickets'

/** Support tickets in the dashboard: owners and admins of the organization only. */
export const orgGraphQL: GraphQLPart = {
  typeDefs: /* GraphQL */ `
    type SupportTicket { ticketId: ID! subject: String! message: String! priority: String! status: String! createdAt: String! }
    extend type Query { listSupportTickets: [SupportTicket!]! }
  `,
  resolvers: {
    Query: {
      listSupportTickets: async (_parent: unknown, _args: unknown, { principal, deps }: GraphQLContext) => {
        if (principal.role !== 'owner' && principal.role !== 'admin') {
          throw new GraphQLError('only owners and admins can read support tickets', { extensions: { code: 'FORBIDDEN' } })
        }
        const tickets = await listTickets(deps, principal.orgId)
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
