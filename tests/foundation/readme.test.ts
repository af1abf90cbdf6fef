import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readUntil } from '../helpers/listening'

/**
 * The README's curl walk-through, run as written against a real `npm start` (development, embedded
 * PGlite, its demo organization), from a folder whose ./data is that server's DATA_DIR, as a reader
 * runs it. Fails when a step stops being copy-pasteable. Needs bash, curl and node on PATH.
 */
const repo = join(import.meta.dir, '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'bss-readme-'))
const children: Bun.Subprocess[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

function walkthrough(): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8')
  const block = /<!-- readme-walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- readme-walkthrough:end -->/.exec(readme)
  if (!block) throw new Error('README.md: the walk-through block (readme-walkthrough markers) is missing')
  return block[1]!
}

const tools = ['bash', 'curl', 'node'].every((tool) => Bun.which(tool))

describe('README walk-through', () => {
  it.skipIf(!tools)(
    'runs as written, every step answering as the comments say',
    async () => {
      const env: Record<string, string | undefined> = {
        ...process.env,
        NODE_ENV: 'development',
        DATA_DIR: join(dir, 'data'),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      }
      for (const name of ['JWT_SECRET', 'DATABASE_URL', 'SMTP_URL', 'REDIS_URL', 'TRUST_PROXY']) delete env[name]
      const server = Bun.spawn([process.execPath, 'run', join(repo, 'src/server/main.ts')], { env, stdout: 'pipe', stderr: 'pipe' })
      children.push(server)
      const base = await readUntil(server, /Demo organization ready[\s\S]*?dashboard login[^\n]*\((http:\/\/[^/]+)\/dashboard\)/)
      expect(existsSync(join(dir, 'data', 'demo-credentials.json'))).toBe(true)

      const script = Bun.spawn(['bash', '-euo', 'pipefail', '-c', walkthrough()], {
        cwd: dir,
        env: { ...process.env, BASE: base },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [code, out, err] = await Promise.all([script.exited, new Response(script.stdout).text(), new Response(script.stderr).text()])
      if (code !== 0) throw new Error(`walk-through failed (exit ${code}):\n${out}\n${err}`)
      const lines = out.split('\n').filter(Boolean)
      const json = (i: number) => JSON.parse(lines[i]!)
      expect(json(0)).toMatchObject({ verdict: expect.any(String), signals: 3 }) // 1. secret key: scored
      expect(json(1)).toMatchObject({ accepted: 0 }) // 2. public key: 202, no score
      expect(json(1).hcs).toBeUndefined()
      expect(json(2).session_id).toBeString() // 3. the verdict
      expect(json(3).plan_id).toBe('starter') // 4. usage
      expect(json(4).m3_score).toBeNumber() // 5. live score
      expect(json(5).ticket_id).toBeString() // 6. a ticket, then its replay
      expect(lines[6]!.toLowerCase()).toMatch(/^idempotent-replayed: true/)
      expect(json(7).data.getPlanUsage.planId).toBe('starter') // 7. GraphQL with the token from the mailed code
      expect(json(7).data.listApiKeys.length).toBeGreaterThan(0)
      server.kill('SIGTERM')
      await server.exited
    },
    120_000
  )
})
