/**
 * `bun run scripts/build-web.ts [outDir]` (npm run build:web): bundles the browser SDK and the
 * dashboard/demo pages to dist/web/, the same bytes the service builds in memory in development.
 * The Docker image runs this in its build stage and ships dist/web instead of src/sdk and src/web.
 */
import { copyFileSync, mkdirSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { PREBUILT_RENDERER, rendererSource } from '../src/server/modules/docs'
import { ASSET_NAMES, buildAssetBodies, PREBUILT_DIR } from '../src/server/modules/web/assets'

export async function buildWeb(outDir = PREBUILT_DIR): Promise<Record<string, number>> {
  const bodies = await buildAssetBodies()
  mkdirSync(outDir, { recursive: true })
  const sizes: Record<string, number> = {}
  for (const name of ASSET_NAMES) sizes[name] = await Bun.write(join(outDir, name), bodies[name])
  // The /docs renderer is a devDependency: the image gets its pinned browser bundle from here.
  const renderer = rendererSource()
  if (!renderer) throw new Error('@scalar/api-reference is not installed: run npm install first')
  const target = join(outDir, basename(PREBUILT_RENDERER))
  copyFileSync(renderer, target)
  sizes[basename(target)] = statSync(target).size
  return sizes
}

if (import.meta.main) {
  const outDir = resolve(process.argv[2] ?? PREBUILT_DIR)
  const sizes = await buildWeb(outDir)
  for (const [name, bytes] of Object.entries(sizes)) console.log(`${join(outDir, name)}  ${(bytes / 1024).toFixed(1)} KB`)
}
