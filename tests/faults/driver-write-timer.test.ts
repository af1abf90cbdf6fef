import { afterEach, describe, expect, it } from 'bun:test'
import { EventEmitter } from 'node:events'
import postgres from 'postgres'

/**
 * The cause of the slow recovery after a PostgreSQL restart (issue 15, item 6), pinned without a
 * server. postgres.js 3.4.9 defers small writes behind setImmediate and schedules that flush only
 * while `nextWriteTimer` is null; closed() and terminate() cancel the immediate but never reset the
 * variable (nor the buffered chunk). A connection whose socket closes while a small write is still
 * queued can therefore never flush again: every later StartupMessage stays in the buffer, the
 * handshake waits for connect_timeout, the socket is destroyed, and the cycle repeats.
 * scripts/patch-postgres.cjs resets both on teardown.
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
        return s as never
      },
    })
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
})
