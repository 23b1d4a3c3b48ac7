#!/usr/bin/env bash
# Set up, build, and run the whole suite (real Chromium through Qt WebEngine, offscreen;
# SQLite and a throwaway PostgreSQL server; the desktop keyring under its own D-Bus session;
# bounded fuzzing of every untrusted-bytes parser; the format check and clang-tidy on the
# changed files, scripts/lint.sh).
# Extra arguments go to ctest, e.g. ./test.sh -R tst_origin or ./test.sh -L browser; with
# arguments the lint and fuzzing steps are left out. With none, the suite leaves out the `full` label (the
# full property-sample counts and task repetitions): ./test.sh -L full runs those; and the
# `install` label (the Debian package installed with apt-get and purged): ./test.sh -L install.
# Tests run three at a time (ctest -j3 on two cores: most of a browser test's time is spent
# waiting for its browser or a timer), but a heavy Chromium test takes two of the three slots
# of tests/resources.json, so beside it runs one other test at most, and no two heavy tests
# overlap (docs/testing.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$ROOT/scripts/setup.sh"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
export QT_QPA_PLATFORM=offscreen
if [ $# -eq 0 ]; then
  "$ROOT/scripts/lint.sh"
  "$ROOT/scripts/fuzz.sh"
  set -- -LE '^(full|install)$'
fi
# The suite runs against a throwaway PostgreSQL server that this script starts and stops.
"$ROOT/scripts/with-postgres.sh" ctest --test-dir "$BUILD_DIR" --output-on-failure \
  --no-tests=error -j3 --resource-spec-file "$ROOT/tests/resources.json" "$@"
