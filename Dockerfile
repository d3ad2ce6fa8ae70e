# syntax=docker/dockerfile:1
# MedShare: one image, the API and the built web app on one port (8080).
#   docker build -t medshare .
#   docker run -p 8080:8080 -v medshare-data:/data -e MASTER_KEY=… -e JWT_SECRET=… \
#     -e MAIL_TRANSPORT=smtp -e SMTP_URL=smtp://… medshare
# (NODE_ENV=production refuses to start without those four.) With podman, build with
# `podman build --format docker …`: the default OCI format has no HEALTHCHECK and drops it.
# Multi-instance deployments (PostgreSQL, Redis, S3, nginx): compose.yaml and docs/operations.md.
#
# Verified 2026-11-23 with podman 4.3.1 (buildah 1.28.2, runc 1.1.5, Debian 12), not with Docker
# Engine: Docker Hub is out of reach there, so the base was a stand-in for node:24-bookworm-slim
# (debootstrap bookworm minbase + ca-certificates, the Node 24.21.0 binary of the npm `node`
# package, npm 11.21.2) passed as --build-arg NODE_IMAGE. Build ~2-2.5 min on 2 vCPU, image 397 MB
# (225 MB of it the stand-in base). The container served /api/health, /api/ready and the SPA,
# signed the generated first admin in with the code mailed over SMTP, stored and returned a DICOM
# byte-identical with its thumbnail, ran as uid 10001, passed its HEALTHCHECK and exited 0 on
# SIGTERM, with PGlite in a /data volume and with PostgreSQL + Redis. scripts/container-smoke.sh
# repeats all of it. Not verified: Docker Engine/BuildKit itself and the real node:24-bookworm-slim.

ARG NODE_IMAGE=node:24-bookworm-slim

# --- web: the React app, built with Vite ------------------------------------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /src
# Every workspace's manifest: npm ci checks the lock file against all of them.
COPY package.json package-lock.json ./
COPY contracts/package.json contracts/
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
# Install scripts are not needed: native parts (esbuild, rollup, sharp) come as prebuilt
# optional packages; skipping them also skips the root `node` devDependency's binary download.
RUN npm ci -w web --include-workspace-root=false --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json ./
COPY contracts/ contracts/
COPY web/ web/
RUN npm run build -w web

# --- deps: production dependencies of the server only -----------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY contracts/package.json contracts/
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
RUN npm ci --omit=dev -w server --include-workspace-root=false --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
# Node 24 runs the TypeScript sources directly (type stripping): no compile step, no dist/.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY contracts/package.json contracts/
COPY contracts/src contracts/src
COPY server/package.json server/
COPY server/src server/src
COPY --from=web /src/web/dist web/dist
# A non-root user that owns only DATA_DIR (PGlite, fs blobs, generated keys when not in the env).
RUN groupadd --system --gid 10001 medshare \
 && useradd --system --uid 10001 --gid medshare --home-dir /data --shell /usr/sbin/nologin medshare \
 && mkdir -p /data && chown medshare:medshare /data && chmod 0700 /data
USER medshare
VOLUME ["/data"]
EXPOSE 8080
# /api/health says the process answers; /api/ready (database and storage) is for load balancers.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM (docker stop) closes the server gracefully: open requests finish, streams end.
STOPSIGNAL SIGTERM
# V8 flags and the allocator setting: server/src/node-flags.ts (a test keeps these copies in step).
ENV GLIBC_TUNABLES=glibc.malloc.arena_max=2
CMD ["node", "--max-semi-space-size=4", "--wasm-num-compilation-tasks=1", "--heap-growing-percent=50", "server/src/main.ts"]
