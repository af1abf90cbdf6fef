import { Elysia } from 'elysia'
import type { Config } from '../../platform/config'
import type { Db } from '../../platform/db'
import { routeSchema } from '../../platform/validation'
import { OutboxQuery } from './model'
import { listOutbox } from './service'

export { outboxMailer } from './service'

/** GET /dev/mail: the development outbox. In production the route is never registered. */
export function mailModule({ config, db }: { config: Pick<Config, 'env'>; db: Db }) {
  const app = new Elysia({ name: 'mail' })
  if (config.env === 'production') return app
  return app.get('/dev/mail', async ({ query }) => ({ messages: await listOutbox(db.sql, query.to) }), { query: routeSchema(OutboxQuery) })
}
