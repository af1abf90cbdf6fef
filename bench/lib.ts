import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import type { Signal } from '../src/scoring/signals'
/** Resolves once `url` answers at all (any status); a benchmark's child service has started. */
export async function waitFor(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url)
      return
    } catch {
      await Bun.sleep(100)
    }
  }
  throw new Error(`${url} did not come up`)
}

/** a process's parent and CPU seconds so far (utime + stime), from /proc */
export const cpuOf = (pid: string) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 }
}

/** CPU seconds so far of each backend of `database` (pgbench's backends exit with it: sample while it runs). */
export function backendsCpu(postmaster: number, database: string, seen: Map<string, number>): void {
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    try {
      const { ppid, cpu } = cpuOf(e)
      if (ppid === postmaster && readFileSync(`/proc/${e}/cmdline`, 'utf8').split(' ').includes(database)) seen.set(e, cpu)
    } catch {}
  }
}

/**
 * Runs pgbench with `script` (prepared statements, one thread) against `url` for `seconds`, sampling the CPU
 * of `database`'s backends under `postmaster` as it goes; `cpu` is what they used (they start and end with it).
 */
export async function pgbenchCpu(o: {
  script: string
  name: string
  url: string
  clients: number
  seconds: number
  postmaster: number
  database: string
}): Promise<{ out: string; err: string; cpu: number; wall: number }> {
  const file = join(tmpdir(), `${o.name}.sql`)
  writeFileSync(file, o.script)
  const seen = new Map<string, number>()
  const t0 = performance.now()
  const run = Bun.spawn(
    ['pgbench', '-n', '-M', 'prepared', '-c', String(o.clients), '-j', '1', '-T', String(o.seconds), '-f', file, o.url],
    {
      stdout: 'pipe',
      stderr: 'pipe',
    }
  )
  const sampler = setInterval(() => backendsCpu(o.postmaster, o.database, seen), 100)
  const out = await new Response(run.stdout).text()
  const err = await new Response(run.stderr).text()
  await run.exited
  clearInterval(sampler)
  const wall = (performance.now() - t0) / 1000
  return { out, err, cpu: [...seen.values()].reduce((a, b) => a + b, 0), wall }
}

/** A throw-away database on the server at `adminUrl` (this machine's), and the postmaster whose backends serve it. */
export async function scratchDatabase(prefix: string, adminUrl: string) {
  const created = `${prefix}_${Date.now().toString(36)}`
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database ${created}`)
  const url = new URL(adminUrl)
  url.pathname = `/${created}`
  const [{ pid }] = await admin<{ pid: number }[]>`select pg_backend_pid() as pid`
  return { created, admin, url, postmaster: cpuOf(String(pid)).ppid }
}

/** the side-by-side workload's batch (../shared/bench/ingest.lua): 200 pointer moves */
export const sideBySideBatch = (): Signal[] =>
  Array.from({ length: 200 }, (_, i) => ({
    t: (i + 1) * 16,
    k: 'mm' as const,
    x: 100 + (i + 1) * 3 + Math.floor(Math.random() * 5),
    y: 200 + Math.floor(Math.random() * 41),
    n: 1 + Math.floor(Math.random() * 4),
  }))
