#!/usr/bin/env bash
# Holds tests/run-test.sh to its word: an unlisted Qt warning fails a passing program, a listed
# one does not, and a failing program's own status comes through.
set -uo pipefail
RUN="$(dirname "${BASH_SOURCE[0]}")/run-test.sh"
failures=0
expect() {
  local want=$1 what=$2
  shift 2
  "$RUN" "$@" >/dev/null 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "run-test-check: $what: exit $got, expected $want"
    failures=$((failures + 1))
  fi
}
expect 1 "an unlisted warning" sh -c 'echo "QWARN  : T::f() an unexpected warning"'
expect 1 "an unlisted critical" sh -c 'echo "QCRITICAL: T::f() broken"'
expect 0 "a listed warning" \
  sh -c 'echo "QWARN  : T::f(a tag) This plugin does not support propagateSizeHints()"'
expect 0 "no warning" sh -c 'echo "PASS   : T::f()"'
expect 4 "the program's own failure" sh -c 'exit 4'
echo "$((5 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
