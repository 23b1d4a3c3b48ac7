#!/usr/bin/env bash
# Copies the screenshots the GUI tests took (build/screenshots/, by tst_signinwindow,
# tst_websiteaccess, tst_approvalcard and tst_task_runs) that docs/workbench.md and docs/runs.md
# show to docs/images/. Run the tests first:
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
# Only the ones the docs show: a test may keep a screenshot for its own record.
copied=0
for file in "${files[@]}"; do
  name="$(basename "$file")"
  if grep -q "images/$name" "$ROOT"/docs/*.md "$ROOT"/README.md 2>/dev/null; then
    cp "$file" "$ROOT/docs/images/"
    copied=$((copied + 1))
  fi
done
echo "screenshots: copied $copied to docs/images/" >&2
