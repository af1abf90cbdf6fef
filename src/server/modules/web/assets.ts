import { existsSync } from 'node:fs'
import { join } from 'node:path'

export type Asset = { body: string; type: string; etag: string }
export const ASSET_NAMES = ['sdk.js', 'sdk.mjs', 'sdk.d.ts', 'dashboard.js', 'demo.js', 'app.css'] as const
export type AssetName = (typeof ASSET_NAMES)[number]
export type Assets = Record<AssetName, Asset>

const root = join(import.meta.dir, '..', '..', '..', '..')
const clientDir = join(root, 'src', 'web')
const sdkDir = join(root, 'src', 'sdk')
/** Written by scripts/build-web.ts; the production image ships this instead of the browser sources. */
export const PREBUILT_DIR = join(root, 'dist', 'web')

const JS = 'text/javascript; charset=utf-8'
const TYPES: Record<AssetName, string> = {
  'sdk.js': JS,
  'sdk.mjs': JS,
  'sdk.d.ts': 'text/plain; charset=utf-8',
  'dashboard.js': JS,
  'demo.js': JS,
  'app.css': 'text/css; charset=utf-8',
}

function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${Bun.hash(body).toString(36)}"` }
}

async function bundlePage(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [join(clientDir, entry)], format: 'iife', target: 'browser', minify: true })
  if (!result.success) throw new AggregateError(result.logs, `page bundle failed (${entry})`)
  return result.outputs[0]!.text()
}

/** Bundles the SDK and the pages from their sources (src/sdk, src/web). */
export async function buildAssetBodies(): Promise<Record<AssetName, string>> {
  // Imported only here: the production image has no src/sdk and never takes this path.
  const { buildSdk } = await import('../../../sdk/build')
  const [sdk, dashboard, demo, css] = await Promise.all([
    buildSdk(),
    bundlePage('dashboard.ts'),
    bundlePage('demo.ts'),
    Bun.file(join(clientDir, 'app.css')).text(),
  ])
  return { 'sdk.js': sdk.iife, 'sdk.mjs': sdk.esm, 'sdk.d.ts': sdk.dts, 'dashboard.js': dashboard, 'demo.js': demo, 'app.css': css }
}

async function readPrebuilt(): Promise<Record<AssetName, string>> {
  const missing = ASSET_NAMES.filter((name) => !existsSync(join(PREBUILT_DIR, name)))
  if (missing.length)
    throw new Error(
      `no browser sources and no prebuilt assets (${missing.join(', ')} missing in ${PREBUILT_DIR}): run scripts/build-web.ts`
    )
  const bodies = await Promise.all(ASSET_NAMES.map((name) => Bun.file(join(PREBUILT_DIR, name)).text()))
  return Object.fromEntries(ASSET_NAMES.map((name, i) => [name, bodies[i]!])) as Record<AssetName, string>
}

async function loadAll(): Promise<Assets> {
  // Where the sources are (development, tests) they win, so a stale dist/web is never served;
  // the image ships dist/web and no sources.
  const bodies = existsSync(sdkDir) ? await buildAssetBodies() : await readPrebuilt()
  return Object.fromEntries(ASSET_NAMES.map((name) => [name, asset(bodies[name], TYPES[name])])) as Assets
}

let built: Promise<Assets> | null = null

/**
 * Built (or read) once per process and kept in memory: the bundles do not depend on the app
 * instance, and a request never waits for more than the first build. A failure is retried on the next call.
 */
export function assets(): Promise<Assets> {
  if (!built) {
    built = loadAll()
    built.catch(() => {
      built = null
    })
  }
  return built
}
