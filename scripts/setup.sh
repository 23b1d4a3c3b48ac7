#!/usr/bin/env bash
# Shared set-up for ./run.sh and ./test.sh: installs the Debian packages the project needs
# (only those missing), then configures and builds. Safe to run again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${VEETBOT_BUILD_TYPE:-RelWithDebInfo}"

PACKAGES=(
  g++ cmake ninja-build pkg-config ccache
  qt6-base-dev qt6-base-dev-tools qt6-webengine-dev libqt6webenginecore6-bin
  libqt6sql6-sqlite libqt6sql6-psql
  libssl-dev openssl libpsl-dev publicsuffix libcpp-httplib-dev libicu-dev libyaml-cpp-dev
  fonts-dejavu-core curl
  qtkeychain-qt6-dev libsecret-1-0 gnome-keyring dbus dbus-daemon
  postgresql-15 postgresql-common
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
  dpkg-dev lintian desktop-file-utils appstream man-db bsdextrautils systemd
  # The translation catalogs scripts/gen-vocabulary.py reads (tst_vocabulary_drift).
  python3 libgtk-3-common libkf5configwidgets-data libkf5xmlgui-data gnome-shell-common
  # The Chromium placement's browser (chromium/, docs/decisions/0014): Debian's
  # security-supported Chromium, driven over the DevTools pipe.
  chromium
  # The workbench's desktop notifications and tray are tested against a real notification
  # server (dunst) and a real system tray (trayer) on an X server of their own
  # (docs/testing.md).
  xvfb dunst trayer
)
# The MCP SDK client test (tests/mcp) runs on node and npm: Debian's, unless a node that
# brings its own npm is already installed.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
  else
    SUDO=
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

# The pinned MCP SDK client for tst_mcp_sdk_client (package-lock.json; exact versions).
if [ ! -d "$ROOT/tests/mcp/node_modules" ]; then
  echo "setup: installing the MCP SDK test client (npm ci in tests/mcp)" >&2
  (cd "$ROOT/tests/mcp" && npm ci --no-audit --no-fund) >&2
fi

# A second build of the same sources (another clone, another build directory) comes from the
# compiler cache: paths are hashed relative to the source root.
echo "setup: configuring ($BUILD_TYPE) in $BUILD_DIR" >&2
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$ROOT;CCACHE_NOHASHDIR=1;ccache" >&2
echo "setup: building" >&2
cmake --build "$BUILD_DIR" -j2 >&2
