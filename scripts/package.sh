#!/usr/bin/env bash
# Builds the Debian package (installers/, docs/install.md) into build/packages/:
# veetbot_<version>_<arch>.deb. Runs the set-up first (packages, configure, build), then
# cpack in the build directory. Install it with: apt-get install ./build/packages/veetbot_*.deb
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
mkdir -p "$BUILD_DIR/packages"
(cd "$BUILD_DIR" && cpack --config CPackConfig.cmake -B "$BUILD_DIR/packages")
rm -rf "$BUILD_DIR/packages/_CPack_Packages"
ls "$BUILD_DIR"/packages/veetbot_*.deb
