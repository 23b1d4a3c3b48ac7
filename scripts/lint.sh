#!/usr/bin/env bash
# The code checks of ./test.sh:
#   1. every tracked C++ file is formatted as .clang-format says (clang-format-14 --dry-run),
#      and no test skips (QSKIP and the like: a test that cannot run fails);
#   2. clang-tidy-14 (.clang-tidy) on the C++ sources changed by the last commit and in the
#      working tree, or since VEETBOT_LINT_BASE (e.g. VEETBOT_LINT_BASE=origin/main).
# Needs build/compile_commands.json (scripts/setup.sh makes it). Exits non-zero on a finding.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
cd "$ROOT"

mapfile -t sources < <(git ls-files '*.cpp' '*.h')
# In batches, two at a time; every finding names its file ("<file>:<line>:<col>: error: ...").
mapfile -t unformatted < <(printf '%s\0' "${sources[@]}" |
  xargs -0 -n32 -P2 clang-format-14 --dry-run -Werror 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "lint: not formatted as .clang-format says (run clang-format-14 -i on them):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "lint: ${#sources[@]} C++ files formatted" >&2

# A test that cannot run fails; none skips.
if skips="$(git grep -nE 'QSKIP\(|GTEST_SKIP|DISABLED_' -- tests)"; then
  echo "lint: a test skips instead of failing:" >&2
  printf '  %s\n' "$skips" >&2
  exit 1
fi

base="${VEETBOT_LINT_BASE:-HEAD~1}"
if ! git rev-parse --verify --quiet "$base" >/dev/null; then
  base="$(git hash-object -t tree /dev/null)" # a first commit: every file is new
fi
mapfile -t changed < <({ git diff --name-only --diff-filter=d "$base" -- '*.cpp'; \
                         git ls-files --others --exclude-standard -- '*.cpp'; } | sort -u)
# Only what the build compiles (fuzz targets have their own clang build).
tidy=()
for file in "${changed[@]}"; do
  grep -q "\"file\": \"$ROOT/$file\"" "$BUILD_DIR/compile_commands.json" && tidy+=("$file")
done
if [ ${#tidy[@]} -eq 0 ]; then
  echo "lint: no changed C++ source for clang-tidy" >&2
  exit 0
fi
echo "lint: clang-tidy on ${#tidy[@]} changed file(s) since $base" >&2
# Two at a time; each file's findings come out whole.
printf '%s\0' "${tidy[@]}" |
  xargs -0 -n1 -P2 sh -c 'out="$(clang-tidy-14 -p "$0" --quiet "$1" 2>&1)" && exit 0;
                          printf "%s\n" "$out" | grep -v "warnings\? generated\.$" >&2; exit 1' \
    "$BUILD_DIR"
