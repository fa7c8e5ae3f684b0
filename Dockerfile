# One image for every mediagate process; docker-compose.yml picks the command per service.
# Build: docker build -t mediagate .
FROM node:24-bookworm-slim AS base
ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH CI=1
RUN npm install -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /app

FROM base AS build
# Manifests first, so the dependency layer is cached across source changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc turbo.json tsconfig.base.json jest.preset.js biome.json ./
COPY packages/shared/package.json packages/shared/
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY apps/upstream-sim/package.json apps/upstream-sim/
COPY apps/console/package.json apps/console/
COPY apps/payment-sim/package.json apps/payment-sim/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm run build \
  && rm -rf node_modules apps/*/node_modules packages/*/node_modules e2e bench \
  && pnpm install --frozen-lockfile --prod --filter '!@mediagate/e2e' --filter '!@mediagate/bench' --filter '!@mediagate/console'

FROM node:24-bookworm-slim AS runtime
# NODE_OPTIONS: the V8 flags every process runs with (packages/shared/src/config/node-flags.ts)
ENV NODE_ENV=production NODE_OPTIONS="--max-semi-space-size=16"
# ffmpeg makes the first frame (thumbnail) of every kept video; /media is MEDIA_DIR in compose
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /media && chown node:node /media
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 8080
# Default: the API. Workers: node apps/worker/dist/main.js --role=<video|callbacks|reconciler>
CMD ["node", "apps/api/dist/server.js"]
