// The browser-bots tools in WebKit, Safari's engine: Debian's WebKitGTK MiniBrowser under WebKitWebDriver
// (W3C WebDriver), in a virtual X display (Xvfb), on the same demo page with the real SDK, judged by the
// real service. Playwright's WebKit is its own download, which this machine cannot fetch; WebKitGTK is the
// same engine (its event dispatch, timers and SDK code paths), not Safari's macOS/iOS input stack.
// docs/scoring.md, "Bot tools in a real browser", has the table.
//   apt-get install webkit2gtk-driver xvfb (scripts/ci-browser.sh); N=10 TOOLS=playwright_steps npx bun run ml/experiments/webkit-bots.ts
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import type { Page } from 'playwright-core'
import { eventually } from '../../tests/e2e/support'
import { type OpenPage, VIEWPORT, cdpOverMouse, measureFromEnv } from './browser-bots'
import { FIREFOX_TOOLS } from './firefox-bots'

const DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver'
const MINIBROWSER = process.env.WEBKIT_BROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'
const XVFB = '/usr/bin/Xvfb'

/** WebKitWebDriver and MiniBrowser (and Xvfb when there is no display), or null */
export function findWebKit(): string | null {
  const ok = existsSync(DRIVER) && existsSync(MINIBROWSER) && (Boolean(process.env.DISPLAY) || existsSync(XVFB))
  return ok ? DRIVER : null
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** a virtual X display of `size` (WIDTHxHEIGHT): its name and its process */
export async function startXvfb(size: string): Promise<{ display: string; xvfb: ReturnType<typeof Bun.spawn> }> {
  // -displayfd: Xvfb picks a free display number and writes it once it accepts clients
  const xvfb = Bun.spawn([XVFB, '-displayfd', '1', '-screen', '0', `${size}x24`, '-nolisten', 'tcp'], {
    stdout: 'pipe',
    stderr: 'ignore',
  })
  const reader = xvfb.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error('Xvfb exited before it gave a display')
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { display: `:${text.trim()}`, xvfb }
}

export type WebKit = { url: string; close(): Promise<void> }

/** WebKitWebDriver on a free port, with a virtual display of its own unless DISPLAY is set */
export async function launchWebKit(driver: string): Promise<WebKit> {
  const children: ReturnType<typeof Bun.spawn>[] = []
  let display = process.env.DISPLAY
  if (!display) {
    const x = await startXvfb('1280x800')
    children.push(x.xvfb)
    display = x.display
  }
  const port = await freePort()
  // no GPU in a virtual display: WebKit's software paths (without them a web process hung once in a run)
  const env = {
    ...process.env,
    DISPLAY: display,
    WEBKIT_DISABLE_DMABUF_RENDERER: '1',
    WEBKIT_DISABLE_COMPOSITING_MODE: '1',
    LIBGL_ALWAYS_SOFTWARE: '1',
  }
  children.push(Bun.spawn([driver, `--port=${port}`, '--host=127.0.0.1'], { env, stdout: 'ignore', stderr: 'ignore' }))
  const url = `http://127.0.0.1:${port}`
  await eventually(
    () =>
      fetch(`${url}/status`).then(
        (r) => r.ok,
        () => false
      ),
    'WebKitWebDriver',
    15_000
  )
  return {
    url,
    async close() {
      for (const c of children.reverse()) c.kill()
      await Promise.all(children.map((c) => c.exited))
    },
  }
}

/** one W3C WebDriver command; an error answer throws with the driver's message */
async function command<T>(url: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const json = (await res.json()) as { value: T & { error?: string; message?: string } }
  if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error} ${json.value?.message}`)
  return json.value
}

// WebDriver's names for the keys the tools press that are not characters
const KEYS: Record<string, string> = { Backspace: '\uE003', Enter: '\uE007', Tab: '\uE004', Shift: '\uE008' }

/** WebKit's pages for recordVisit: a WebDriver session (its own browser process, fresh storage) a visit */
export const webkitPages =
  (webkit: WebKit, size: { width: number; height: number } = VIEWPORT): OpenPage =>
  async () => {
    const { sessionId } = await command<{ sessionId: string }>(webkit.url, 'POST', '/session', {
      capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } },
    })
    const s = `/session/${sessionId}`
    // the other browsers' size; the window's, best effort (a driver may refuse to resize)
    await command(webkit.url, 'POST', `${s}/window/rect`, size).catch(() => {})
    return { page: webdriverPage(webkit.url, s), close: () => command(webkit.url, 'DELETE', s).then(() => {}) }
  }

/**
 * The part of Playwright's Page the tools use, on a WebDriver session: each awaited move one `actions`
 * command (one pointerMove, no duration), as page.mouse.move sends one event a call; press, release,
 * wheel and keys likewise. The ghost-cursor tool's CDP moves become such moves too.
 */
function webdriverPage(url: string, s: string): Page {
  const perform = (actions: unknown[]) => command(url, 'POST', `${s}/actions`, { actions })
  const pointer = (actions: unknown[]) => perform([{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions }])
  const key = (type: 'keyDown' | 'keyUp', k: string) => perform([{ type: 'key', id: 'keyboard', actions: [{ type, value: KEYS[k] ?? k }] }])
  let at = { x: 0, y: 0 }
  const moveTo = async (x: number, y: number) => {
    at = { x, y }
    // the viewport's CSS px; WebDriver wants whole numbers, as Firefox delivers them anyway
    await pointer([{ type: 'pointerMove', duration: 0, origin: 'viewport', x: Math.round(x), y: Math.round(y) }])
  }
  const run = <T>(script: string, args: unknown[]) => command<T>(url, 'POST', `${s}/execute/sync`, { script, args })
  const box = (selector: string) =>
    run<{ x: number; y: number; width: number; height: number } | null>(
      'const e = document.querySelector(arguments[0]); if (!e) return null; const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }',
      [selector]
    )
  const focus = (selector: string) => run('document.querySelector(arguments[0]).focus()', [selector])
  const mouse = {
    async move(x: number, y: number, o?: { steps?: number }) {
      // Playwright's steps: equal parts of the line from where the mouse is
      const steps = Math.max(1, o?.steps ?? 1)
      const from = at
      for (let i = 1; i <= steps; i++) await moveTo(from.x + ((x - from.x) * i) / steps, from.y + ((y - from.y) * i) / steps)
    },
    down: () => pointer([{ type: 'pointerDown', button: 0 }]),
    up: () => pointer([{ type: 'pointerUp', button: 0 }]),
    wheel: (deltaX: number, deltaY: number) =>
      perform([
        {
          type: 'wheel',
          id: 'wheel',
          actions: [{ type: 'scroll', origin: 'viewport', x: Math.round(at.x), y: Math.round(at.y), deltaX, deltaY }],
        },
      ]),
  }
  const cdp = cdpOverMouse('WebKit', { move: moveTo, down: mouse.down, up: mouse.up })
  const shim = {
    goto: (to: string) => command(url, 'POST', `${s}/url`, { url: to }),
    waitForFunction: (fn: () => boolean) =>
      eventually(() => run<boolean>(`return (${fn.toString()})()`, []).catch(() => false), 'waitForFunction', 15_000),
    textContent: (selector: string) => run<string | null>('return document.querySelector(arguments[0])?.textContent ?? null', [selector]),
    // as Playwright's evaluate: the function's value, or its rejection thrown here (a failed flush is not silent)
    async evaluate<A>(fn: (arg: A) => unknown, arg: A) {
      const out = await command<{ value?: unknown; error?: string }>(url, 'POST', `${s}/execute/async`, {
        script: `const done = arguments[arguments.length - 1]; Promise.resolve((${fn.toString()})(arguments[0])).then((value) => done({ value }), (e) => done({ error: String(e) }))`,
        args: [arg],
      })
      if (out.error !== undefined) throw new Error(`evaluate in WebKit: ${out.error}`)
      return out.value
    },
    mouse,
    keyboard: { down: (k: string) => key('keyDown', k), up: (k: string) => key('keyUp', k) },
    locator: (selector: string) => ({
      boundingBox: () => box(selector),
      async click(o?: { position?: { x: number; y: number } }) {
        // Playwright's click: one move to the point, press, release
        const b = await box(selector)
        if (!b) throw new Error(`no box for ${selector}`)
        await moveTo(b.x + (o?.position?.x ?? b.width / 2), b.y + (o?.position?.y ?? b.height / 2))
        await mouse.down()
        await mouse.up()
      },
      focus: () => focus(selector),
      async pressSequentially(text: string, o?: { delay?: number }) {
        await focus(selector)
        for (const ch of text) {
          await key('keyDown', ch)
          if (o?.delay) await Bun.sleep(o.delay)
          await key('keyUp', ch)
        }
      },
    }),
    context: () => ({ newCDPSession: async () => cdp }),
  }
  return shim as unknown as Page
}

/** the tools that need no Playwright-only library, as in Firefox */
export const WEBKIT_TOOLS = FIREFOX_TOOLS

async function main() {
  const driver = findWebKit()
  if (!driver) throw new Error('WebKit is needed: apt-get install webkit2gtk-driver xvfb (scripts/ci-browser.sh)')
  await measureFromEnv(WEBKIT_TOOLS, async () => {
    const webkit = await launchWebKit(driver)
    return { open: webkitPages(webkit), close: () => webkit.close() }
  })
}

if (import.meta.main) await main()
