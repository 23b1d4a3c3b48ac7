#!/usr/bin/env bash
# Copies the screenshots the GUI tests took (build/screenshots/, by tst_signinwindow,
# tst_websiteaccess, tst_approvalcard and tst_task_runs) to docs/images/, where
# docs/workbench.md and docs/runs.md show them. Run the tests first:
#   ./test.sh -R 'tst_signinwindow|tst_websiteaccess|tst_approvalcard|tst_task_runs' &&
#     scripts/screenshots.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHOTS="${VEETBOT_BUILD_DIR:-$ROOT/build}/screenshots"
shopt -s nullglob
files=("$SHOTS"/*.png)
if [ ${#files[@]} -eq 0 ]; then
  echo "screenshots: none in $SHOTS; run the GUI tests first" >&2
  exit 1
fi
mkdir -p "$ROOT/docs/images"
cp "${files[@]}" "$ROOT/docs/images/"
echo "screenshots: copied ${#files[@]} to docs/images/" >&2
