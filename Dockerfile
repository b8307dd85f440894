# chainpilot: runs a deployment (paper by default) as a long-lived process.
# Build: docker build -t chainpilot .   Run: docker run --rm chainpilot paper config/paper-sim.yaml
FROM node:20-bookworm-slim AS base
WORKDIR /app
# better-sqlite3 builds from source (.npmrc): the image needs a toolchain at install time.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm install --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY config ./config
COPY tsconfig.json ./
USER node
ENTRYPOINT ["node", "bin/chainpilot.js"]
CMD ["--help"]
