#!/usr/bin/env bash
# Renders the workbench's PNG icons from its SVG, once, for the repository: the build and the
# package use the committed PNGs, so neither needs a renderer. Run again after changing the
# SVG (needs rsvg-convert, Debian's librsvg2-bin).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for size in 16 22 24 32 48 64 128 256; do
  mkdir -p "$HERE/icons/$size"
  rsvg-convert --width "$size" --height "$size" "$HERE/icons/org.veetbot.Workbench.svg" \
    --output "$HERE/icons/$size/org.veetbot.Workbench.png"
done
