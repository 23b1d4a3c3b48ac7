#!/usr/bin/env bash
# Shared set-up for ./run.sh and ./test.sh: installs the Debian packages the project needs
# (only those missing), then configures and builds. Safe to run again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VEETBOT_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${VEETBOT_BUILD_TYPE:-RelWithDebInfo}"

PACKAGES=(
  g++ cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-webengine-dev libqt6webenginecore6-bin
  libqt6sql6-sqlite libqt6sql6-psql
  libssl-dev openssl libpsl-dev publicsuffix
  fonts-dejavu-core
  qtkeychain-qt6-dev libsecret-1-0 gnome-keyring dbus dbus-daemon
  postgresql-15 postgresql-common
  clang-14 libclang-rt-14-dev
)

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

echo "setup: configuring ($BUILD_TYPE) in $BUILD_DIR" >&2
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" >&2
echo "setup: building" >&2
cmake --build "$BUILD_DIR" -j2 >&2
