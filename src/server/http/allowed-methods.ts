/**
 * Which methods the composed app serves on a path, for 405 Method Not Allowed + Allow (RFC 9110
 * §15.5.6): a path that exists with another method is not "not found". Read from the app's own
 * route table, so no list of paths is kept here.
 */
type Route = { method: string; path: string }

const escapeRe = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')

/** `/v1/session/:session_id` → a pattern matching one segment per parameter; `*` matches the rest. */
function pattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : escapeRe(segment)))
    .join('/')
  return new RegExp(`^${source}$`)
}

export function allowedMethods(routes: () => readonly Route[]) {
  let compiled: { methods: string; re: RegExp }[] | undefined
  let compiledFrom = -1
  return (path: string): string[] => {
    const table = routes()
    // Routes are fixed once the app is composed; recompile only if a test added one since.
    if (!compiled || compiledFrom !== table.length) {
      compiled = table.map((r) => ({ methods: r.method, re: pattern(r.path) }))
      compiledFrom = table.length
    }
    const methods = new Set<string>()
    for (const r of compiled) if (r.methods !== 'ALL' && r.re.test(path)) methods.add(r.methods)
    // Bun answers HEAD for every GET route (the GET without its body).
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].sort()
  }
}
