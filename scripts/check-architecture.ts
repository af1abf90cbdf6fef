/**
 * The import rules of the layout (issue 12, docs/architecture.md), checked over the source tree:
 *   cycle            no import cycle among run-time imports (`import type`, and imports used only as
 *                    types, are erased before run time and cannot change load order: they do not count)
 *   module-boundary  under src/server/modules/<m>/, another module is imported only through its index.ts
 *   table-owner      every table of sql/*.sql has exactly one owner, a src/server/modules/<m>/repo.ts
 *                    whose header says so (`The only file that names a, b and c in SQL.`), and no other
 *                    file names the table in SQL
 *   layer            src/scoring imports only src/scoring (a pure library); src/sdk only src/sdk and
 *                    src/scoring; src/web never src/server; nothing under src/ imports ml/; in src/server,
 *                    platform/ imports no other server folder, http/ only platform/, plugins/ only those two
 * The layer and boundary rules count every import, types included: a type import still couples the code.
 *
 * A small walker rather than dependency-cruiser: the table rule reads SQL, which no import tool does,
 * and the import side is ~100 lines on Bun's own transpiler (which knows which imports survive to run time).
 *
 * Usage: bun run scripts/check-architecture.ts [root]   prints each violation as file:line, exits 1 if any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/** Folders whose code is walked: the runtime tree, the offline tree, and the plan catalog's code. */
const WALKED = ['src', 'ml', 'tenants']
const CODE = /\.(ts|tsx|mts|js|mjs|cjs)$/
const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '.d.ts', '.js', '.mjs', '.json', '/index.ts', '/index.js']

export type Rule = 'cycle' | 'module-boundary' | 'table-owner' | 'layer'
export type Violation = { rule: Rule; file: string; line: number; message: string }

export type Import = {
  specifier: string
  line: number
  /** Repo-relative path of the imported file; null for packages and unresolved paths. */
  target: string | null
  /** Survives to run time (not `import type`, not used only as a type). */
  runtime: boolean
  dynamic: boolean
}

export type Graph = Map<string, Import[]>

type Loader = 'ts' | 'tsx' | 'js'
const transpilers = new Map<Loader, InstanceType<typeof Bun.Transpiler>>()
const transpiler = (loader: Loader) => {
  let t = transpilers.get(loader)
  if (!t) transpilers.set(loader, (t = new Bun.Transpiler({ loader, trimUnusedImports: true })))
  return t
}
const loaderOf = (file: string): Loader => (file.endsWith('.tsx') ? 'tsx' : /\.m?ts$/.test(file) ? 'ts' : 'js')

