#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (a separate build directory, core only) and runs
# each for a bounded time over its seed corpus, two at a time. Exits non-zero on any finding.
#   scripts/fuzz.sh            # default: 10 s per target
#   VEETBOT_FUZZ_SECONDS=300 scripts/fuzz.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_PER_TARGET="${VEETBOT_FUZZ_SECONDS:-10}"
TARGETS=(fuzz_envelope fuzz_keydir fuzz_hostprotocol fuzz_mcp fuzz_capture fuzz_service
         fuzz_classifier fuzz_taskscope fuzz_writeguard fuzz_cdp fuzz_recipe)

CXX=clang++-14 CC=clang-14 cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVEETBOT_FUZZ=ON \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$ROOT;CCACHE_NOHASHDIR=1;ccache" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" >&2
cmake --build "$BUILD_DIR" -j2 --target "${TARGETS[@]}" >&2

# Two targets at a time (each fuzzer is single-threaded; the machine has two cores).
run_target() {
  local target="$1" corpus_seed work
  corpus_seed="$ROOT/fuzz/corpus/${target#fuzz_}"
  work="$(mktemp -d)"
  [ -d "$corpus_seed" ] && cp -r "$corpus_seed"/. "$work"/
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s" >&2
  if (cd "$work" && "$BUILD_DIR/bin/$target" -max_total_time="$SECONDS_PER_TARGET" \
        -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" \
        > "$work/log" 2>&1); then
    echo "fuzz: $target: $(grep -E 'stat::number_of_executed_units' "$work/log" | awk '{print $2}') runs, no findings" >&2
    rm -rf "$work"
    return 0
  fi
  echo "fuzz: $target FOUND A PROBLEM" >&2
  tail -40 "$work/log" >&2
  rm -rf "$work"
  return 1
}

failed=0
pids=()
for target in "${TARGETS[@]}"; do
  run_target "$target" &
  pids+=("$!")
  if [ ${#pids[@]} -eq 2 ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
exit $failed
