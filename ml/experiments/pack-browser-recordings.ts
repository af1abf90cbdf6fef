// Packs visits saved by the browser experiments (SAVE=<dir>: one `<tool>-<i>.json` a visit) into
// ml/data/browser/<tool>.jsonl.gz, one visit a line: {"browser","tool","visit","signals"}. The signals are
// what the service stored from the SDK (tests/helpers/stored-signals), as a customer's site would.
//   npx bun ml/experiments/pack-browser-recordings.ts humanizer_bezier chromium=/tmp/rec/c firefox=/tmp/rec/f webkit=/tmp/rec/w
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'

const [tool, ...dirs] = process.argv.slice(2)
if (!tool || !dirs.length) throw new Error('usage: pack-browser-recordings.ts <tool> <browser>=<dir> …')
const lines: string[] = []
for (const arg of dirs) {
  const [browser, dir] = arg.split('=')
  const visits = readdirSync(dir!)
    .map((f) => new RegExp(`^${tool}-(\\d+)\\.json$`).exec(f))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
  for (const visit of visits) {
    const saved = JSON.parse(readFileSync(`${dir}/${tool}-${visit}.json`, 'utf8')) as { signals: unknown[] }
    lines.push(JSON.stringify({ browser, tool, visit, signals: saved.signals }))
  }
  console.log(`${browser}: ${visits.length} visits`)
}
writeFileSync(new URL(`../data/browser/${tool}.jsonl.gz`, import.meta.url), gzipSync(`${lines.join('\n')}\n`, { level: 9 }))
