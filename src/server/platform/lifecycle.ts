/**
 * Process-wide shutdown state. On SIGTERM the service first drains: /ready answers 503 so a load
 * balancer stops sending traffic, responses ask clients to close their connections, and requests
 * are still served; only then does the listener close (src/server/main.ts).
 */
export const lifecycle = { draining: false }
