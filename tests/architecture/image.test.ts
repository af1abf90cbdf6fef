import { afterAll, describe, expect, it } from 'bun:test'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildGraph, listFiles } from '../../scripts/check-architecture'
import { buildWeb } from '../../scripts/build-web'
import { readUntil } from '../helpers/listening'

/**
 * No Docker engine runs here, so the image is checked from its recipe: the runtime stage's COPY
 * list must hold every file the server loads, and the server must start and serve its pages
 * from a directory holding exactly those paths.
 */
const repo = join(import.meta.dir, '..', '..')
const ENTRY = 'src/server/main.ts'

/** Dynamic imports that are taken only where the browser sources exist (development and tests). */
const SOURCE_ONLY = new Map([['src/server/modules/web/assets.ts', 'src/sdk/build.ts']])

/** Destination paths of the runtime stage's COPY lines, relative to its WORKDIR. */
function copiedPaths(): string[] {
  const text = readFileSync(join(repo, 'Dockerfile'), 'utf8')
  const runtime = text.slice(text.lastIndexOf('\nFROM '))
  const paths: string[] = []
  for (const m of runtime.matchAll(/^COPY\s+(?:--\S+\s+)*\S+\s+(\S+)\s*$/gm)) paths.push(m[1]!.replace(/^\.\//, '').replace(/\/$/, ''))
  return paths
}

const inCopied = (file: string, paths: string[]) => paths.some((p) => file === p || file.startsWith(`${p}/`))

/** Every file the server loads at run time, from main.ts, and the packages it imports. */
function serverClosure() {
  const graph = buildGraph(repo, listFiles(repo, ['src', 'tenants', 'ml', 'scripts']))
  const files = new Set<string>()
  const packages = new Map<string, string>()
  const todo = [ENTRY]
  while (todo.length) {
    const file = todo.pop()!
    if (files.has(file)) continue
    files.add(file)
    for (const i of graph.get(file) ?? []) {
      if (!i.runtime) continue
      if (i.dynamic && SOURCE_ONLY.get(file) === i.target) continue
      if (i.target) {
        if (graph.has(i.target)) todo.push(i.target)
        else files.add(i.target) // JSON and other non-code files
      } else if (!i.specifier.startsWith('.')) packages.set(i.specifier, file)
    }
  }
  return { files: [...files].sort(), packages }
}

describe('the Docker image', () => {
  const paths = copiedPaths()

  it('copies the server, the scoring library, migrations, plans and built assets, and no offline or browser sources', () => {
    expect(paths).toEqual(
      expect.arrayContaining(['src/server', 'src/scoring', 'sql', 'tenants', 'dist/web', 'node_modules', 'package.json'])
    )
    for (const absent of ['src', 'ml', 'tests', 'src/sdk', 'src/web', 'bench', 'docs', 'scripts', '.']) expect(paths).not.toContain(absent)
  })

  it('keeps in the build context what the build stage reads (.dockerignore)', () => {
    const ignored = readFileSync(join(repo, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim().replace(/^\.\//, '').replace(/\/$/, ''))
      .filter((l) => l && !l.startsWith('#'))
    const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`)
    const needed = [
      'package.json',
      'package-lock.json',
      'scripts/patch-postgres.cjs',
      'scripts/build-web.ts',
      'src/sdk',
      'src/web',
      'tsconfig.json',
    ]
    const inputs = [...needed, ...paths.filter((p) => p !== 'node_modules' && p !== 'dist/web')]
    expect(inputs.filter((path) => ignored.some((pattern) => glob(pattern).test(path)))).toEqual([])
  })

  it('holds every file the server imports at run time', () => {
    const { files } = serverClosure()
    expect(files.length).toBeGreaterThan(20)
    expect(files.filter((f) => !inCopied(f, paths))).toEqual([])
  })

  it('needs only production dependencies (the image installs with --production)', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))
    const production = new Set(Object.keys(pkg.dependencies ?? {}))
    const builtin = new Set(builtinModules)
    const missing: string[] = []
    for (const [specifier, file] of serverClosure().packages) {
      if (specifier.startsWith('node:') || specifier.startsWith('bun:') || specifier === 'bun' || builtin.has(specifier)) continue
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!
      if (!production.has(name)) missing.push(`${name} (imported by ${file})`)
    }
    expect(missing).toEqual([])
  })

  describe('started from exactly the copied paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'image-'))
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    it('serves health, the SDK and the pages from dist/web without src/sdk or src/web', async () => {
      await buildWeb(join(dir, 'dist', 'web'))
      for (const p of paths) {
        if (p === 'dist/web') continue
        if (p === 'node_modules') symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir')
        else {
          mkdirSync(join(dir, p, '..'), { recursive: true })
          cpSync(join(repo, p), join(dir, p), { recursive: true })
        }
      }
      expect(existsSync(join(dir, 'src', 'sdk'))).toBe(false)
      // PORT 0: the kernel picks a free port and the server's "listening" line names it (a random fixed
      // port can be taken by another listener, and then the test would talk to that one)
      const proc = Bun.spawn([process.execPath, 'run', ENTRY], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          JWT_SECRET: 'image-test-secret-of-at-least-thirty-two-characters',
          PORT: '0',
          HOST: '127.0.0.1',
          DATA_DIR: join(dir, 'data'),
          LOG_LEVEL: 'info',
        },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      try {
        const base = await readUntil(proc)
        const health = await fetch(`${base}/health`)
        expect(health.status).toBe(200)
        for (const [path, file] of [
          ['/sdk/v1.js', 'sdk.js'],
          ['/assets/dashboard.js', 'dashboard.js'],
          ['/assets/app.css', 'app.css'],
          // the /docs renderer is a devDependency: the image serves the bundle build-web copied
          ['/docs/assets/api-reference.js', 'api-reference.js'],
        ] as const) {
          const res = await fetch(base + path)
          expect(res.status).toBe(200)
          expect(await res.text()).toBe(readFileSync(join(dir, 'dist', 'web', file), 'utf8'))
        }
        expect((await fetch(`${base}/dashboard`)).status).toBe(200)
      } finally {
        proc.kill('SIGTERM')
        await proc.exited
      }
    }, 120_000)
  })
})
