import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

// The Dockerfile's recipe (no Docker engine runs here; tests/architecture/image.test.ts checks its COPY list).
const repo = join(import.meta.dir, '..', '..')
const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8')
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'))

describe('Dockerfile', () => {
  it('pins every Bun image to the version package-lock.json pins', () => {
    const bun = lock.packages['node_modules/bun'].version as string
    const images = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]!)
    expect(images.length).toBeGreaterThan(1)
    for (const image of images) expect(image).toMatch(new RegExp(`^oven/bun:${bun.replaceAll('.', '\\.')}(-slim)?$`))
  })

  it('installs from the lockfile, frozen', () => {
    const installs = dockerfile.split('\n').filter((l) => /\b(bun|npm) (install|ci)\b/.test(l))
    expect(installs.length).toBeGreaterThan(0)
    for (const line of installs) expect(line).toMatch(/--frozen-lockfile|npm ci/)
  })

  it('health-checks the port the server listens on (PORT), not a fixed one', () => {
    const check = dockerfile.split('\n').find((l) => l.startsWith('HEALTHCHECK'))!
    expect(check).toContain('process.env.PORT')
    expect(check).not.toMatch(/:3000\//)
  })

  it('keeps .env files out of the build context', () => {
    const ignored = readFileSync(join(repo, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
    expect(ignored).toContain('.env')
    expect(ignored).toContain('.env.*')
  })
})
