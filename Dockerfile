# syntax=docker/dockerfile:1
# The WorkPay API image: `node dist/main.js` (api, worker or both) on production dependencies only,
# as a non-root user. Build: docker build -t workpay-api .   Run: see compose.yaml and the README.
# Node.js 22.12+ is the oldest line every dependency supports. The native parts (argon2, the dev
# chain's EDR) are linux-x64-gnu builds: on another CPU, build with --platform linux/amd64.
ARG NODE_IMAGE=node:22-bookworm-slim

# Production dependencies only, as the runtime stage gets them.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The `prepare` script npm ci runs: on a production install it does nothing.
COPY scripts/prepare.mjs scripts/prepare.mjs
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Every dependency (TypeScript, ...) to compile src/ into dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The `prepare` script npm ci runs: without src/ yet, it does nothing.
COPY scripts/prepare.mjs scripts/prepare.mjs
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/build.mjs
COPY src src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# /data and /shared: volumes of the dev chain service (its journal, the coins file it writes)
RUN mkdir -p /data /shared && chown node:node /data /shared
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json package.json
COPY deploy/healthcheck.mjs deploy/healthcheck.mjs
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
# Node.js itself is PID 1 (exec form, no shell in between): SIGTERM reaches the service, which
# shuts down in order (docs/operations.md). It starts no child processes, so no init is needed.
ENTRYPOINT ["node", "dist/main.js"]
CMD ["all"]
