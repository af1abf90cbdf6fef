// The browser-bots tools in Firefox: Puppeteer drives Debian's Firefox ESR over WebDriver BiDi (Playwright's
// Firefox is its own patched build, which this machine cannot download), on the same demo page with the
// real SDK, judged by the real service. It measures how Firefox hands a script's moves and keys to the
// page, which the generators' delivery kinds (ml/generators/visit.ts) were drawn from Chrome's.
// docs/scoring.md, "Bot tools in a real browser", has the table.
//   apt-get install firefox-esr (scripts/ci-browser.sh); N=20 TOOLS=playwright_steps npx bun run ml/experiments/firefox-bots.ts
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import puppeteer, { type Browser as PuppeteerBrowser, type Page as PuppeteerPage } from 'puppeteer-core'
import { BROWSER_TOOLS, type OpenPage, VIEWPORT, cdpOverMouse, measureFromEnv } from './browser-bots'

/** Debian's Firefox ESR (FIREFOX_PATH elsewhere), or null */
export function findFirefox(): string | null {
  const candidates = process.env.FIREFOX_PATH ? [process.env.FIREFOX_PATH] : ['/usr/bin/firefox-esr', '/usr/bin/firefox']
  return candidates.find((path) => existsSync(path)) ?? null
}

/** Firefox headless through Puppeteer (WebDriver BiDi), at the Chromium runs' viewport */
export function launchFirefox(executablePath: string): Promise<PuppeteerBrowser> {
  return puppeteer.launch({ browser: 'firefox', executablePath, headless: true, defaultViewport: VIEWPORT })
}

/** Firefox's pages for recordVisit, a fresh browser context a visit */
export const firefoxPages =
  (browser: PuppeteerBrowser): OpenPage =>
  async () => {
    const context = await browser.createBrowserContext()
    return { page: asPlaywrightPage(await context.newPage()), close: () => context.close() }
  }

/**
 * The part of Playwright's Page the tools use, on a Puppeteer page: the same calls (a move with steps,
 * press, wheel, an element's box, click, focus, type). Puppeteer has no CDP in Firefox, so the
 * ghost-cursor tool's CDP moves become page.mouse.move, one awaited move a point, as they are in Chrome.
 */
function asPlaywrightPage(p: PuppeteerPage): Page {
  const cdp = cdpOverMouse('Firefox', p.mouse)
  const shim = {
    goto: (url: string) => p.goto(url),
    waitForFunction: (fn: () => boolean) => p.waitForFunction(fn),
    textContent: (selector: string) => p.$eval(selector, (e) => e.textContent),
    evaluate: <A>(fn: (arg: A) => unknown, arg: A) => p.evaluate(fn as never, arg),
    mouse: {
      move: (x: number, y: number, o?: { steps?: number }) => p.mouse.move(x, y, o),
      down: () => p.mouse.down(),
      up: () => p.mouse.up(),
      wheel: (deltaX: number, deltaY: number) => p.mouse.wheel({ deltaX, deltaY }),
    },
    keyboard: { down: (key: string) => p.keyboard.down(key as never), up: (key: string) => p.keyboard.up(key as never) },
    locator: (selector: string) => ({
      boundingBox: async () => (await (await p.$(selector))?.boundingBox()) ?? null,
      click: (o?: { position?: { x: number; y: number } }) => p.click(selector, { offset: o?.position }),
      focus: () => p.focus(selector),
      pressSequentially: (text: string, o?: { delay?: number }) => p.type(selector, text, o),
    }),
    context: () => ({ newCDPSession: async () => cdp }),
  }
  return shim as unknown as Page
}

/** the tools that need no Playwright-only library (ghost-cursor-playwright drives a Playwright page itself) */
export const FIREFOX_TOOLS = BROWSER_TOOLS.filter((t) => t.name !== 'ghost_cursor_playwright' && t.name !== 'typing_loop_cursor')

async function main() {
  const firefox = findFirefox()
  if (!firefox) throw new Error('Firefox is needed: apt-get install firefox-esr (scripts/ci-browser.sh)')
  await measureFromEnv(FIREFOX_TOOLS, async () => {
    const browser = await launchFirefox(firefox)
    console.log(`Firefox ${await browser.version()}`)
    return { open: firefoxPages(browser), close: () => browser.close() }
  })
}

if (import.meta.main) await main()
