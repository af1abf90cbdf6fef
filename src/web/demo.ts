// The /demo page: starts the SDK (loaded before this file as the global BSS) and asks this
// server for the verdict. The page holds only the public key.
import type { BssClient, InitOptions } from '../sdk/v1'

declare const BSS: { init(options: InitOptions): BssClient } | undefined

type Result = {
  verdict: string
  hcs: number
  m3_score: number
  reasons: string[]
  reason_meanings?: { code: string; meaning: string }[]
  signals: number
  batches: number
  model_version: string
}

const $ = (id: string) => document.getElementById(id)!

function render(target: HTMLElement, nodes: (Node | string)[]) {
  target.replaceChildren(...nodes)
}

function el(tag: string, text?: string, className?: string): HTMLElement {
  const node = document.createElement(tag)
  if (text !== undefined) node.textContent = text
  if (className) node.className = className
  return node
}

function start() {
  const key = document.querySelector<HTMLMetaElement>('meta[name="bss-public-key"]')?.content
  const result = $('result')
  if (typeof BSS === 'undefined' || !key) {
    render(result, [el('p', 'The SDK did not load.', 'error-text')])
    return
  }
  const client = BSS.init({ publicKey: key, endpoint: location.origin })
  $('session-id').textContent = client.sessionId
  $('demo-form').addEventListener('submit', (e) => e.preventDefault())

  const button = $('check') as HTMLButtonElement
  button.addEventListener('click', async () => {
    button.disabled = true
    render(result, [el('p', 'Sending your signals and asking for the verdict…')])
    try {
      await client.flush()
      // a tab opened from another (window.open, duplicate) moves to a session of its own shortly after load
      $('session-id').textContent = client.sessionId
      const res = await fetch(`/demo/result/${encodeURIComponent(client.sessionId)}`, { headers: { accept: 'application/json' } })
      const body = await res.json()
      if (res.status === 404) {
        render(result, [el('p', 'No verdict yet: interact a little more, then try again.')])
      } else if (!res.ok) {
        render(result, [el('p', body?.error?.message ?? `The service answered ${res.status}.`, 'error-text')])
      } else {
        showResult(result, body as Result)
      }
    } catch {
      render(result, [el('p', 'The service could not be reached.', 'error-text')])
    } finally {
      button.disabled = false
    }
  })
}

function showResult(target: HTMLElement, r: Result) {
  const verdict = el('p', '', 'verdict')
  verdict.append('Verdict: ', el('strong', r.verdict.replace(/_/g, ' '), `badge badge-${r.verdict}`))
  const list = el('dl', undefined, 'facts')
  const facts: [string, string][] = [
    ['Human-confidence score', `${r.hcs.toFixed(1)} / 100`],
    ['M3 probability', r.m3_score.toFixed(4)],
    ['Signals', `${r.signals} in ${r.batches} batch${r.batches === 1 ? '' : 'es'}`],
    ['Model', r.model_version],
  ]
  for (const [term, value] of facts) list.append(el('dt', term), el('dd', value))
  const reasons = el('ul', undefined, 'reasons')
  reasons.id = 'demo-reasons'
  for (const { code, meaning } of r.reason_meanings ?? r.reasons.map((code) => ({ code, meaning: code }))) {
    const item = el('li', meaning)
    item.append(' ', el('code', code, 'muted'))
    reasons.append(item)
  }
  render(target, [verdict, list, el('h3', 'Why'), r.reasons.length ? reasons : el('p', 'No reasons were given.')])
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start)
else start()
