#!/usr/bin/env bash
# Set up, build, and run the whole suite (real Chromium through Qt WebEngine, offscreen).
# Extra arguments go to ctest, e.g. ./test.sh -R tst_origin or ./test.sh -L browser.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$ROOT/scripts/setup.sh"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
export QT_QPA_PLATFORM=offscreen
cd "$BUILD_DIR"
ctest --output-on-failure --no-tests=error "$@"
