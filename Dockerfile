# chainpilot as a service: the daemon runs every deployment file in /config (read-only) and keeps
# its stores, decision logs and generated API token in /data (a volume owned by the `node` user).
#
#   docker build -t chainpilot .
#   docker run -d --name chainpilot -e CHAINPILOT_API_TOKEN=$(openssl rand -hex 24) \
#     -p 127.0.0.1:8790:8790 -v "$PWD/config:/config:ro" -v chainpilot-data:/data chainpilot
#
# The control server listens on 0.0.0.0 inside the container so that a published port reaches it;
# the daemon refuses that without CHAINPILOT_API_TOKEN. See docs/deploy.md.

# --- build: compile TypeScript and build native addons, then drop dev dependencies ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source (.prebuild-installrc): the build stage needs a toolchain.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc .prebuild-installrc tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# `prepare` compiles src/ into dist/ during the install.
RUN npm install --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# --- run: no toolchain, an init process, an unprivileged user ---
FROM node:20-bookworm-slim
# tini is PID 1: it forwards SIGTERM/SIGINT/SIGHUP to Node and reaps zombies.
RUN apt-get update && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY assets ./assets
COPY config/daemon /config
RUN mkdir -p /data && chown node:node /data
USER node
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8790
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8790/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "/app/bin/chainpilot.js"]
CMD ["daemon", "/config", "--listen", "0.0.0.0:8790", "--data-dir", "/data"]
