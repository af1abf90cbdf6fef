import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Below Linux's ephemeral range (32768-60999): a restart reuses its port, and a port in that range can be taken
// meanwhile by any outgoing connection's local end, which no retry on the first start would catch.
const randomPort = () => 10_000 + Math.floor(Math.random() * 20_000)

/**
 * A private PostgreSQL server (initdb in a temp folder, its own port) that a fault test may stop
 * and start without disturbing the shared server. Needs the PostgreSQL binaries and, as root,
 * `runuser` to run them as the postgres user. `available()` says whether this machine can.
 */
export class ThrowawayPostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'bss-pg-'))
  port = randomPort()

  static binDir(): string | null {
    const base = '/usr/lib/postgresql'
    if (!existsSync(base)) return null
    const version = readdirSync(base).sort().pop()
    const bin = version ? join(base, version, 'bin') : null
    return bin && existsSync(join(bin, 'initdb')) ? bin : null
  }

  static available(): boolean {
    return (
      ThrowawayPostgres.binDir() !== null && (process.getuid?.() !== 0 || existsSync('/usr/sbin/runuser') || existsSync('/sbin/runuser'))
    )
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`
  }

  private command(args: string[]): string[] {
    const bin = ThrowawayPostgres.binDir()!
    return process.getuid?.() === 0
      ? ['runuser', '-u', 'postgres', '--', join(bin, args[0]!), ...args.slice(1)]
      : [join(bin, args[0]!), ...args.slice(1)]
  }

  private run(args: string[]) {
    const out = Bun.spawnSync(this.command(args), { stdout: 'pipe', stderr: 'pipe' })
    if (out.exitCode !== 0) throw new Error(`${args[0]} failed: ${out.stderr.toString()}`)
  }

  /** As run, without blocking the event loop: an app served by this process keeps answering meanwhile. */
  private async runAsync(args: string[]) {
    const child = Bun.spawn(this.command(args), { stdout: 'pipe', stderr: 'pipe' })
    if ((await child.exited) !== 0) throw new Error(`${args[0]} failed: ${await new Response(child.stderr).text()}`)
  }

  init() {
    chmodSync(this.dir, 0o777) // the postgres user writes its data folder inside
    this.run(['initdb', '-D', join(this.dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'])
    // A random port can be taken by another listener (a CI run's servers, another test's): then try another.
    for (let attempt = 1; ; attempt++) {
      try {
        return this.start()
      } catch (error) {
        const log = this.log()
        if (attempt < 5 && /already in use/i.test(log)) {
          this.port = randomPort()
          continue
        }
        throw new Error(`${(error as Error).message}\n${log.slice(-2000)}`)
      }
    }
  }

  /** The server's own log (why a start failed). */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'log'), 'utf8')
    } catch {
      return ''
    }
  }

  start() {
    this.run(this.startArgs())
  }

  /** start() that lets this process's event loop run while the server comes up. */
  startAsync() {
    return this.runAsync(this.startArgs())
  }

  private startArgs(): string[] {
    return [
      'pg_ctl',
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'log'),
      '-w',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]
  }

  /** A fast shutdown: sessions are terminated, as when an operator stops the server. */
  stop() {
    this.run(['pg_ctl', '-D', join(this.dir, 'data'), '-m', 'fast', '-w', 'stop'])
  }

  stopAsync() {
    return this.runAsync(['pg_ctl', '-D', join(this.dir, 'data'), '-m', 'fast', '-w', 'stop'])
  }

  destroy() {
    try {
      this.stop()
    } catch {}
    rmSync(this.dir, { recursive: true, force: true })
  }
}
