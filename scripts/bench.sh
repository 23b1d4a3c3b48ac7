#!/usr/bin/env bash
# The observation benchmark (docs/benchmark.md), in one command: installs what is missing,
# builds veetbot-bench-observe and veetbot-fixture-site (Release, in build-bench), generates the
# heavy page, serves it once on loopback for both sides, runs our WebEngineProvider and
# Playwright (pinned playwright-core + Debian's Chromium) against it, prints one comparison
# table and a README snippet, and writes bench/results/latest.json.
#
# Settings (environment): VEETBOT_BENCH_ITERATIONS (30), VEETBOT_BENCH_COLD_RUNS (3),
# VEETBOT_BENCH_BUILD_DIR (build-bench).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_BENCH_BUILD_DIR:-$ROOT/build-bench}"
ITERATIONS="${VEETBOT_BENCH_ITERATIONS:-30}"
COLD_RUNS="${VEETBOT_BENCH_COLD_RUNS:-3}"
HOST=bench.test
CHROMIUM=/usr/bin/chromium

log() { echo "bench: $*" >&2; }

# --- packages -------------------------------------------------------------------------------
PACKAGES=(
  g++ cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-webengine-dev libqt6webenginecore6-bin
  libssl-dev openssl libpsl-dev publicsuffix fonts-dejavu-core qtkeychain-qt6-dev
  chromium
)
missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
# Node 20 normally comes with its own npm; Debian's packages only when they are absent.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  SUDO=
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

# --- build ----------------------------------------------------------------------------------
log "building (Release) in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVEETBOT_BUILD_BENCH=ON >&2
cmake --build "$BUILD_DIR" -j2 --target veetbot-bench-observe veetbot-fixture-site >&2

# playwright-core exactly as pinned in bench/package-lock.json.
PINNED="$(node -p "require('$ROOT/bench/package-lock.json').packages['node_modules/playwright-core'].version")"
INSTALLED="$(node -p "try { require('$ROOT/bench/node_modules/playwright-core/package.json').version } catch (e) { '' }")"
if [ "$PINNED" != "$INSTALLED" ]; then
  log "installing playwright-core $PINNED"
  (cd "$ROOT/bench" && npm ci --no-audit --no-fund >&2)
fi

# --- page and server ------------------------------------------------------------------------
WORK="$BUILD_DIR/bench-run"
rm -rf "$WORK"
mkdir -p "$WORK/site"
node "$ROOT/bench/heavy-page.mjs" "$WORK/site" >/dev/null

SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
"$BUILD_DIR/bin/veetbot-fixture-site" --cert-dir "$WORK/certs" --root "$WORK/site" \
  --host "$HOST" >"$WORK/server.json" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 100); do
  [ -s "$WORK/server.json" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -s "$WORK/server.json" ] || { log "the fixture site did not start"; exit 1; }
PORT="$(node -p "JSON.parse(require('fs').readFileSync('$WORK/server.json','utf8')).https_port")"
CA="$(node -p "JSON.parse(require('fs').readFileSync('$WORK/server.json','utf8')).ca")"
URL="https://$HOST:$PORT/"
log "serving the heavy page at $URL"

export QT_QPA_PLATFORM=offscreen
OURS=("$BUILD_DIR/bin/veetbot-bench-observe" --url "$URL" --resolve "$HOST=127.0.0.1" --ca "$CA")
THEIRS=(node "$ROOT/bench/playwright-bench.mjs" --url "$URL" --resolve "$HOST=127.0.0.1"
        --chromium "$CHROMIUM")

# --- cold starts: one discarded warm-up each (file cache), then COLD_RUNS fresh processes ---
log "cold starts (1 warm-up + $COLD_RUNS each)"
for run in $(seq 0 "$COLD_RUNS"); do
  "${OURS[@]}" --cold-start-only --out "$WORK/ours-cold-$run.json" 2>>"$WORK/ours.log"
  "${THEIRS[@]}" --cold-start-only --out "$WORK/playwright-cold-$run.json" 2>>"$WORK/playwright.log"
done

# --- in-session runs, one side at a time ----------------------------------------------------
log "ours: $ITERATIONS x observe({}), walks"
"${OURS[@]}" --iterations "$ITERATIONS" --probe "$ROOT/bench/probes/capture-timing.js" \
  --out "$WORK/ours.json" 2>>"$WORK/ours.log"
log "playwright: $ITERATIONS x ariaSnapshot({mode:'ai'})"
"${THEIRS[@]}" --iterations "$ITERATIONS" --out "$WORK/playwright.json" 2>>"$WORK/playwright.log"

mkdir -p "$ROOT/bench/results"
node "$ROOT/bench/report.mjs" --work "$WORK" --cold-runs "$COLD_RUNS" \
  --out "$ROOT/bench/results/latest.json"
