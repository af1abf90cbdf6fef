import { Elysia } from 'elysia'
import type { Config } from '../../platform/config'
import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import type { Logger } from '../../platform/log'
import type { Mailer } from '../../platform/mailer'
import { routeSchema } from '../../platform/validation'
import { authPlugin, type Credentials } from '../../plugins/auth'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { LeadBody, TicketBody } from './model'
import { createLead, createTicket } from './service'

export { orgGraphQL } from './graphql'
export {
  countOrganizations,
  createLead,
  createOrganization,
  findOrgPlan,
  listTickets,
  planRateLimit,
  renameOrganization,
  upsertPlans,
  type OrgPlan,
  type PlanRow,
} from './service'

type OrgServices = {
  db: Db
  clock: Clock
  mailer: Mailer
  log: Logger
  config: Pick<Config, 'supportEmail' | 'trustProxy'>
  credentials: Credentials
  rateLimits: RateLimits
}

/** The organization's support tickets and the anonymous lead form; owns organizations and plans. */
export function orgModule(services: OrgServices) {
  return new Elysia({ name: 'org', prefix: '/v1' })
    .use(authPlugin(services.credentials))
    .use(rateLimitPlugin(services))
    .post(
      '/support/tickets',
      async ({ principal, body, status }) => {
        const t = await createTicket(services, principal, body)
        return status(201, {
          ticket_id: t.ticket_id,
          status: t.status,
          subject: t.subject,
          priority: t.priority,
          created_at: t.created_at.toISOString(),
        })
      },
      { auth: ['secret', 'jwt'], rateLimit: { scope: 'key' }, body: routeSchema(TicketBody) }
    )
    .post(
      '/leads',
      async ({ body, status }) => {
        const lead = await createLead(services, body)
        return status(lead.created ? 201 : 200, { lead_id: lead.lead_id, created_at: lead.created_at.toISOString() })
      },
      { rateLimit: { scope: 'ip', name: 'leads' }, body: routeSchema(LeadBody) }
    )
}
