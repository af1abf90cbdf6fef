// Samples the machine while a bench runs, to line up a latency tail with what else happened:
// CPU per process group and per service thread (from /proc), run-queue delay (schedstat), steal,
// and PostgreSQL's wait events, WAL and checkpoints. Run by hand next to a bench (bench/README.md,
// "the open-loop tail"): `bun run bench/tail-watch.ts OUT.jsonl [interval_ms]`; stops on SIGTERM.
//
//   WATCH_DB  a PostgreSQL URL to sample (default postgres://postgres@127.0.0.1:5432/postgres)
import { readdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs'
import postgres from 'postgres'

const out = process.argv[2] ?? '/tmp/tail-watch.jsonl'
const every = Number(process.argv[3] ?? 250)
const HZ = 100 // USER_HZ on Linux

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

type Proc = { pid: number; comm: string; cmd: string; ticks: number; delayNs: number }

/** utime + stime (ticks) and the summed run-queue delay of all threads (ns) of one process. */
function proc(pid: number): Proc | undefined {
  const stat = read(`/proc/${pid}/stat`)
  if (!stat) return undefined
  const close = stat.lastIndexOf(')')
  const comm = stat.slice(stat.indexOf('(') + 1, close)
  const f = stat.slice(close + 2).split(' ')
  const ticks = Number(f[11]) + Number(f[12])
  let delayNs = 0
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const s = read(`/proc/${pid}/task/${tid}/schedstat`)
      if (s) delayNs += Number(s.split(' ')[1])
    }
  } catch {}
  const cmd = (read(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' ').trim()
  return { pid, comm, cmd, ticks, delayNs }
}

