/**
 * `npm test`: runs the whole suite twice, on the embedded PGlite and on the PostgreSQL server
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test). Without a reachable server the
 * PostgreSQL run is skipped with a loud message, unless REQUIRE_POSTGRES=1 (CI), which makes it a failure.
 * Extra arguments are passed to `bun test` (e.g. a path filter). The TypeScript typecheck and `biome ci`
 * (formatting and lint, biome.json) run first.
 */
import postgres from 'postgres'

const args = process.argv.slice(2)
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const requirePostgres = process.env.REQUIRE_POSTGRES === '1'

type Run = { name: string; pass: number; fail: number; skip: number; code: number; failures: string[] }

/**
 * Each `(fail)` line of a bun test report with the lines bun printed before it (its error and source
 * excerpt), and each error bun reports between tests, so the summary at the very end names what failed:
 * CI logs are often read from the tail.
 */
function failuresOf(report: string): string[] {
  const lines = report.split('\n')
  const out: string[] = []
  let file = ''
  lines.forEach((line, i) => {
    if (/^\S+\.test\.tsx?:$/.test(line)) file = line
    if (line === '# Unhandled error between tests') {
      // an error outside any test (a file that throws as it loads): the block up to its closing rule
      let end = i + 2
      while (end < lines.length && end - i < 40 && !/^-{10,}$/.test(lines[end] ?? '')) end++
      out.push([file, ...lines.slice(i, end + 1)].join('\n'))
      return
    }
    if (!line.startsWith('(fail)')) return
    let start = i
    while (start > 0 && i - start < 40 && !/^\((pass|fail|skip|todo)\)/.test(lines[start - 1] ?? '')) start--
    out.push([file, ...lines.slice(start, i + 1)].join('\n'))
  })
  return out
}

async function runSuite(name: string, env: Record<string, string>): Promise<Run> {
  console.log(`\n=== test run: ${name} ===`)
  const proc = Bun.spawn([process.execPath, 'test', '--timeout', '60000', ...args], {
    env: { ...process.env, ...env },
    stdout: 'inherit',
    stderr: 'pipe',
  })
  // bun test writes its report to stderr: pass it through and read the totals from it.
  let report = ''
  const decoder = new TextDecoder()
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk)
    report += text
    process.stderr.write(text)
  }
  const code = await proc.exited
  const count = (word: string) => Number(report.match(new RegExp(`^\\s*(\\d+) ${word}$`, 'm'))?.[1] ?? 0)
  return { name, pass: count('pass'), fail: count('fail'), skip: count('skip'), code, failures: failuresOf(report) }
}

async function postgresReachable(): Promise<boolean> {
  const sql = postgres(adminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} })
  try {
    await sql`select 1`
    return true
  } catch {
    return false
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {})
  }
}

console.log('=== typecheck (tsc --noEmit) ===')
const tsc = Bun.spawnSync([process.execPath, 'x', 'tsc', '--noEmit', '-p', '.'], { stdout: 'inherit', stderr: 'inherit' })
if (tsc.exitCode !== 0) {
  console.error('typecheck failed')
  console.log('0 passed, 1 failed')
  process.exit(1)
}

console.log('=== format and lint (biome ci) ===')
const biome = Bun.spawnSync([process.execPath, 'x', 'biome', 'ci', '.'], { stdout: 'inherit', stderr: 'inherit' })
if (biome.exitCode !== 0) {
  console.error('biome found formatting or lint problems: `npm run format` fixes the formatting, `npm run lint` lists the rest')
  console.log('0 passed, 1 failed')
  process.exit(1)
}

const runs: Run[] = [await runSuite('PGlite (embedded)', { TEST_DB: 'pglite' })]
let missingPostgres = false
if (await postgresReachable()) {
  runs.push(await runSuite(`PostgreSQL server (${new URL(adminUrl).host})`, { TEST_DB: 'postgres', TEST_DATABASE_URL: adminUrl }))
} else {
  missingPostgres = true
  console.error(`\n!!! PostgreSQL is not reachable at ${adminUrl}: the PostgreSQL run was SKIPPED.`)
  console.error('!!! Start a server (or set TEST_DATABASE_URL) to run the suite against real PostgreSQL too.')
}

for (const r of runs) {
  if (r.failures.length === 0) continue
  console.log(`\n=== failed in ${r.name} (repeated from above) ===`)
  for (const f of r.failures) console.log(`${f}\n`)
}
console.log('\n=== summary ===')
for (const r of runs) console.log(`${r.name}: ${r.pass} pass, ${r.fail} fail, ${r.skip} skip (exit ${r.code})`)
const passed = runs.reduce((n, r) => n + r.pass, 0)
const failed = runs.reduce((n, r) => n + r.fail, 0)
const skipped = runs.reduce((n, r) => n + r.skip, 0)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
const ok = runs.every((r) => r.code === 0) && !(missingPostgres && requirePostgres)
if (missingPostgres && requirePostgres) console.error('REQUIRE_POSTGRES=1 and PostgreSQL was not reachable: failing.')
process.exit(ok ? 0 : 1)
