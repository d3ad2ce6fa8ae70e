#!/usr/bin/env bash
# Builds the Dockerfile with Debian's podman and smoke-tests the image, on a machine that has
# neither a Docker engine nor Docker Hub (only the npm registry and Debian's mirrors).
# NOT part of CI: it takes several minutes and installs Debian packages. Run it as root:
#
#   bash scripts/container-smoke.sh [--rebuild-base] [--no-cache] [--no-build] [--skip-postgres] [--keep]
#
# 1. base image: `node:24-bookworm-slim` cannot be pulled, so a stand-in is made once and tagged
#    localhost/node:24-bookworm-slim: debootstrap (minbase bookworm + ca-certificates), the Node 24
#    binary of the repo's `node` devDependency (node_modules/.bin/node), npm 11 from the npm registry.
# 2. `podman build --build-arg NODE_IMAGE=localhost/node:24-bookworm-slim` of this repo.
# 3. Run A, the single-node default: bridge network, -p 18080:8080, PGlite + fs blobs in /data.
#    Run B: --network host against the host's PostgreSQL and Redis, STORAGE_DRIVER=fs.
#    Each: /api/health, /api/ready, the SPA at /, sign-in as the generated first admin with the
#    mailed code (an SMTP sink container shares the app's network namespace), a DICOM upload read
#    back byte-identical, its thumbnail, the HEALTHCHECK, uid 10001, RSS, then `podman stop`
#    (exit code and the shutdown log lines), `podman start` again on the same data, and the backup
#    CLI (one-off container on the stopped PGlite volume; `podman exec` beside the live server on
#    PostgreSQL, with audit-verify and checks that Redis holds the app's counters and subscription).
# Needs: root, Debian's podman/runc/debootstrap (installed if missing), `npm ci` done in the repo;
# for run B a PostgreSQL (user postgres, trust) and a Redis on 127.0.0.1. Exit 0 when all passed.
#
# Work files (rootfs, npm tarball, logs, mails) live in $MEDSHARE_IMAGE_WORK (default
# /tmp/medshare-image), never in the repo. Podman's settings for this sandbox (runc instead of crun,
# which refuses hybrid cgroup v1/v2 hosts; rlimits no higher than the host's hard limits; cgroupfs;
# file events) are in $MEDSHARE_IMAGE_WORK/containers.conf, used through CONTAINERS_CONF, so the
# machine's own /etc/containers is left alone.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEDSHARE_IMAGE_WORK:-/tmp/medshare-image}
BASE_TAG=localhost/node:24-bookworm-slim
IMAGE=${MEDSHARE_IMAGE:-localhost/medshare:smoke}
PORT=${MEDSHARE_SMOKE_PORT:-18080}
PG_DB=${MEDSHARE_SMOKE_DB:-medshare_container_smoke}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
FIXTURE=${MEDSHARE_SMOKE_FIXTURE:-}
REBUILD_BASE=0 BUILD=1 POSTGRES=1 KEEP=0 NO_CACHE=()
for arg in "$@"; do
  case $arg in
    --rebuild-base) REBUILD_BASE=1 ;;
    --no-build) BUILD=0 ;;
    --skip-postgres) POSTGRES=0 ;;
    --keep) KEEP=1 ;;
    --no-cache) NO_CACHE=(--no-cache) ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

mkdir -p "$WORK"
REPORT="$WORK/report.txt"
: >"$REPORT"
: >"$WORK/checks.log"
log() { printf '%s\n' "$*" | tee -a "$REPORT"; }
die() { log "FAILED: $*"; exit 1; }
FAILURES=0
check() { # check NAME COMMAND...: runs the command, records PASS/FAIL, goes on
  local name=$1; shift
  if "$@" >>"$WORK/checks.log" 2>&1; then log "PASS  $name"; else log "FAIL  $name"; FAILURES=$((FAILURES + 1)); fi
}

# --- tools ---------------------------------------------------------------------------------------
need=()
for t in podman:podman runc:runc debootstrap:debootstrap curl:curl openssl:openssl; do
  command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
