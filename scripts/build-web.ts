/**
 * `bun run scripts/build-web.ts [outDir]` (npm run build:web): bundles the browser SDK and the
 * dashboard/demo pages to dist/web/, the same bytes the service builds in memory in development.
 * The Docker image runs this in its build stage and ships dist/web instead of src/sdk and src/web.
 */
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ASSET_NAMES, buildAssetBodies, PREBUILT_DIR } from '../src/server/modules/web/assets'

export async function buildWeb(outDir = PREBUILT_DIR): Promise<Record<string, number>> {
  const bodies = await buildAssetBodies()
  mkdirSync(outDir, { recursive: true })
  const sizes: Record<string, number> = {}
  for (const name of ASSET_NAMES) sizes[name] = await Bun.write(join(outDir, name), bodies[name])
  return sizes
}

if (import.meta.main) {
  const outDir = resolve(process.argv[2] ?? PREBUILT_DIR)
  const sizes = await buildWeb(outDir)
  for (const [name, bytes] of Object.entries(sizes)) console.log(`${join(outDir, name)}  ${(bytes / 1024).toFixed(1)} KB`)
}
