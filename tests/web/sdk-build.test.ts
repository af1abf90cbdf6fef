import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildSdk, gzipSize, SDK_GZIP_BUDGET_BYTES, type SdkBundle } from '../../src/sdk/build'

let sdk: SdkBundle
let dir: string

beforeAll(async () => {
  sdk = await buildSdk()
  dir = mkdtempSync(join(tmpdir(), 'bss-sdk-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('SDK bundle', () => {
  it('stays within 15 KB gzipped', () => {
    const size = gzipSize(sdk.iife)
    console.log(`SDK /sdk/v1.js: ${sdk.iife.length} bytes minified, ${size} bytes gzipped`)
    expect(size).toBeLessThanOrEqual(SDK_GZIP_BUDGET_BYTES)
    expect(gzipSize(sdk.esm)).toBeLessThanOrEqual(SDK_GZIP_BUDGET_BYTES)
  })

  it('is one self-contained script: no imports, no Node built-ins', () => {
    for (const code of [sdk.iife, sdk.esm]) {
      expect(code).not.toMatch(/\bimport\s*[\s{*"']/)
      expect(code).not.toMatch(/\brequire\(/)
      expect(code).not.toContain('node:')
    }
    expect(sdk.iife.startsWith('(()=>{')).toBe(true)
  })

  it('the script defines the global BSS and never throws where there is no browser', () => {
    const scope = globalThis as { BSS?: any }
    expect(scope.BSS).toBeUndefined()
    try {
      new Function(sdk.iife)()
      expect(typeof scope.BSS.init).toBe('function')
      expect(scope.BSS.version).toBe('1.0.1')
      const warn = console.warn
      const warnings: string[] = []
      console.warn = (m: string) => warnings.push(m)
      try {
        const client = scope.BSS.init({ publicKey: 'svc_live_pk_' + 'x'.repeat(24) })
        expect(client.sessionId).toBe('')
        expect(warnings.join()).toContain('no browser window')
      } finally {
        console.warn = warn
      }
    } finally {
      delete scope.BSS
    }
  })

  it('the ES module exports exactly what its .d.ts declares', async () => {
    const file = join(dir, 'v1.mjs')
    writeFileSync(file, sdk.esm)
    const mod = await import(file)
    const declared = [...sdk.dts.matchAll(/^export declare (?:function|const) (\w+)/gm)].map((m) => m[1]).sort()
    expect(Object.keys(mod).sort()).toEqual(declared)
    expect(declared).toEqual(['init', 'version'])
    expect(sdk.dts).toContain('export interface InitOptions')
  })
})
