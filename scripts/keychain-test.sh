#!/bin/sh
# Runs a QtKeychain test binary against a private secret service: a fresh HOME and runtime
# directory, a private D-Bus session bus (dbus-run-session) and a gnome-keyring unlocked with
# a throwaway password. Nothing of the caller's own session, bus or keyring is reachable.
# Usage: scripts/keychain-test.sh TEST_BINARY [TEST_ARGS...]
# Needs: dbus-daemon (dbus-run-session), gnome-keyring, libsecret-1-0.
set -eu

if [ "$#" -lt 1 ]; then
  echo "usage: $0 TEST_BINARY [TEST_ARGS...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon od mktemp; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "keychain-test: $tool is missing (install dbus-daemon and gnome-keyring)" >&2
    exit 1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/veetbot-keychain.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -m 700 "$work/home" "$work/runtime"
password="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"

# env -i: only what the test needs crosses over (no DBUS_SESSION_BUS_ADDRESS, DISPLAY, ...).
status=0
env -i \
  PATH="${PATH:-/usr/bin:/bin}" \
  HOME="$work/home" \
  XDG_RUNTIME_DIR="$work/runtime" \
  TMPDIR="${TMPDIR:-/tmp}" \
  LC_ALL=C.UTF-8 \
  QT_QPA_PLATFORM=offscreen \
  ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} \
  ${UBSAN_OPTIONS:+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
  VEETBOT_KEYCHAIN_TEST_HOME="$work/home" \
  VEETBOT_KEYRING_PASSWORD="$password" \
  dbus-run-session -- sh -c '
    printf %s "$VEETBOT_KEYRING_PASSWORD" \
      | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
    unset VEETBOT_KEYRING_PASSWORD
    exec "$@"' keychain-test "$@" || status=$?
exit "$status"
