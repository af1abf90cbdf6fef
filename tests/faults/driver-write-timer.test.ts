import { afterEach, describe, expect, it } from 'bun:test'
import { EventEmitter } from 'node:events'
import net from 'node:net'
import postgres from 'postgres'
import { adminUrl, testDbKind } from '../helpers/db'

/**
 * The cause of the slow recovery after a PostgreSQL restart (issue 15, item 6), pinned without a
 * server. postgres.js 3.4.9 defers small writes behind setImmediate and schedules that flush only
 * while `nextWriteTimer` is null; closed() and terminate() cancel the immediate but never reset the
 * variable (nor the buffered chunk). A connection whose socket closes while a small write is still
 * queued can therefore never flush again: every later StartupMessage stays in the buffer, the
 * handshake waits for connect_timeout, the socket is destroyed, and the cycle repeats.
 * scripts/patch-postgres.cjs resets both on teardown.
 *
 * How a restart gets there on Bun: when the server goes away, an idle connection's socket emits
 * 'end' (the FIN) and only later 'close'. postgres.js listens to 'close' alone, so in between the
 * pool still hands the idle connection to the next query; that query's small write is deferred,
 * and 'close' then cancels it. The second test does exactly that against a real PostgreSQL.
 */

type FakeSocket = EventEmitter & {
  written: Buffer[]
  readyState: string
  write(b: Buffer): boolean
  destroy(): void
  end(): void
  setKeepAlive(): void
}

function fakeSocket(): FakeSocket {
  const s = new EventEmitter() as FakeSocket
  s.written = []
  s.readyState = 'open'
  s.write = (b: Buffer) => {
    s.written.push(Buffer.from(b))
    return true
  }
  s.destroy = () => {
    s.readyState = 'closed'
  }
  s.end = () => {
    s.readyState = 'closed'
  }
  s.setKeepAlive = () => {}
  return s
}

// `socket` (a function returning the connection's socket) is a runtime option the typings omit.
type Options = postgres.Options<Record<string, never>>

const clients: postgres.Sql[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.end({ timeout: 0 }).catch(() => {})
})

describe('postgres.js write timer after a socket closes mid-write', () => {
  it('the next connection sends its StartupMessage at once, and only its own', async () => {
    const sockets: FakeSocket[] = []
    const sql = postgres({
      host: '127.0.0.1',
      port: 1,
      user: 'postgres',
      database: 'postgres',
      max: 1,
      connect_timeout: 5,
      backoff: () => 0,
      onnotice: () => {},
      socket: () => {
        const s = fakeSocket()
        // The first socket closes (as a restarting server closes it) in an immediate queued before the
        // driver's own deferred flush of the StartupMessage: the flush is cancelled with bytes pending.
        if (sockets.length === 0) setImmediate(() => s.emit('close', false))
        sockets.push(s)
        return s
      },
    } as Options)
    clients.push(sql)
    const pending = sql`select 1`.catch((e: unknown) => e)

    const deadline = Date.now() + 1000
    while ((sockets.length < 2 || sockets[1]!.written.length === 0) && Date.now() < deadline) await Bun.sleep(5)

    expect(sockets.length).toBeGreaterThanOrEqual(2)
    expect(sockets[0]!.written).toEqual([]) // closed before its flush: nothing reached it
    // Unpatched: nothing is ever written to the second socket (the flush is never scheduled again),
    // and the handshake only ends with CONNECT_TIMEOUT after connect_timeout.
    const sent = Buffer.concat(sockets[1]!.written)
    expect(sent.length).toBeGreaterThan(0)
    // Exactly one StartupMessage (length-prefixed, protocol 3.0), not the dead socket's one in front of it.
    expect(sent.readUInt32BE(0)).toBe(sent.length)
    expect(sent.readUInt32BE(4)).toBe(196608)
    sockets[1]!.emit('close', false)
    void pending
  })

  it.skipIf(testDbKind() !== 'postgres')(
    'PostgreSQL: a query that lands between the FIN and the close does not stall the next one',
    async () => {
      const url = new URL(adminUrl())
      let onEnd: (() => void) | null = null
      const sql = postgres(adminUrl(), {
        max: 1,
        connect_timeout: 2,
        backoff: () => 0.05,
        onnotice: () => {},
        // The driver's own socket, with one listener more: 'end' stands for a request arriving
        // after the server's FIN, before the socket's 'close'.
        socket: () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(Number(url.port || 5432), url.hostname)
            s.on('end', () => onEnd?.())
            s.once('connect', () => resolve(s))
          }),
      } as Options)
      const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
      clients.push(sql, admin)

      for (let round = 0; round < 3; round++) {
        const [{ pid }] = (await sql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }]
        const inWindow = new Promise<string>((resolve) => {
          onEnd = () => {
            onEnd = null
            sql`select 2`
              .then(
                () => 'ok',
                (e: { code?: string }) => String(e.code)
              )
              .then(resolve)
          }
        })
        // The server ends this idle session, as a fast shutdown ends every session.
        await admin`select pg_terminate_backend(${pid})`
        expect(await inWindow).toBe('CONNECTION_CLOSED')
        const start = performance.now()
        // Unpatched: CONNECT_TIMEOUT after the whole connect_timeout (2 s), in every round.
        const next = await sql`select 3 as n`.then(
          (rows) => String(rows[0]!.n),
          (e: { code?: string }) => String(e.code)
        )
        expect(next).toBe('3')
        expect(performance.now() - start).toBeLessThan(1000)
      }
    }
  )
})
