// Bundles the browser SDK with Bun.build: a minified IIFE (global BSS) for script tags and
// an ES module for bundlers, plus the hand-written declarations. Used in memory by the web
// module and, as `npm run build:sdk`, to write dist/sdk/ and print the sizes.
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'

export type SdkBundle = { iife: string; esm: string; dts: string }

/** The contract's size budget for /sdk/v1.js, gzipped. */
export const SDK_GZIP_BUDGET_BYTES = 15 * 1024

const dir = import.meta.dir

async function bundle(entry: string, format: 'iife' | 'esm'): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(dir, entry)],
    format,
    target: 'browser',
    minify: true,
    sourcemap: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!result.success) throw new AggregateError(result.logs, `SDK build failed (${entry})`)
  const [output] = result.outputs
  if (!output) throw new Error(`SDK build produced no output (${entry})`)
  return output.text()
}

export async function buildSdk(): Promise<SdkBundle> {
  const [iife, esm, dts] = await Promise.all([
    bundle('global.ts', 'iife'),
    bundle('index.ts', 'esm'),
    Bun.file(join(dir, 'v1.d.ts')).text(),
  ])
  return { iife, esm, dts }
}

export const gzipSize = (text: string) => gzipSync(Buffer.from(text), { level: 9 }).byteLength

if (import.meta.main) {
  const out = join(dir, '../../dist/sdk')
  const { iife, esm, dts } = await buildSdk()
  await Bun.write(join(out, 'v1.js'), iife)
  await Bun.write(join(out, 'v1.mjs'), esm)
  await Bun.write(join(out, 'v1.d.ts'), dts)
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  console.log(`dist/sdk/v1.js   ${kb(iife.length)} minified, ${kb(gzipSize(iife))} gzipped (budget ${kb(SDK_GZIP_BUDGET_BYTES)})`)
  console.log(`dist/sdk/v1.mjs  ${kb(esm.length)} minified, ${kb(gzipSize(esm))} gzipped`)
  if (gzipSize(iife) > SDK_GZIP_BUDGET_BYTES) {
    console.error('the SDK is over its size budget')
    process.exit(1)
  }
}
