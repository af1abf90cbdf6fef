# syntax=docker/dockerfile:1
# Build stage: production dependencies, with the postgres.js fix applied (scripts/patch-postgres.cjs).
# The browser SDK is bundled in memory by the service at start (src/server/modules/web), so no build step.
FROM oven/bun:1.4 AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --production --ignore-scripts
COPY scripts/patch-postgres.cjs scripts/
RUN bun scripts/patch-postgres.cjs
COPY . .

# Runtime stage: only what the service needs, as a non-root user.
FROM oven/bun:1.4-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build --chown=bun:bun /app/node_modules ./node_modules
COPY --from=build --chown=bun:bun /app/package.json ./
COPY --from=build --chown=bun:bun /app/src ./src
COPY --from=build --chown=bun:bun /app/sql ./sql
COPY --from=build --chown=bun:bun /app/tenants ./tenants
COPY --from=build --chown=bun:bun /app/public ./public
USER bun
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD bun -e "fetch('http://127.0.0.1:3000/health').then(r => process.exit(r.ok ? 0 : 1)).catch(() => process.exit(1))"
# Migrations run at start-up (under an advisory lock), so several replicas may start together.
CMD ["bun", "run", "src/server/main.ts"]
