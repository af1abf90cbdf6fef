import type { Socket, TCPSocketListener } from 'bun'

/**
 * A loopback TCP proxy in front of the PostgreSQL server, so a test can make "the database"
 * disappear (cut every connection and refuse new ones) and come back, without touching the
 * shared server other tests use.
 */
export class TcpProxy {
  private listener: TCPSocketListener<{ peer?: Socket<any>; pending: Uint8Array[] }> | null = null
  private sockets = new Set<Socket<any>>()
  port = 0

  constructor(
    private targetHost: string,
    private targetPort: number
  ) {}

  start(port = 0): number {
    const self = this
    this.listener = Bun.listen<{ peer?: Socket<any>; pending: Uint8Array[] }>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(client) {
          client.data = { pending: [] }
          self.sockets.add(client)
          Bun.connect<{ peer: Socket<any> }>({
            hostname: self.targetHost,
            port: self.targetPort,
            socket: {
              open(upstream) {
                upstream.data = { peer: client }
                self.sockets.add(upstream)
                client.data.peer = upstream
                for (const chunk of client.data.pending) upstream.write(chunk)
                client.data.pending = []
              },
              data(upstream, chunk) {
                upstream.data.peer.write(chunk)
              },
              close(upstream) {
                self.sockets.delete(upstream)
                upstream.data?.peer?.end()
              },
              error(upstream) {
                upstream.data?.peer?.end()
              },
            },
          }).catch(() => client.end())
        },
        data(client, chunk) {
          if (client.data.peer) client.data.peer.write(chunk)
          else client.data.pending.push(new Uint8Array(chunk))
        },
        close(client) {
          self.sockets.delete(client)
          client.data.peer?.end()
        },
        error(client) {
          client.data.peer?.end()
        },
      },
    })
    this.port = this.listener.port
    return this.port
  }

  /** The database "goes away": open connections are cut and new ones are refused. */
  cut() {
    this.listener?.stop(true)
    this.listener = null
    for (const s of this.sockets) s.terminate()
    this.sockets.clear()
  }

  /** The database is back, on the same port. */
  restore() {
    if (!this.listener) this.start(this.port)
  }

  stop() {
    this.cut()
  }
}
