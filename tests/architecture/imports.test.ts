import { afterAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { checkArchitecture, type Rule, type Violation } from '../../scripts/check-architecture'

const repo = join(import.meta.dir, '..', '..')
const script = join(repo, 'scripts', 'check-architecture.ts')

const describeViolations = (violations: Violation[]) => violations.map((v) => `${v.file}:${v.line} [${v.rule}] ${v.message}`).join('\n')

describe('the real tree', () => {
  const violations = checkArchitecture(repo)
  const of = (rule: Rule) => describeViolations(violations.filter((v) => v.rule === rule))

  it('has no import cycle (run-time imports)', () => expect(of('cycle')).toBe(''))
  it('imports another server module only through its index.ts', () => expect(of('module-boundary')).toBe(''))
  it('names each table in SQL only in its owner repo.ts', () => expect(of('table-owner')).toBe(''))
  it('keeps scoring, sdk and web off the server, and src/ off ml/', () => expect(of('layer')).toBe(''))
})

// A small tree the checker must find clean, then each rule broken on purpose.
const fixtures: string[] = []
afterAll(() => {
  for (const dir of fixtures) rmSync(dir, { recursive: true, force: true })
})

const CLEAN: Record<string, string> = {
  'sql/0001_init.sql': 'create table a_items (id int);\ncreate table if not exists b_items (id int);\n',
  'src/server/app.ts':
    "import { aRoutes } from './modules/a'\nimport { bRoutes } from './modules/b'\nexport const app = [aRoutes, bRoutes]\n",
  'src/server/modules/a/index.ts': "import { countA } from './service'\nexport const aRoutes = () => countA()\n",
  'src/server/modules/a/service.ts': "import { readA } from './repo'\nexport const countA = () => readA()\n",
  'src/server/modules/a/repo.ts':
    '/** The only file that names a_items in SQL. */\ndeclare const sql: any\nexport const readA = () => sql`select count(*) from a_items`\n',
  'src/server/modules/b/index.ts':
    "import { aRoutes } from '../a'\nimport { readB } from './repo'\nexport const bRoutes = () => [aRoutes(), readB()]\n",
  'src/server/modules/b/repo.ts': `// The only file that names b_items in SQL.\ndeclare const sql: any\nexport const readB = (id: number) => sql\`\n  select *\n  from b_items where id = \${id}\`\n`,
  'src/scoring/score.ts': 'export const score = (x: number) => x\n',
  'src/sdk/index.ts': "import { score } from '../scoring/score'\nexport const run = () => score(1)\n",
  'ml/train.ts': "import { score } from '../src/scoring/score'\nexport const train = () => score(2)\n",
}

function fixture(changes: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'arch-'))
  fixtures.push(root)
  for (const [path, text] of Object.entries({ ...CLEAN, ...changes })) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

const check = (root: string) => checkArchitecture(root)

