import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { readUntil } from '../helpers/listening'

/**
 * Start-up failures with the real process (issue 16): a database that cannot be reached is one log
 * line and exit 69; a DATA_DIR another instance holds is refused (exit 73) naming that instance; a
 * lock left by a dead process is taken over. Independent of TEST_DB.
 */
const MAIN = join(import.meta.dir, '../../src/server/main.ts')
const dirs: string[] = []
const children: Bun.Subprocess[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function spawn(env: Record<string, string>) {
  const full: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '2000',
    ...env,
  }
  for (const name of ['SMTP_URL', 'REDIS_URL', 'TRUST_PROXY', ...(env.DATABASE_URL ? [] : ['DATABASE_URL'])]) delete full[name]
  const child = Bun.spawn([process.execPath, 'run', MAIN], { env: full, stdout: 'pipe', stderr: 'pipe' })
  children.push(child)
  return child
}

async function finished(child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>) {
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, out, err, lines: `${out}${err}`.split('\n').filter(Boolean) }
}

const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'bss-startup-'))
  dirs.push(d)
  return d
}

describe('a database that cannot be reached', () => {
  it('logs one line naming it (no password, no stack) and exits 69', async () => {
    const { code, lines } = await finished(
      spawn({ DATABASE_URL: 'postgres://bss:hunter2-secret@127.0.0.1:1/bss', DATA_DIR: tmp(), JWT_SECRET: 'x'.repeat(40) }) as any
    )
    expect(code).toBe(69)
    expect(lines.length).toBe(1)
    const line = JSON.parse(lines[0]!)
    expect(line.level).toBe('error')
    expect(line.msg).toBe('database unreachable, not starting')
    expect(line.database).toBe('127.0.0.1:1/bss')
    expect(lines[0]).not.toContain('hunter2-secret')
    expect(lines[0]).not.toMatch(/\n\s+at /)
    expect(line.stack).toBeUndefined()
  }, 30_000)
})

describe('DATA_DIR lock (embedded PGlite)', () => {
  it("refuses a second instance naming the first, takes over a dead one's lock, and releases it on stop", async () => {
    const dataDir = tmp()
    const first = spawn({ DATA_DIR: dataDir }) as Bun.Subprocess<'ignore', 'pipe', 'pipe'>
    await readUntil(first)
    const lock = JSON.parse(readFileSync(join(dataDir, 'bss.lock'), 'utf8'))
    expect(lock).toMatchObject({ pid: first.pid, host: hostname() })

    const second = await finished(spawn({ DATA_DIR: dataDir }) as any)
    expect(second.code).toBe(73)
    expect(second.lines.length).toBe(1)
    const refused = JSON.parse(second.lines[0]!)
    expect(refused.msg).toBe('DATA_DIR is locked by another instance')
    expect(refused.error).toContain(`pid ${first.pid} on ${hostname()}`)

    // Killed without a chance to clean up: the lock stays, and is stale.
    first.kill('SIGKILL')
    await first.exited
    expect(existsSync(join(dataDir, 'bss.lock'))).toBe(true)
    const third = spawn({ DATA_DIR: dataDir }) as Bun.Subprocess<'ignore', 'pipe', 'pipe'>
    const base = await readUntil(third)
    expect((await fetch(`${base}/health`)).status).toBe(200)
    expect(JSON.parse(readFileSync(join(dataDir, 'bss.lock'), 'utf8')).pid).toBe(third.pid)
    third.kill('SIGTERM')
    expect(await third.exited).toBe(0)
    expect(existsSync(join(dataDir, 'bss.lock'))).toBe(false)
  }, 120_000)

  it('refuses a lock held from another host, saying which', async () => {
    const dataDir = tmp()
    writeFileSync(join(dataDir, 'bss.lock'), JSON.stringify({ pid: 1, host: 'other-host.example', started_at: '2026-01-01T00:00:00Z' }))
    const { code, lines } = await finished(spawn({ DATA_DIR: dataDir }) as any)
    expect(code).toBe(73)
    expect(JSON.parse(lines[0]!).error).toContain('pid 1 on other-host.example')
  }, 30_000)
})
