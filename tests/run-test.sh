#!/usr/bin/env bash
# Runs one test program (every CTest entry goes through here) and fails it on any Qt warning
# or critical message that Qt Test printed and tests/qt-warnings-allowed.txt does not list.
# A test that expects a warning says so with QTest::ignoreMessage; the allowlist is for
# Chromium's own noise only, each line an extended regular expression with a reason above it.
set -uo pipefail
ALLOWED="$(dirname "${BASH_SOURCE[0]}")/qt-warnings-allowed.txt"
OUTPUT="$(mktemp)"
trap 'rm -f "$OUTPUT"' EXIT

"$@" 2>&1 | tee "$OUTPUT"
status=${PIPESTATUS[0]}

warnings="$(grep -E '^(QWARN|QCRITICAL|QFATAL) *: ' "$OUTPUT" || true)"
patterns="$(grep -v -e '^#' -e '^[[:space:]]*$' "$ALLOWED" || true)"
# An empty pattern would match every line: with no allowlist entry, every warning counts.
if [ -n "$patterns" ]; then
  unexpected="$(printf '%s\n' "$warnings" | grep -v -E -e "$patterns" || true)"
else
  unexpected="$warnings"
fi
if [ -n "$unexpected" ]; then
  echo "run-test: Qt warnings outside tests/qt-warnings-allowed.txt:"
  printf '%s\n' "$unexpected"
  [ "$status" -eq 0 ] && status=1
fi
exit "$status"