done
if ((${#need[@]})); then
  log "installing ${need[*]} (Debian packages)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >"$WORK/apt.log"
fi
NODE_BIN=$(readlink -f "$REPO/node_modules/.bin/node" || true)
[[ -x $NODE_BIN ]] || die "no Node 24 in $REPO/node_modules/.bin (run npm ci first)"
[[ $("$NODE_BIN" -p 'process.versions.node.split(".")[0]') == 24 ]] || die "$NODE_BIN is not Node 24"

nofile=$(ulimit -Hn); [[ $nofile == unlimited || $nofile -gt 1048576 ]] && nofile=1048576
cat >"$WORK/containers.conf" <<EOF
[containers]
# The host's hard limits; podman's defaults (1048576 files, more processes than the sandbox
# allows) make the runtime's setrlimit fail with EPERM.
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF="$WORK/containers.conf"
log "podman: $(podman --version), runc $(runc --version | head -1 | awk '{print $3}'), date $(date -u +%F)"

# --- 1. the base image ---------------------------------------------------------------------------
BASE_REV=2 # raise when the recipe below changes: an older base is rebuilt
if ((REBUILD_BASE)) || [[ $(podman image inspect "$BASE_TAG" --format '{{index .Config.Labels "medshare.smoke-base"}}' 2>/dev/null) != "$BASE_REV" ]]; then
  ROOTFS="$WORK/rootfs"
  if ((REBUILD_BASE)) || [[ ! -x $ROOTFS/usr/bin/apt-get ]]; then
    rm -rf "$ROOTFS"
    log "debootstrap bookworm (minbase) from $MIRROR"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
      || die "debootstrap (see $WORK/debootstrap.log)"
  fi
  # What debian:bookworm-slim leaves out: package lists, downloaded .debs, docs, man pages, locales.
  rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/var/cache/apt/archives/*.deb \
    "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/info/* "$ROOTFS"/usr/share/locale/*
  install -m 0755 "$NODE_BIN" "$ROOTFS/usr/local/bin/node"
  # npm, as in the official image: the npm registry's own `npm` package.
  NPM_TGZ=$(ls "$WORK"/npm-11.*.tgz 2>/dev/null | sort -V | tail -1 || true)
  if [[ -z $NPM_TGZ ]]; then
    (cd "$WORK" && PATH="$(dirname "$NODE_BIN"):$PATH" npm pack npm@11 --silent >/dev/null) || die "npm pack npm@11"
    NPM_TGZ=$(ls "$WORK"/npm-11.*.tgz | sort -V | tail -1)
  fi
  rm -rf "$ROOTFS/usr/local/lib/node_modules/npm"
  mkdir -p "$ROOTFS/usr/local/lib/node_modules/npm"
  tar -xzf "$NPM_TGZ" -C "$ROOTFS/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
  ln -sfn ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -sfn ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  # npm's "builtin" config file, empty: the build bind-mounts a CA setting over it in a sandbox
  # behind an intercepting proxy (see below); mounting over an existing file leaves no trace.
  : >"$ROOTFS/usr/local/lib/node_modules/npm/npmrc"
  log "base: Node $("$NODE_BIN" --version), $(basename "$NPM_TGZ" .tgz), rootfs $(du -sh "$ROOTFS" | cut -f1)"
  podman rmi -f "$BASE_TAG" >/dev/null 2>&1 || true
  tar -C "$ROOTFS" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' --change "LABEL medshare.smoke-base=$BASE_REV" - "$BASE_TAG" >/dev/null 2>&1 || die "podman import"
  podman run --rm "$BASE_TAG" sh -c 'node --version && npm --version' | tee -a "$REPORT"
fi

# --- 2. the image --------------------------------------------------------------------------------
if ((BUILD)); then
  # --format docker: the OCI format has no HEALTHCHECK (podman drops it with a warning).
  build_args=("${NO_CACHE[@]}" --format docker --network host --build-arg NODE_IMAGE="$BASE_TAG" -t "$IMAGE")
  # A sandbox whose HTTPS goes through an intercepting proxy names its CA bundle in
  # NODE_EXTRA_CA_CERTS: npm in the build's RUN steps gets it through a global npmrc that is
  # bind-mounted for the build only (nothing of it is committed to a layer).
  # Both are mounted over files the base already has (its CA bundle, npm's empty builtin npmrc),
  # so no mount point is left behind in a layer. (podman build applies no containers.conf `env`
  # to RUN steps, and --env would be committed to the image.)
  if [[ -n ${NODE_EXTRA_CA_CERTS:-} && -f $NODE_EXTRA_CA_CERTS ]]; then
    cp "$NODE_EXTRA_CA_CERTS" "$WORK/build-ca.crt"
    printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' >"$WORK/build-npmrc"
    build_args+=(-v "$WORK/build-ca.crt:/etc/ssl/certs/ca-certificates.crt:ro"
      -v "$WORK/build-npmrc:/usr/local/lib/node_modules/npm/npmrc:ro")
    log "build: npm trusts $NODE_EXTRA_CA_CERTS (NODE_EXTRA_CA_CERTS) through a build-time mount"
  fi
  log "podman build (log: $WORK/build.log)"
  start=$(date +%s)
  (cd "$REPO" && podman build "${build_args[@]}" . >"$WORK/build.log" 2>&1) \
    || { tail -30 "$WORK/build.log"; die "podman build (see $WORK/build.log)"; }
  log "build: $(($(date +%s) - start)) s"
fi
podman image exists "$IMAGE" || die "no image $IMAGE (run without --no-build)"
size=$(podman image inspect "$IMAGE" --format '{{.Size}}')
log "image $IMAGE: $((size / 1000000)) MB ($size bytes; base $(($(podman image inspect "$BASE_TAG" --format '{{.Size}}') / 1000000)) MB)"

# What the image holds: production dependencies only, no tests, nothing left by the build's mounts.
check "image: no devDependencies (vitest, s3rver, typescript, vite), no *.test.ts, no server/test" \
  podman run --rm --entrypoint sh "$IMAGE" -c \
  'cd /app && for d in vitest s3rver typescript vite; do [ ! -e node_modules/$d ] || exit 1; done; [ -z "$(find server contracts -name "*.test.ts")" ] && [ ! -e server/test ]'
check "image: web/dist/index.html present, /data empty and owned by medshare" \
  podman run --rm --entrypoint sh "$IMAGE" -c '[ -f /app/web/dist/index.html ] && [ -z "$(ls -A /data)" ] && [ "$(stat -c %U /data)" = medshare ]'
check "image: npm's builtin npmrc still empty, no /usr/local/etc/npmrc (build mounts left nothing)" \
  podman run --rm --entrypoint sh "$IMAGE" -c '[ ! -s /usr/local/lib/node_modules/npm/npmrc ] && [ ! -e /usr/local/etc/npmrc ]'

# --- 3. run and probe ----------------------------------------------------------------------------
cat >"$WORK/smtp-sink.mjs" <<'EOF'
// A minimal SMTP sink: accepts every message and writes it to /mail/<n>.eml. No STARTTLS offered.
import net from 'node:net';
import { writeFileSync } from 'node:fs';
let n = 0;
net.createServer((s) => {
  let buf = '', data = false;
  s.write('220 sink ESMTP\r\n');
  s.on('data', (chunk) => {
    buf += chunk.toString('latin1');
    for (;;) {
      if (data) {
        const end = buf.indexOf('\r\n.\r\n');
        if (end < 0) return;
        writeFileSync(`/mail/${Date.now()}-${++n}.eml`, buf.slice(0, end));
        buf = buf.slice(end + 5); data = false; s.write('250 queued\r\n');
        continue;
      }
      const i = buf.indexOf('\r\n');
      if (i < 0) return;
      const line = buf.slice(0, i); buf = buf.slice(i + 2);
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') s.write('250-sink\r\n250 8BITMIME\r\n');
      else if (verb === 'DATA') { data = true; s.write('354 go\r\n'); }
      else if (verb === 'QUIT') { s.end('221 bye\r\n'); return; }
      else s.write('250 ok\r\n');
    }
  });
  s.on('error', () => {});
}).listen(2525, '127.0.0.1', () => console.log('smtp sink on 127.0.0.1:2525'));
EOF

cat >"$WORK/probe.mjs" <<'EOF'
// node probe.mjs BASE_URL MAIL_DIR ADMIN_EMAIL ADMIN_PASSWORD FIXTURE: prints one line per check; exit 1 on a failure.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
const [base, mailDir, email, password, fixture] = process.argv.slice(2);
let failed = 0;
const say = (ok, what) => { console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}`); if (!ok) failed++; };
const json = async (path, init = {}) => {
  const r = await fetch(base + path, init);
  return { status: r.status, body: await r.json().catch(() => null) };
};
const post = (path, body, token) =>
  json(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

const health = await json('/api/health');
say(health.status === 200, `GET /api/health -> ${health.status} ${JSON.stringify(health.body)}`);
const ready = await json('/api/ready');
say(ready.status === 200, `GET /api/ready -> ${ready.status} ${JSON.stringify(ready.body?.data ?? ready.body)}`);
const page = await fetch(base + '/');
const html = await page.text();
const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
say(page.status === 200 && /<div id="root">/.test(html) && !!asset, `GET / -> ${page.status} ${page.headers.get('content-type')}, SPA shell with ${asset}`);
if (asset) {
  const a = await fetch(base + asset);
  say(a.status === 200 && /javascript/.test(a.headers.get('content-type') ?? ''), `GET ${asset} -> ${a.status} ${(await a.arrayBuffer()).byteLength} bytes`);
}

const seen = new Set(readdirSync(mailDir));
const login = await post('/api/auth/login', { email, password });
say(login.status === 200 && login.body?.data?.otpRequired === true, `POST /api/auth/login -> ${login.status}`);
let code = null;
for (let i = 0; i < 50 && !code; i++) {
  await new Promise((r) => setTimeout(r, 200));
  for (const f of readdirSync(mailDir).filter((f) => !seen.has(f))) {
    const raw = readFileSync(`${mailDir}/${f}`, 'latin1');
    if (!/sign-in code/i.test(raw)) continue;
    const body = raw.slice(raw.indexOf('\r\n\r\n')).replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    code = body.match(/(?<![\w-])\d{6}(?![\w-])/)?.[0] ?? null;
  }
}
say(!!code, `sign-in code mailed over SMTP${code ? '' : ' (none found in ' + mailDir + ')'}`);
if (!code) process.exit(1);
const confirm = await post('/api/auth/confirm', { email, code });
const token = confirm.body?.data?.token;
say(confirm.status === 200 && !!token, `POST /api/auth/confirm -> ${confirm.status}, role ${confirm.body?.data?.user?.role}`);
if (!token) process.exit(1);
const auth = { authorization: `Bearer ${token}` };
const me = await json('/api/users/profile', { headers: auth });
say(me.status === 200 && me.body?.data?.email === email, `GET /api/users/profile -> ${me.status} ${me.body?.data?.email ?? JSON.stringify(me.body)}`);

const bytes = readFileSync(fixture);
const form = new FormData();
form.append('caption', 'container smoke test');
form.append('file', new Blob([bytes], { type: 'application/dicom' }), fixture.split('/').pop());
const up = await json('/api/upload/image', { method: 'POST', headers: auth, body: form });
const id = up.body?.data?.id;
say(up.status === 201 && !!id, `POST /api/upload/image (${bytes.length} bytes DICOM) -> ${up.status} ${up.body?.data?.type ?? JSON.stringify(up.body)}`);
if (id) {
  const c = await fetch(`${base}/api/images/${id}/content`, { headers: auth });
  const back = Buffer.from(await c.arrayBuffer());
  const sha = (b) => createHash('sha256').update(b).digest('hex');
  say(c.status === 200 && sha(back) === sha(bytes), `GET /api/images/${id}/content -> ${c.status}, ${back.length} bytes, ${sha(back) === sha(bytes) ? 'identical' : 'DIFFERENT'}`);
  let t = null;
  for (let i = 0; i < 30; i++) {
    t = await fetch(`${base}/api/images/${id}/thumbnail`, { headers: auth });
    if (t.status === 200) break;
    await t.arrayBuffer();
    await new Promise((r) => setTimeout(r, 500));
  }
  const thumb = Buffer.from(await t.arrayBuffer());
  say(t.status === 200 && thumb.subarray(8, 12).toString() === 'WEBP', `GET /api/images/${id}/thumbnail -> ${t.status} ${t.headers.get('content-type')}, ${thumb.length} bytes (rendered by sharp in the image)`);
}
process.exit(failed ? 1 : 0);
EOF

if [[ -z $FIXTURE ]]; then
  for f in /work/shared/fixtures/dicom/ct_explicit_le_16bit_signed_small.dcm "$REPO"/server/test/fixtures/dicom/*.dcm; do
    [[ -f $f ]] && { FIXTURE=$f; break; }
  done
fi
[[ -f $FIXTURE ]] || die "no DICOM fixture (set MEDSHARE_SMOKE_FIXTURE)"

elapsed() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
# The sink joins the app's network namespace: remove it first, in its own call.
remove_containers() {
  podman rm -f -v medshare-smoke-smtp >/dev/null 2>&1 || true
  podman rm -f -v medshare-smoke >/dev/null 2>&1 || true
}
cleanup() {
  ((KEEP)) && return
  remove_containers
  podman volume rm -f medshare-smoke-data >/dev/null 2>&1 || true
  ((POSTGRES)) && dropdb -h 127.0.0.1 -U postgres --if-exists "$PG_DB" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# run_case NAME BASE_URL PODMAN_RUN_ARGS...
run_case() {
  local name=$1 url=$2; shift 2
  local mail="$WORK/mail-$name"
  log ""
  log "== $name: podman run $*"
  remove_containers
  rm -rf "$mail"; mkdir -p "$mail"; cp "$WORK/smtp-sink.mjs" "$mail/.sink.mjs"
  local t0; t0=$(date +%s%N)
  MASTER_KEY=$(openssl rand -base64 32) JWT_SECRET=$(openssl rand -base64 48)
  podman run -d --name medshare-smoke -e MASTER_KEY="$MASTER_KEY" -e JWT_SECRET="$JWT_SECRET" \
    -e MAIL_TRANSPORT=smtp -e SMTP_URL=smtp://127.0.0.1:2525 -e ADMIN_EMAIL=admin@medshare.local \
    -e PUBLIC_URL="$url" -e PORT=8080 "$@" "$IMAGE" >/dev/null || { log "FAIL  podman run"; FAILURES=$((FAILURES + 1)); return; }
  # The SMTP sink shares the app's network namespace: the app reaches it on 127.0.0.1:2525.
  podman run -d --name medshare-smoke-smtp --network container:medshare-smoke -v "$mail:/mail" \
    "$BASE_TAG" node /mail/.sink.mjs >/dev/null
  local up=0
  for _ in $(seq 1 600); do
    curl -fsS -o /dev/null "$url/api/ready" 2>/dev/null && { up=1; break; }
    [[ $(podman inspect medshare-smoke --format '{{.State.Running}}') == true ]] || break
    sleep 0.1
  done
  if ((!up)); then
    log "FAIL  not ready; logs:"; podman logs medshare-smoke 2>&1 | tail -40 | tee -a "$REPORT"
    FAILURES=$((FAILURES + 1)); return
  fi
  log "ready after $(elapsed "$t0") s (podman run until /api/ready answered 200), RSS $(podman exec medshare-smoke awk '/^VmRSS:/ {print $2, $3}' /proc/1/status)"
  local pw; pw=$(podman logs medshare-smoke 2>&1 | sed -n 's/^  password: //p' | head -1)
  [[ -n $pw ]] && log "PASS  first admin's generated password printed once in the log" || log "FAIL  no generated admin password in the log"
  (cd "$WORK" && "$NODE_BIN" probe.mjs "$url" "$mail" admin@medshare.local "$pw" "$FIXTURE") 2>&1 | tee -a "$REPORT" \
    || FAILURES=$((FAILURES + 1))
  check "HEALTHCHECK command (podman healthcheck run)" podman healthcheck run medshare-smoke
  log "pid 1: $(podman exec medshare-smoke sh -c 'tr "\0" " " </proc/1/cmdline; grep -E "^Uid:" /proc/1/status' | tr -s '\t\n' '  ')"
  check "pid 1 runs as uid 10001" sh -c "podman exec medshare-smoke awk '/^Uid:/ {exit \$2 != 10001}' /proc/1/status"
  check "/data owned by 10001, mode 0700" sh -c "[ \"\$(podman exec medshare-smoke stat -c '%u %a' /data)\" = '10001 700' ]"
  log "RSS after the probes: $(podman exec medshare-smoke awk '/^VmRSS:/ {print $2, $3}' /proc/1/status)"
  [[ -n ${AFTER_PROBES:-} ]] && $AFTER_PROBES
  local s0; s0=$(date +%s%N)
  podman stop -t 20 medshare-smoke >/dev/null
  local code; code=$(podman inspect medshare-smoke --format '{{.State.ExitCode}}')
  log "podman stop: $(elapsed "$s0") s, exit code $code"
  [[ $code == 0 ]] && log "PASS  graceful stop (exit 0)" || { log "FAIL  stop exit code $code"; FAILURES=$((FAILURES + 1)); }
  podman logs medshare-smoke 2>&1 | grep -iE 'shutting down|SIGTERM|closed|error' | tail -5 | cut -c1-240 | sed 's/^/  log: /' | tee -a "$REPORT" || true
  # The same container again: its database and keys in /data survive a graceful stop.
  podman start medshare-smoke >/dev/null
  local again=0
  for _ in $(seq 1 600); do
    curl -fsS -o /dev/null "$url/api/ready" 2>/dev/null && { again=1; break; }
    [[ $(podman inspect medshare-smoke --format '{{.State.Running}}') == true ]] || break
    sleep 0.1
  done
  check "restart of the stopped container: ready again, no second first-admin" \
    sh -c "[ $again = 1 ] && [ \$(podman logs medshare-smoke 2>&1 | grep -c 'First administrator created') = 1 ]"
  podman stop -t 20 medshare-smoke >/dev/null
  [[ -n ${AFTER_STOP:-} ]] && $AFTER_STOP
  cp /dev/null "$WORK/logs-$name.txt"; podman logs medshare-smoke >"$WORK/logs-$name.txt" 2>&1 || true
}

# A named volume, as in the Dockerfile's header: it starts empty and takes /data's owner (10001).
podman volume rm -f medshare-smoke-data >/dev/null 2>&1 || true
pglite_backup() { # PGlite is one process's database: the backup runs in a one-off container once the server is stopped
  check "CLI in a one-off container on the stopped PGlite volume: backup.ts --out /data/smoke-backup" \
    podman run --rm -v medshare-smoke-data:/data -e MASTER_KEY="$MASTER_KEY" -e JWT_SECRET="$JWT_SECRET" \
    -e MAIL_TRANSPORT=smtp -e SMTP_URL=smtp://127.0.0.1:2525 "$IMAGE" node server/src/cli/backup.ts --out /data/smoke-backup
}
AFTER_STOP=pglite_backup run_case pglite "http://127.0.0.1:$PORT" -p "127.0.0.1:$PORT:8080" -v medshare-smoke-data:/data

if ((POSTGRES)); then
  if pg_isready -q -h 127.0.0.1 -p 5432 && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
    dropdb -h 127.0.0.1 -U postgres --if-exists "$PG_DB"
    createdb -h 127.0.0.1 -U postgres "$PG_DB"
    redis_checks() { # the app's rate-limit counters and its event channel are in the host's Redis
      local channel; channel=$(psql -h 127.0.0.1 -U postgres -d "$PG_DB" -Atc 'select name from realtime_channel')
      log "Redis: prefix $channel, $(redis-cli --scan --pattern "$channel:*" | wc -l) keys under it, $(redis-cli pubsub numsub "$channel:events" | tail -1) subscriber(s) on $channel:events"
      check "Redis holds the sign-in rate-limit counters" sh -c "redis-cli --scan --pattern '$channel:rate-limit:*' | grep -q login"
      check "the app subscribes to its Redis channel" sh -c "[ \$(redis-cli pubsub numsub '$channel:events' | tail -1) -ge 1 ]"
      # The operator CLIs run inside the image (node directly: `npm run` would write its cache
      # and logs under HOME=/data).
      check "CLI in the image: node server/src/cli/audit-verify.ts" podman exec medshare-smoke node server/src/cli/audit-verify.ts
      check "CLI in the image: node server/src/cli/backup.ts --out /data/smoke-backup (beside the live server)" \
        podman exec medshare-smoke node server/src/cli/backup.ts --out /data/smoke-backup
    }
    AFTER_PROBES=redis_checks run_case postgres "http://127.0.0.1:$PORT" --network host -e PORT="$PORT" \
      -e DATABASE_URL="postgres://postgres@127.0.0.1:5432/$PG_DB" -e REDIS_URL=redis://127.0.0.1:6379 -e STORAGE_DRIVER=fs
  else
    log "SKIP  PostgreSQL/Redis run: no PostgreSQL on 127.0.0.1:5432 or no Redis on 127.0.0.1:6379"
  fi
fi

log ""
log "$((FAILURES)) failure(s); report: $REPORT"
exit $((FAILURES > 0))