/** Per-thread ticks of one process, summed by thread name (JSC's GC and JIT threads have their own). */
function threads(pid: number): Record<string, number> {
  const byName: Record<string, number> = {}
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`)
      if (!stat) continue
      const close = stat.lastIndexOf(')')
      const name = Number(tid) === pid ? 'main' : stat.slice(stat.indexOf('(') + 1, close).replace(/\d+$/, '')
      const f = stat.slice(close + 2).split(' ')
      byName[name] = (byName[name] ?? 0) + Number(f[11]) + Number(f[12])
    }
  } catch {}
  return byName
}

function group(p: Proc): string {
  if (p.comm === 'postgres') return p.cmd.includes('walwriter') ? 'pg_walwriter' : p.cmd.includes('checkpointer') ? 'pg_checkpointer' : 'pg'
  if (p.cmd.includes('src/server/main.ts')) return 'svc'
  if (p.cmd.includes('--ceiling')) return 'ceiling'
  if (p.cmd.includes('bench/ingest.ts') || p.cmd.includes('bench/load-profile.ts')) return 'client'
  if (p.cmd.includes('tail-watch')) return 'watch'
  return 'other'
}

let prevForks = 0
function forks(): number {
  const m = /\nprocesses (\d+)/.exec(read('/proc/stat') ?? '')
  return m ? Number(m[1]) : 0
}
function cpuLine(): number[] {
  const line = (read('/proc/stat') ?? '').split('\n')[0]!
  return line.split(/\s+/).slice(1).map(Number)
}

const sql = postgres(process.env.WATCH_DB ?? 'postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} })
writeFileSync(out, '')
let prevCpu = cpuLine()
let prevProcs = new Map<number, Proc>()
let prevThreads: Record<string, number> = {}
let svcPid = 0
let prevPg: { ckpt: number; walSync: number; walWrite: number; walBytes: number } | undefined
let stop = false
process.on('SIGTERM', () => {
  stop = true
})
process.on('SIGINT', () => {
  stop = true
})

while (!stop) {
  const t0 = performance.now()
  const now = Date.now()
  const cpu = cpuLine()
  const d = cpu.map((v, i) => v - (prevCpu[i] ?? 0))
  const total = d.reduce((a, b) => a + b, 0) || 1
  // user nice system idle iowait irq softirq steal
  const pc = (v: number) => +((v / total) * 200).toFixed(1)
  const machine = {
    busy: +(((total - d[3]! - d[4]!) / total) * 200).toFixed(0),
    user: pc(d[0]! + d[1]!),
    system: pc(d[2]!),
    irq: pc(d[5]! + d[6]!),
    steal: pc(d[7]!),
    iowait: pc(d[4]!),
    forks: 0,
    accounted: 0,
  }
  prevCpu = cpu
  const f = forks()
  machine.forks = prevForks ? f - prevForks : 0
  prevForks = f
  const groups: Record<string, { cpu: number; delayMs: number }> = {}
  const others: Record<string, number> = {}
  const procs = new Map<number, Proc>()
  const newProcs: string[] = []
  for (const name of readdirSync('/proc')) {
    const pid = Number(name)
    if (!pid) continue
    const p = proc(pid)
    if (!p) continue
    procs.set(pid, p)
    const before = prevProcs.get(pid)
    const g = group(p)
    if (g === 'svc') svcPid = pid
    const dt = before ? p.ticks - before.ticks : 0
    const dd = before ? p.delayNs - before.delayNs : 0
    const entry = (groups[g] ??= { cpu: 0, delayMs: 0 })
    entry.cpu += (dt / HZ / (every / 1000)) * 100 // % of one core
    entry.delayMs += dd / 1e6
    if (!before && prevProcs.size) newProcs.push(p.comm)
    machine.accounted += (dt / HZ / (every / 1000)) * 100
    if (g === 'other' && dt > 0) others[`${p.comm}`] = (others[p.comm] ?? 0) + (dt / HZ / (every / 1000)) * 100
  }
  prevProcs = procs
  const svcThreads: Record<string, number> = {}
  if (svcPid) {
    const th = threads(svcPid)
    for (const [k, v] of Object.entries(th)) {
      const dv = v - (prevThreads[k] ?? v)
      if (dv) svcThreads[k] = +((dv / HZ / (every / 1000)) * 100).toFixed(0)
    }
    prevThreads = th
  }
  let pg: Record<string, unknown> = {}
  try {
    const [w] = await sql`select
        (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::int as ckpt,
        wal_sync::int as "walSync", wal_write::int as "walWrite", wal_bytes::bigint::float8 as "walBytes",
        (select coalesce(json_object_agg(k, n), '{}') from (
          select coalesce(wait_event_type || ':' || wait_event, state) as k, count(*)::int as n
          from pg_stat_activity where backend_type = 'client backend' and state <> 'idle' and pid <> pg_backend_pid()
          group by 1) a) as waits
      from pg_stat_wal`
    if (prevPg)
      pg = {
        ckpt: w!.ckpt - prevPg.ckpt,
        walSync: w!.walSync - prevPg.walSync,
        walWrite: w!.walWrite - prevPg.walWrite,
        walKB: Math.round((w!.walBytes - prevPg.walBytes) / 1024),
        waits: w!.waits,
      }
    prevPg = { ckpt: w!.ckpt, walSync: w!.walSync, walWrite: w!.walWrite, walBytes: w!.walBytes }
  } catch (error) {
    pg = { error: String(error) }
  }
  const round = (o: Record<string, { cpu: number; delayMs: number }>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { cpu: Math.round(v.cpu), delayMs: Math.round(v.delayMs) }]))
  const topOthers = Object.fromEntries(
    Object.entries(others)
      .filter(([, v]) => v >= 5)
      .map(([k, v]) => [k, Math.round(v)])
  )
  appendFileSync(
    out,
    JSON.stringify({
      t: now,
      machine: { ...machine, accounted: Math.round(machine.accounted) },
      newProcs: [...new Set(newProcs)].slice(0, 8),
      groups: round(groups),
      others: topOthers,
      svcThreads,
      pg,
    }) + '\n'
  )
  await Bun.sleep(Math.max(0, every - (performance.now() - t0)))
}
await sql.end()
