#!/usr/bin/env bash
# The observation benchmark (docs/benchmark.md), in one command: installs what is missing,
# builds veetbot-bench-observe and veetbot-fixture-site (Release, in build-bench), generates the
# heavy page, serves it once on loopback for every side, runs our provider on each engine
# (Debian's Chromium over the DevTools pipe, and Qt WebEngine) and Playwright (pinned
# playwright-core + Debian's Chromium) against it in interleaved rounds (chromium, qtwebengine,
# playwright, chromium, ...), each under bench/tree-rss.mjs (peak RSS of the whole process
# tree, load average), prints one comparison table, and writes bench/results/latest.json
# (engines.chromium.*, engines.qtwebengine.*, playwright.*). The
# README snippet is printed only when the 1-minute load average stayed at or below the number
# of CPUs for the whole run.
#
# Settings (environment): VEETBOT_BENCH_ITERATIONS (15 per side and round),
# VEETBOT_BENCH_ROUNDS (2), VEETBOT_BENCH_COLD_RUNS (3), VEETBOT_BENCH_BUILD_DIR (build-bench;
# configured as Release when it has no CMake cache yet, otherwise built as configured).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_BENCH_BUILD_DIR:-$ROOT/build-bench}"
ITERATIONS="${VEETBOT_BENCH_ITERATIONS:-15}"
ROUNDS="${VEETBOT_BENCH_ROUNDS:-2}"
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
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
  # An existing build directory keeps its configuration (and its compiler cache hits); the
  # build type is recorded with the results.
  cmake -S "$ROOT" -B "$BUILD_DIR" -DVEETBOT_BUILD_BENCH=ON >&2
else
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVEETBOT_BUILD_BENCH=ON >&2
fi
BUILD_TYPE="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")"
log "building ($BUILD_TYPE) in $BUILD_DIR"
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
ENGINES=(chromium qtwebengine)
OURS=("$BUILD_DIR/bin/veetbot-bench-observe" --url "$URL" --resolve "$HOST=127.0.0.1" --ca "$CA")
THEIRS=(node "$ROOT/bench/playwright-bench.mjs" --url "$URL" --resolve "$HOST=127.0.0.1"
        --chromium "$CHROMIUM")

# The machine's own load, before anything of the benchmark runs, is what decides whether this
# is a quiet machine: the runs themselves keep both cores busy (each browser renders on
# several threads), so the load during them says how hard the benchmark works, not what else
# ran. Waits up to three minutes for the load of a build to pass; both are recorded.
CPUS="$(nproc)"
for _ in $(seq 1 36); do
  awk -v cpus="$CPUS" '{ exit !($1 <= cpus) }' /proc/loadavg && break
  sleep 5
done
AMBIENT="$(cut -d' ' -f1 /proc/loadavg)"
log "1-minute load average before the runs: $AMBIENT ($CPUS CPUs)"
printf '{"load_average_1m_before_runs": %s}\n' "$AMBIENT" > "$WORK/ambient.json"

# Every run goes through the sampler: peak RSS of its process tree and the load average while
# it ran (recorded beside the load before the runs).
SAMPLE=(node "$ROOT/bench/tree-rss.mjs")

# --- cold starts: one discarded warm-up each (file cache), then COLD_RUNS fresh processes ---
log "cold starts (1 warm-up + $COLD_RUNS each)"
for run in $(seq 0 "$COLD_RUNS"); do
  for engine in "${ENGINES[@]}"; do
    "${SAMPLE[@]}" --out "$WORK/$engine-cold-$run-tree.json" -- \
      "${OURS[@]}" --engine "$engine" --cold-start-only --out "$WORK/$engine-cold-$run.json" \
      2>>"$WORK/$engine.log"
  done
  "${SAMPLE[@]}" --out "$WORK/playwright-cold-$run-tree.json" -- \
    "${THEIRS[@]}" --cold-start-only --out "$WORK/playwright-cold-$run.json" \
    2>>"$WORK/playwright.log"
done

# --- in-session runs, interleaved: each engine of ours, then theirs, per round ---------------
# One side at a time (the other side's browser is closed), alternating, so that a change in
# the machine's load during the run affects both sides alike.
load() { cut -d' ' -f1-3 /proc/loadavg; }
for round in $(seq 1 "$ROUNDS"); do
  for engine in "${ENGINES[@]}"; do
    log "round $round/$ROUNDS, $engine: $ITERATIONS x observe({}), walks (load $(load))"
    "${SAMPLE[@]}" --out "$WORK/$engine-$round-tree.json" -- \
      "${OURS[@]}" --engine "$engine" --iterations "$ITERATIONS" \
      --probe "$ROOT/bench/probes/capture-timing.js" \
      --out "$WORK/$engine-$round.json" 2>>"$WORK/$engine.log"
  done
  log "round $round/$ROUNDS, playwright: $ITERATIONS x ariaSnapshot({mode:'ai'}) (load $(load))"
  "${SAMPLE[@]}" --out "$WORK/playwright-$round-tree.json" -- \
    "${THEIRS[@]}" --iterations "$ITERATIONS" --out "$WORK/playwright-$round.json" \
    2>>"$WORK/playwright.log"
done

mkdir -p "$ROOT/bench/results"
node "$ROOT/bench/report.mjs" --work "$WORK" --cold-runs "$COLD_RUNS" --rounds "$ROUNDS" \
  --engines "$(IFS=,; echo "${ENGINES[*]}")" \
  --build-type "$BUILD_TYPE" --out "$ROOT/bench/results/latest.json"
