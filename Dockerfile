# chainpilot: runs a deployment (paper by default) as a long-lived process.
# Build: docker build -t chainpilot .   Run: docker run --rm chainpilot paper config/paper-sim.yaml
FROM node:20-bookworm-slim AS base
WORKDIR /app
# better-sqlite3 builds from source (.npmrc): the image needs a toolchain at install time.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json ./
COPY src ./src
# `npm install` compiles dist/ (prepare, with the dev tools); then the dev tools go.
RUN npm install --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY config ./config
USER node
ENTRYPOINT ["node", "bin/chainpilot.js"]
CMD ["--help"]