describe('the checker, on a fixture tree', () => {
  it('finds nothing in the clean tree', () => {
    expect(describeViolations(check(fixture()))).toBe('')
  })

  it('catches a deliberately added import cycle, at the importing line', () => {
    const root = fixture({
      'src/server/modules/a/service.ts':
        "import { readA } from './repo'\nimport { bRoutes } from '../b'\nexport const countA = () => [readA(), bRoutes]\n",
    })
    const cycles = check(root).filter((v) => v.rule === 'cycle')
    expect(cycles).toHaveLength(1)
    expect(cycles[0]!.message).toContain('src/server/modules/a/service.ts:2')
    expect(cycles[0]!.message).toContain('src/server/modules/b/index.ts:1')
  })

  it('does not count a cycle closed only by `import type` or by an import used only as a type', () => {
    for (const line of ["import type { Routes } from '../b'", "import { Routes } from '../b'"]) {
      const root = fixture({
        'src/server/modules/b/index.ts':
          "import { aRoutes } from '../a'\nexport type Routes = string[]\nexport const bRoutes = () => [aRoutes()]\n",
        'src/server/modules/a/service.ts': `import { readA } from './repo'\n${line}\nexport const countA = (): Routes => [readA()]\n`,
      })
      expect(check(root).filter((v) => v.rule === 'cycle')).toEqual([])
    }
  })

  it('catches a cross-module table read, at the line that names the table', () => {
    const root = fixture({
      'src/server/modules/b/service.ts':
        'declare const sql: any\nexport const peek = () => sql`\n  select b.id\n  from b_items b join a_items a on a.id = b.id`\n',
      'src/server/modules/b/stats.ts':
        'declare const tx: any\nexport const both = () => tx`select 1 from b_items x, a_items y where x.id = y.id`\n',
    })
    const found = check(root).filter((v) => v.rule === 'table-owner')
    expect(found.map((v) => `${v.file}:${v.line} ${v.message.split(',')[0]}`).sort()).toEqual([
      'src/server/modules/b/service.ts:4 names table a_items',
      // Even the owner module's own tables belong in its repo.ts only.
      'src/server/modules/b/service.ts:4 names table b_items',
      'src/server/modules/b/stats.ts:2 names table a_items',
      'src/server/modules/b/stats.ts:2 names table b_items',
    ])
  })

  it('ignores table names in comments, ordinary strings and non-SQL words', () => {
    const root = fixture({
      'src/server/modules/b/service.ts':
        "// reads from a_items through module a\nexport const note = 'copied from a_items'\nexport const t = `a_items_count`\n",
    })
    expect(check(root)).toEqual([])
  })

  it('catches a table without an owner, an owner that is not a repo.ts, a table owned twice and an unknown table', () => {
    const where = (root: string) => check(root).map((v) => `${v.file}:${v.line} ${v.message}`)
    expect(where(fixture({ 'sql/0002_more.sql': 'create table c_items (id int);\n' }))).toEqual([
      'sql/0002_more.sql:1 table c_items has no owner: no repo.ts header says "The only file that names c_items in SQL."',
    ])
    const misplaced = fixture({
      'sql/0002_more.sql': 'create table c_items (id int);\n',
      'src/server/modules/a/service.ts':
        "// The only file that names c_items in SQL.\nimport { readA } from './repo'\nexport const countA = () => readA()\n",
    })
    expect(where(misplaced)).toEqual(["src/server/modules/a/service.ts:1 only a module's repo.ts owns tables"])
    const twice = fixture({
      'src/server/modules/b/repo.ts': '// The only file that names b_items, a_items and z_items in SQL.\nexport {}\n',
    })
    expect(where(twice).sort()).toEqual([
      'src/server/modules/b/repo.ts:1 declares table a_items, already owned by src/server/modules/a/repo.ts',
      'src/server/modules/b/repo.ts:1 declares table z_items, which no sql/*.sql creates',
    ])
  })

  it('catches a module reaching past another module’s index.ts', () => {
    const root = fixture({ 'src/server/modules/b/index.ts': "import { readA } from '../a/repo'\nexport const bRoutes = () => readA()\n" })
    expect(check(root).map((v) => `${v.file}:${v.line} ${v.rule}`)).toEqual(['src/server/modules/b/index.ts:1 module-boundary'])
  })

  it('catches scoring or sdk importing the server (types too), sdk importing web, and src importing ml', () => {
    const root = fixture({
      'src/scoring/score.ts': "import type { app } from '../server/app'\nexport const score = (x: number, _a?: typeof app) => x\n",
      'src/sdk/index.ts':
        "import { score } from '../scoring/score'\nimport { page } from '../web/page'\nexport const run = () => score(page)\n",
      'src/web/page.ts': 'export const page = 1\n',
      'src/server/modules/a/repo.ts':
        "import { train } from '../../../../ml/train'\n// The only file that names a_items in SQL.\ndeclare const sql: any\nexport const readA = () => [train, sql`select count(*) from a_items`]\n",
    })
    expect(check(root).map((v) => `${v.file}:${v.line} ${v.rule}`)).toEqual([
      'src/scoring/score.ts:1 layer',
      'src/sdk/index.ts:2 layer',
      'src/server/modules/a/repo.ts:1 layer',
    ])
  })

  it('catches a lower server layer importing a higher one (platform < http < plugins < modules and the rest)', () => {
    const root = fixture({
      'src/server/platform/db.ts': 'export const db = 1\n',
      'src/server/http/context.ts': "import { db } from '../platform/db'\nexport const context = db\n",
      'src/server/plugins/auth.ts':
        "import { context } from '../http/context'\nimport { aRoutes } from '../modules/a'\nexport const auth = [context, aRoutes]\n",
      'src/server/platform/log.ts': "import type { auth } from '../plugins/auth'\nexport type Log = typeof auth\n",
    })
    expect(check(root).map((v) => `${v.file}:${v.line} ${v.rule}`)).toEqual([
      'src/server/platform/log.ts:1 layer',
      'src/server/plugins/auth.ts:2 layer',
    ])
  })

  it('as a command: prints file:line for each violation and exits 1', () => {
    const bad = fixture({ 'src/server/modules/b/index.ts': "import { readA } from '../a/repo'\nexport const bRoutes = () => readA()\n" })
    const run = Bun.spawnSync([process.execPath, script, bad], { stdout: 'pipe', stderr: 'pipe' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout.toString()).toContain('src/server/modules/b/index.ts:1  [module-boundary]')
  })
})
