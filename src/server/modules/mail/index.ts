import { Elysia } from 'elysia'
import type { Config } from '../../platform/config'
import type { Db } from '../../platform/db'
import { ApiError } from '../../platform/errors'
import { routeSchema } from '../../platform/validation'
import { OutboxQuery } from './model'
import { listOutbox } from './service'

export { outboxMailer } from './service'

/**
 * GET /dev/mail: the development outbox, one exact address at a time. In production the route is
 * never registered. The support inbox is not readable here at all: it receives every tenant's
 * ticket (organization, user and key ids, the message), and anyone who can reach a development
 * server may call this route (issue 15, item 5).
 */
export function mailModule({ config, db }: { config: Pick<Config, 'env' | 'supportEmail'>; db: Db }) {
  const app = new Elysia({ name: 'mail' })
  if (config.env === 'production') return app
  const supportInbox = config.supportEmail.toLowerCase()
  return app.get(
    '/dev/mail',
    async ({ query }) => {
      if (query.to === supportInbox)
        throw new ApiError('forbidden', "the support inbox holds every tenant's tickets and is not readable through /dev/mail")
      return { messages: await listOutbox(db.sql, query.to) }
    },
    // Development only: not part of the API reference.
    { query: routeSchema(OutboxQuery), detail: { hide: true } }
  )
}
