import { Elysia } from 'elysia'
import type { Config } from '../../platform/config'
import type { Clock } from '../../platform/clock'
import type { Db } from '../../platform/db'
import type { Logger } from '../../platform/log'
import type { Mailer } from '../../platform/mailer'
import { routeSchema } from '../../platform/validation'
import { authPlugin, type Credentials } from '../../plugins/auth'
import { type RateLimits, rateLimitPlugin } from '../../plugins/ratelimit'
import { component, errors, jsonBody, ok } from '../../http/openapi'
import { LeadBody, LeadBodyDoc, LeadSchema, TicketBody, TicketSchema } from './model'
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

const Lead = component('Lead', LeadSchema, { lead_id: '1f2e3d4c-5b6a-4978-8a6b-5c4d3e2f1a0b', created_at: '2026-11-23T12:00:00.000Z' })

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
      {
        auth: ['secret', 'jwt'],
        rateLimit: { scope: 'key' },
        body: routeSchema(TicketBody),
        detail: {
          operationId: 'createTicket',
          summary: 'Open a support ticket',
          description: 'Linked to the caller’s organization (and user, with a JWT).',
          tags: ['Support'],
          requestBody: jsonBody(TicketBody, {
            subject: 'Verdicts on our checkout page',
            message: 'Since Monday most sessions are suspicious.',
            priority: 'high',
          }),
          responses: {
            201: ok(
              'Created.',
              component('Ticket', TicketSchema, {
                ticket_id: '5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716',
                status: 'open',
                subject: 'Verdicts on our checkout page',
                priority: 'normal',
                created_at: '2026-11-23T12:00:00.000Z',
              })
            ),
            ...errors(400, 401, 403, 409, 413, 415, 429, 503),
          },
        },
      }
    )
    .post(
      '/leads',
      async ({ body, status }) => {
        const lead = await createLead(services, body)
        return status(lead.created ? 201 : 200, { lead_id: lead.lead_id, created_at: lead.created_at.toISOString() })
      },
      {
        rateLimit: { scope: 'ip', name: 'leads' },
        body: routeSchema(LeadBody),
        detail: {
          operationId: 'createLead',
          summary: 'Leave a sales lead',
          description: 'The pricing page’s and chat widget’s form; no credential, rate-limited per IP.',
          tags: ['Support'],
          requestBody: jsonBody(LeadBodyDoc, {
            email: 'grace@example.com',
            source: 'pricing_page',
            company: 'Acme',
            plan_interest: 'growth',
          }),
          responses: {
            201: ok('Recorded.', Lead),
            200: ok('The same email and source within 24 hours: the existing lead.', Lead),
            ...errors(400, 413, 415, 429, 503),
          },
        },
      }
    )
}
