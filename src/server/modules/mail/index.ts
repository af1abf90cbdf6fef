import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { routeSchema } from '../../platform/validation'
import { OutboxQuery } from './model'
import { listOutbox } from './service'

/** GET /dev/mail: the development outbox. In production the route is never registered. */
export function mailModule({ config, db }: AppDeps) {
  const app = new Elysia({ name: 'mail' })
  if (config.env === 'production') return app
  return app.get('/dev/mail', async ({ query }) => ({ messages: await listOutbox(db.sql, query.to) }), { query: routeSchema(OutboxQuery) })
}
