# syntax=docker/dockerfile:1
# Build stage: production dependencies exactly as package-lock.json pins them (--frozen-lockfile:
# Bun reads the npm lockfile and refuses to install if package.json disagrees with it; `npm ci` would
# need the lockfile's entries for every platform's optional packages), install scripts off, then the
# postgres.js fix (scripts/patch-postgres.cjs).
# Bun 1.4.5 is the version package-lock.json pins for development.
FROM oven/bun:1.4.5 AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --production --frozen-lockfile --ignore-scripts
COPY scripts/patch-postgres.cjs scripts/
RUN bun scripts/patch-postgres.cjs
COPY . .

# Web stage: every dependency (the /docs renderer is a devDependency), then the browser SDK, the pages
# and the renderer's pinned bundle to dist/web; only dist/web leaves this stage.
FROM oven/bun:1.4.5 AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --frozen-lockfile --ignore-scripts
COPY . .
RUN bun scripts/build-web.ts

# Runtime stage: only what the server runs (tests/architecture/image.test.ts checks this list against
# the server's imports and starts the server from exactly these paths): no ml/, tests, or browser sources.
FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build --chown=bun:bun /app/node_modules ./node_modules
COPY --from=build --chown=bun:bun /app/package.json ./package.json
COPY --from=build --chown=bun:bun /app/src/server ./src/server
COPY --from=build --chown=bun:bun /app/src/scoring ./src/scoring
COPY --from=build --chown=bun:bun /app/sql ./sql
COPY --from=build --chown=bun:bun /app/tenants ./tenants
COPY --from=web --chown=bun:bun /app/dist/web ./dist/web
USER bun
EXPOSE 3000
# The port the server listens on, whatever PORT is set to at run time (docker run -e PORT=8080).
HEALTHCHECK --interval=10s --timeout=3s CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then(r => process.exit(r.ok ? 0 : 1)).catch(() => process.exit(1))"
# Migrations run at start-up (under an advisory lock), so several replicas may start together.
CMD ["bun", "run", "src/server/main.ts"]
