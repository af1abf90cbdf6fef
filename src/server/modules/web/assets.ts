import { join } from 'node:path'
import { buildSdk } from '../../../sdk/build'

export type Asset = { body: string; type: string; etag: string }
export type Assets = Record<'sdk.js' | 'sdk.mjs' | 'sdk.d.ts' | 'dashboard.js' | 'demo.js' | 'app.css', Asset>

const clientDir = join(import.meta.dir, '..', '..', '..', 'web')

const JS = 'text/javascript; charset=utf-8'

function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${Bun.hash(body).toString(36)}"` }
}

async function bundlePage(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [join(clientDir, entry)], format: 'iife', target: 'browser', minify: true })
  if (!result.success) throw new AggregateError(result.logs, `page bundle failed (${entry})`)
  return result.outputs[0]!.text()
}

async function buildAll(): Promise<Assets> {
  const [sdk, dashboard, demo, css] = await Promise.all([
    buildSdk(),
    bundlePage('dashboard.ts'),
    bundlePage('demo.ts'),
    Bun.file(join(clientDir, 'app.css')).text(),
  ])
  return {
    'sdk.js': asset(sdk.iife, JS),
    'sdk.mjs': asset(sdk.esm, JS),
    'sdk.d.ts': asset(sdk.dts, 'text/plain; charset=utf-8'),
    'dashboard.js': asset(dashboard, JS),
    'demo.js': asset(demo, JS),
    'app.css': asset(css, 'text/css; charset=utf-8'),
  }
}

let built: Promise<Assets> | null = null

/**
 * Built once per process and kept in memory: the bundles do not depend on the app instance, and
 * a request never waits for more than the first build. A failed build is retried on the next call.
 */
export function assets(): Promise<Assets> {
  if (!built) {
    built = buildAll()
    built.catch(() => {
      built = null
    })
  }
  return built
}
