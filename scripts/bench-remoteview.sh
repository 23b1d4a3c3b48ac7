#!/usr/bin/env bash
# The remote sign-in view's latency benchmark (docs/benchmark.md#the-remote-sign-in-view): a
# typed key to the frame that shows it, through the profile service's capability routes and its
# isolated browser host, against the same Chromium driven in process, in one run on loopback.
# Builds veetbot-bench-remoteview in the test build (build/, as ./test.sh configures it; run
# ./test.sh or scripts/setup.sh once first), prints the table, and writes
# bench/results/remoteview-latest.json. The figures are printed for the README only when the
# 1-minute load average, before and after, stayed at or below the number of CPUs.
# Settings (environment): VEETBOT_BENCH_ITERATIONS (60 keys per side), VEETBOT_BUILD_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  echo "bench-remoteview: no build in $BUILD_DIR; run ./test.sh (or scripts/setup.sh) first" >&2
  exit 1
fi
cmake --build "$BUILD_DIR" -j2 --target veetbot-bench-remoteview >&2
cpus="$(nproc)"
before="$(cut -d' ' -f1 /proc/loadavg)"
out="$(QT_QPA_PLATFORM=offscreen "$BUILD_DIR/bin/veetbot-bench-remoteview" 2>/dev/null)"
after="$(cut -d' ' -f1 /proc/loadavg)"
echo "$out"
if awk -v a="$before" -v b="$after" -v c="$cpus" 'BEGIN { exit !(a <= c && b <= c) }'; then
  echo "bench-remoteview: load average $before before, $after after, on $cpus CPUs: fit for the README" >&2
else
  echo "bench-remoteview: load average $before before, $after after, on $cpus CPUs: too busy for the README" >&2
fi
