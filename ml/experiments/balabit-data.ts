// The Balabit Mouse Dynamics Challenge's sessions as signals (balabit.ts has the why): a local checkout or
// bare mirror of github.com/balabit/Mouse-Dynamics-Challenge, named by BALABIT; its data is not copied here.
import { execFileSync } from 'node:child_process'
import type { Signal } from '../../src/scoring/signals'

/** one Balabit session file → signals in ms (client clock), with Left/Right presses and wheel notches */
function toSignals(csv: string): Signal[] {
  const out: Signal[] = []
  for (const line of csv.split('\n').slice(1)) {
    const [, client, button, state, xs, ys] = line.split(',')
    if (!state) continue
    const t = Math.round(Number(client) * 1000)
    const x = Number(xs)
    const y = Number(ys)
    // the RDP client clamps the cursor to a 65535 sentinel off-screen now and then
    if (!Number.isFinite(t) || !Number.isFinite(x) || !Number.isFinite(y) || x > 10000 || y > 10000) continue
    if (state === 'Move' || state === 'Drag') out.push({ t, k: 'mm', x, y })
    else if (state === 'Pressed') out.push({ t, k: 'md', x, y })
    else if (state === 'Released') out.push({ t, k: 'mu', x, y })
    else if (button === 'Scroll') out.push({ t, k: 's', dy: state === 'Down' ? 100 : -100 })
  }
  // the client clock sometimes steps back by a few ms between packets; keep the order of arrival
  for (let i = 1; i < out.length; i++) if (out[i].t < out[i - 1].t) out[i].t = out[i - 1].t
  return out
}

/**
 * Each training session file of the checkout at BALABIT cut into consecutive windows of `windowS` seconds
 * with 20 moves or more, times from the window's start: `visit(user, signals)` once a window, in file order.
 */
export function balabitWindows(windowS: number, visit: (user: string, signals: Signal[]) => void): void {
  const repo = process.env.BALABIT
  if (!repo) throw new Error('set BALABIT to a checkout (or bare mirror) of balabit/Mouse-Dynamics-Challenge')
  const git = (...a: string[]) => execFileSync('git', ['-C', repo, ...a], { maxBuffer: 1 << 30 }).toString()
  const files = git('ls-tree', '-r', '--name-only', 'HEAD', 'training_files').split('\n').filter(Boolean)
  for (const f of files) {
    const user = f.split('/')[1]
    const all = toSignals(git('show', `HEAD:${f}`))
    const end = all.length ? all[all.length - 1].t : 0
    for (let start = 0; start + windowS * 1000 <= end; start += windowS * 1000) {
      const w = all.filter((s) => s.t >= start && s.t < start + windowS * 1000).map((s) => ({ ...s, t: s.t - start }))
      if (w.filter((s) => s.k === 'mm').length >= 20) visit(user, w)
    }
  }
}
