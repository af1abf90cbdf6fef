import { FEATURE_COUNT } from '../../platform/contract'

// The two HTML pages. Static markup only: behaviour comes from same-origin script files (strict CSP).

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

function layout(title: string, body: string, head = '', topbarExtra = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
${head}
</head>
<body>
<header class="topbar">
  <span class="brand">Behavioral Scoring Service</span>
  <nav aria-label="Pages"><a href="/demo">Demo</a><a href="/dashboard">Dashboard</a></nav>
  ${topbarExtra}
</header>
${body}
</body>
</html>
`
}

const PARAGRAPHS = [
  'Every move of your pointer, every key class and scroll step on this page is batched by the browser SDK and sent to the service with the demo organization’s public key.',
  'Only the kind of key is sent (letter, digit, space, enter…), never which key: try typing your name, nobody will know it.',
  `The service recomputes ${FEATURE_COUNT} behavioural features from the raw signals and scores them with the M3 model.`,
  'A batch goes out every 5 seconds, or after 200 events, and once more with sendBeacon when you leave the page.',
  'The verdict is fetched by this server, not by the page: a browser never holds a secret key.',
  'Scroll inside this box with the wheel or a finger: scroll rhythm and deltas are features too.',
  'Humans scroll in uneven bursts; scripts tend to scroll in identical steps at identical intervals.',
  'Keep scrolling — the end of the box is near.',
]

export function demoPage(publicKey: string | null): string {
  if (!publicKey) {
    return layout(
      'Demo — Behavioral Scoring Service',
      `<main class="narrow">
<h1>Live demo</h1>
<p class="notice" role="status">No demo organization exists on this server. Start the service for development
(<code>npm start</code> on the embedded database) to provision it from <code>tenants/dev.json</code>; its id is kept in
<code>DATA_DIR/demo-credentials.json</code>.</p>
</main>`
    )
  }
  return layout(
    'Demo — Behavioral Scoring Service',
    `<main class="narrow">
<h1>Live demo</h1>
<p>Interact with this page like you normally would, then ask for the verdict.</p>
<form id="demo-form" class="card" novalidate>
  <div class="field">
    <label for="demo-name">Your name</label>
    <input id="demo-name" name="name" type="text" autocomplete="off" placeholder="Type anything">
  </div>
  <div class="field">
    <label for="demo-notes">A few words about your day</label>
    <textarea id="demo-notes" name="notes" rows="3"></textarea>
  </div>
</form>
<section class="card">
  <h2 id="scroll-title">Scroll me</h2>
  <div id="scroll-area" class="scroll-area" tabindex="0" role="region" aria-labelledby="scroll-title">
    ${PARAGRAPHS.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n    ')}
  </div>
</section>
<section class="card">
  <button id="check" type="button" class="primary">Check my verdict</button>
  <p class="muted">Session <code id="session-id">…</code></p>
  <div id="result" aria-live="polite"></div>
</section>
</main>`,
    `<meta name="bss-public-key" content="${escapeHtml(publicKey)}">
<script src="/sdk/v1.js" defer></script>
<script src="/assets/demo.js" defer></script>`
  )
}

export function dashboardPage(): string {
  return layout(
    'Dashboard — Behavioral Scoring Service',
    `<div class="notes">
  <div id="messages" class="messages" role="status" aria-live="polite"></div>
  <div id="errors" class="errors" role="alert"></div>
</div>
<main id="app" class="narrow">
  <noscript><p class="notice">The dashboard needs JavaScript.</p></noscript>
</main>`,
    '<script src="/assets/dashboard.js" defer></script>',
    '<span id="who" class="who"></span>\n  <button id="sign-out" type="button" hidden>Sign out</button>'
  )
}