const STATIC_IMPORT = /^[ \t]*(import|export)\s+(type\s+)?(?:[^'"`;]*?\bfrom\s*)?(['"])([^'"\n]+)\3/gm
const DYNAMIC_IMPORT = /\b(import|require)\s*\(\s*(['"])([^'"\n]+)\2\s*\)/g

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length

function isCommentLine(text: string, index: number): boolean {
  const start = text.lastIndexOf('\n', index - 1) + 1
  const head = text.slice(start, index).trimStart()
  return head.startsWith('//') || head.startsWith('*') || head.startsWith('/*')
}

/** Every import of one file, with its line and whether it is still there at run time. */
export function scanImports(text: string, loader: Loader = 'ts'): Omit<Import, 'target'>[] {
  let runtimeSpecifiers: Set<string>
  try {
    runtimeSpecifiers = new Set(
      transpiler(loader)
        .scan(text)
        .imports.map((i) => i.path)
    )
  } catch {
    // A file Bun cannot parse: count every import as a run-time one rather than miss a cycle.
    runtimeSpecifiers = new Set([...text.matchAll(STATIC_IMPORT)].map((m) => m[4]!))
  }
  const found: Omit<Import, 'target'>[] = []
  for (const m of text.matchAll(STATIC_IMPORT)) {
    const typeOnly = Boolean(m[2]) && loader !== 'js'
    found.push({ specifier: m[4]!, line: lineAt(text, m.index!), runtime: !typeOnly && runtimeSpecifiers.has(m[4]!), dynamic: false })
  }
  for (const m of text.matchAll(DYNAMIC_IMPORT)) {
    if (isCommentLine(text, m.index!)) continue
    found.push({ specifier: m[3]!, line: lineAt(text, m.index!), runtime: true, dynamic: true })
  }
  return found
}

function walk(root: string, dir: string, out: string[]) {
  const abs = join(root, dir)
  if (!existsSync(abs)) return
  for (const name of readdirSync(abs)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const rel = `${dir}/${name}`
    if (statSync(join(root, rel)).isDirectory()) walk(root, rel, out)
    else if (CODE.test(name)) out.push(rel)
  }
}

export function listFiles(root: string, dirs = WALKED): string[] {
  const files: string[] = []
  for (const dir of dirs) walk(root, dir, files)
  return files.sort()
}

/** Resolves a relative specifier the way Bun does for this repository (no path aliases). */
export function resolveImport(root: string, from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null
  const base = resolve(root, dirname(from), specifier)
  for (const suffix of RESOLVE_SUFFIXES) {
    const candidate = base + suffix
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split('\\').join('/')
  }
  return null
}

export function buildGraph(root: string, files = listFiles(root)): Graph {
  const graph: Graph = new Map()
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    const imports = scanImports(text, loaderOf(file)).map((i) => ({ ...i, target: resolveImport(root, file, i.specifier) }))
    graph.set(file, imports)
  }
  return graph
}

/** Strongly connected components of the run-time graph (Tarjan), each with one concrete cycle. */
function cycles(graph: Graph): { file: string; line: number; size: number; path: { file: string; line: number }[] }[] {
  const edges = new Map<string, Import[]>()
  for (const [file, imports] of graph)
    edges.set(
      file,
      imports.filter((i) => i.runtime && i.target && graph.has(i.target))
    )
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const strong = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const e of edges.get(v) ?? []) {
      const w = e.target!
      if (!index.has(w)) {
        strong(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      const selfLoop = (edges.get(v) ?? []).some((e) => e.target === v)
      if (component.length > 1 || selfLoop) components.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) strong(file)

  return components.map((component) => ({ ...shortestCycle(component, edges), size: component.length }))
}

/** Shortest way back to the component's first file, for a readable report. */
function shortestCycle(component: string[], edges: Map<string, Import[]>) {
  const members = new Set(component)
  const start = component[0]!
  const previous = new Map<string, { from: string; line: number }>()
  const queue = [start]
  let closing: { from: string; line: number } | undefined
  while (queue.length && !closing) {
    const v = queue.shift()!
    for (const e of edges.get(v) ?? []) {
      if (!members.has(e.target!)) continue
      if (e.target === start) {
        closing = { from: v, line: e.line }
        break
      }
      if (!previous.has(e.target!)) {
        previous.set(e.target!, { from: v, line: e.line })
        queue.push(e.target!)
      }
    }
  }
  const path: { file: string; line: number }[] = []
  let hop = closing!
  path.unshift({ file: hop.from, line: hop.line })
  while (hop.from !== start) {
    hop = previous.get(hop.from)!
    path.unshift({ file: hop.from, line: hop.line })
  }
  return { file: path[0]!.file, line: path[0]!.line, path }
}

const MODULE = /^src\/server\/modules\/([^/]+)\/(.+)$/

function layerViolation(from: string, to: string): string | null {
  if (from.startsWith('src/') && to.startsWith('ml/')) return 'nothing under src/ imports ml/ (offline code stays out of the runtime tree)'
  if (from.startsWith('src/scoring/') && !to.startsWith('src/scoring/')) return 'src/scoring is a pure library: it imports only src/scoring'
  if (from.startsWith('src/sdk/') && !to.startsWith('src/sdk/') && !to.startsWith('src/scoring/'))
    return 'src/sdk imports only src/sdk and src/scoring (it is shipped to browsers)'
  if (from.startsWith('src/web/') && to.startsWith('src/server/')) return 'src/web runs in the browser: it never imports src/server'
  const [fromRank, toRank] = [serverRank(from), serverRank(to)]
  if (fromRank !== null && toRank !== null && toRank > fromRank) {
    return `src/server/${SERVER_LAYERS[fromRank]} sits below ${to.startsWith('src/server/modules/') ? 'the modules' : 'the composition'}: it imports only ${SERVER_LAYERS.slice(0, fromRank + 1).join(', ')}`
  }
  return null
}

/** The server's lower layers, bottom first; everything else under src/server (modules, jobs, app, services, main) sits above them. */
const SERVER_LAYERS = ['platform', 'http', 'plugins'] as const

function serverRank(file: string): number | null {
  if (!file.startsWith('src/server/')) return null
  const rank = SERVER_LAYERS.findIndex((layer) => file.startsWith(`src/server/${layer}/`))
  return rank < 0 ? SERVER_LAYERS.length : rank
}

/** Table names created by the migrations, with the file and line that creates each. */
export function tablesOf(root: string): Map<string, { file: string; line: number }> {
  const tables = new Map<string, { file: string; line: number }>()
  const dir = join(root, 'sql')
  if (!existsSync(dir)) return tables
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.sql'))
    .sort()) {
    const text = readFileSync(join(dir, name), 'utf8')
    for (const m of text.matchAll(/\bcreate\s+table\s+(?:if\s+not\s+exists\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/gi)) {
      tables.set(m[1]!.toLowerCase(), { file: `sql/${name}`, line: lineAt(text, m.index!) })
    }
  }
  return tables
}

/**
 * The static text of every template literal (where this codebase writes its SQL: tagged templates),
 * with the line each piece starts on. Comments and ordinary strings are skipped.
 */
export function templateTexts(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = []
  let line = 1
  let i = 0
  // Each entry is a template being read, or a `${` expression inside one (its brace depth).
  const stack: ({ kind: 'template'; start: number; startLine: number } | { kind: 'expr'; depth: number })[] = []
  const top = () => stack[stack.length - 1]
  while (i < text.length) {
    const c = text[i]!
    if (c === '\n') line++
    const inTemplate = top()?.kind === 'template'
    if (inTemplate) {
      const t = top() as { kind: 'template'; start: number; startLine: number }
      if (c === '\\') {
        if (text[i + 1] === '\n') line++
        i += 2
        continue
      }
      if (c === '`') {
        out.push({ text: text.slice(t.start, i), line: t.startLine })
        stack.pop()
        i++
        continue
      }
      if (c === '$' && text[i + 1] === '{') {
        out.push({ text: text.slice(t.start, i), line: t.startLine })
        stack.push({ kind: 'expr', depth: 0 })
        i += 2
        continue
      }
      i++
      continue
    }
    // Code (top level or inside `${…}`).
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
      continue
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      const stop = end < 0 ? text.length : end + 2
      for (let j = i; j < stop; j++) if (text[j] === '\n') line++
      i = stop
      continue
    }
    if (c === "'" || c === '"') {
      // Ordinary strings end at their quote or, defensively, at the line's end.
      i++
      while (i < text.length && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1
      i++
      continue
    }
    if (c === '`') {
      stack.push({ kind: 'template', start: i + 1, startLine: line })
      i++
      continue
    }
    const expr = top()
    if (expr?.kind === 'expr') {
      if (c === '{') expr.depth++
      if (c === '}') {
        if (expr.depth === 0) {
          stack.pop()
          const t = top() as { kind: 'template'; start: number; startLine: number }
          t.start = i + 1
          t.startLine = line
          i++
          continue
        }
        expr.depth--
      }
    }
    i++
  }
  return out
}

/** Tables named in SQL position (from, join, into, update, table, using, truncate) in a piece of text. */
export function tablesNamedIn(sqlText: string, tables: Iterable<string>): { table: string; offset: number }[] {
  const names = [...tables].join('|')
  if (!names) return []
  const after = `(?:public\\.)?"?(${names})"?(?![\\w.(])`
  const keyword = new RegExp(`\\b(?:from|join|into|update|table|using|truncate)\\s+(?:only\\s+)?${after}`, 'gi')
  // The later tables of a comma list: `from a, b x where …`.
  const listed = new RegExp(
    `,\\s*${after}(?=(?:\\s+(?:as\\s+)?[a-z_]\\w*)?\\s*(?:,|\\)|$|\\b(?:where|join|left|right|inner|cross|on|group|order|limit)\\b))`,
    'gi'
  )
  return [...sqlText.matchAll(keyword), ...sqlText.matchAll(listed)].map((m) => ({ table: m[1]!.toLowerCase(), offset: m.index! }))
}

/** A repo.ts header declaring the tables it owns; the one place ownership is written down. */
const OWNER_HEADER = /The only file that names ([a-z0-9_, ]+?) in SQL/g
const REPO = /^src\/server\/modules\/[^/]+\/repo\.ts$/

/** Owners as declared in the files' headers, and what is wrong with the declarations. */
export function ownersOf(root: string, files: string[], tables: Map<string, unknown>) {
  const owners: Record<string, string> = {}
  const violations: Violation[] = []
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const m of text.matchAll(OWNER_HEADER)) {
      const line = lineAt(text, m.index!)
      const problem = (message: string) => violations.push({ rule: 'table-owner', file, line, message })
      if (!REPO.test(file)) problem("only a module's repo.ts owns tables")
      for (const table of m[1]!
        .split(/,\s*|\s+and\s+/)
        .map((t) => t.trim())
        .filter(Boolean)) {
        if (!tables.has(table)) problem(`declares table ${table}, which no sql/*.sql creates`)
        else if (owners[table] && owners[table] !== file) problem(`declares table ${table}, already owned by ${owners[table]}`)
        else owners[table] = file
      }
    }
  }
  return { owners, violations }
}

export type CheckOptions = { files?: string[] }

export function checkArchitecture(root: string, options: CheckOptions = {}): Violation[] {
  const files = options.files ?? listFiles(root)
  const graph = buildGraph(root, files)
  const violations: Violation[] = []

  for (const c of cycles(graph)) {
    const hops = [...c.path.map((p) => `${p.file}:${p.line}`), c.path[0]!.file].join(' → ')
    const loop = c.size > c.path.length ? ` (one of ${c.size} files that import each other at run time)` : ''
    violations.push({ rule: 'cycle', file: c.file, line: c.line, message: `import cycle${loop}: ${hops}` })
  }

  for (const [file, imports] of graph) {
    for (const i of imports) {
      if (!i.target) continue
      const layer = layerViolation(file, i.target)
      if (layer) violations.push({ rule: 'layer', file, line: i.line, message: `${layer}; imports ${i.target}` })
      const from = MODULE.exec(file)
      const to = MODULE.exec(i.target)
      if (from && to && from[1] !== to[1] && to[2] !== 'index.ts') {
        violations.push({
          rule: 'module-boundary',
          file,
          line: i.line,
          message: `module ${from[1]} reaches into module ${to[1]}: import src/server/modules/${to[1]}/index.ts, not ${i.target}`,
        })
      }
    }
  }

  const tables = tablesOf(root)
  const { owners, violations: declarations } = ownersOf(root, files, tables)
  violations.push(...declarations)
  for (const [table, where] of tables) {
    if (!owners[table]) {
      violations.push({
        rule: 'table-owner',
        ...where,
        message: `table ${table} has no owner: no repo.ts header says "The only file that names ${table} in SQL."`,
      })
    }
  }
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const piece of templateTexts(text)) {
      for (const hit of tablesNamedIn(piece.text, tables.keys())) {
        if (owners[hit.table] === file) continue
        const line = piece.line + piece.text.slice(0, hit.offset).split('\n').length - 1
        violations.push({
          rule: 'table-owner',
          file,
          line,
          message: `names table ${hit.table}, which belongs to ${owners[hit.table] ?? 'no owner'}: call that module instead`,
        })
      }
    }
  }

  return violations.sort((a, b) => a.rule.localeCompare(b.rule) || a.file.localeCompare(b.file) || a.line - b.line)
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, '..'))
  const violations = checkArchitecture(root)
  for (const v of violations) console.log(`${v.file}:${v.line}  [${v.rule}] ${v.message}`)
  const byRule = new Map<string, number>()
  for (const v of violations) byRule.set(v.rule, (byRule.get(v.rule) ?? 0) + 1)
  const summary = [...byRule].map(([rule, n]) => `${rule} ${n}`).join(', ')
  console.log(violations.length ? `\n${violations.length} architecture violations (${summary})` : 'architecture rules hold')
  process.exit(violations.length ? 1 : 0)
}
