#!/usr/bin/env bash
# Set up, build and start the workbench on the bundled demo shop, served on loopback
# (test-only settings, announced on stderr) in a data directory of this run: the workbench
# opens on Website Access with the demo shop listed. With no display, print what
# `veetbot observe` sees there instead.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$ROOT/scripts/setup.sh"
BIN="${VEETBOT_BUILD_DIR:-$ROOT/build}/bin"

DEMO_HOST=demo.veetbot.test
WORK="$(mktemp -d)"
SITE_PID=
cleanup() {
  if [ -n "$SITE_PID" ]; then kill "$SITE_PID" 2>/dev/null || true; wait "$SITE_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The demo site: a loopback HTTPS server with a certificate authority made for this run.
mkfifo "$WORK/ready"
"$BIN/veetbot-fixture-site" --cert-dir "$WORK/certs" --root "$ROOT/resources/demo" \
  --host "$DEMO_HOST" > "$WORK/ready" &
SITE_PID=$!
read -r READY < "$WORK/ready"
PORT="$(sed -E 's/.*"https_port":([0-9]+).*/\1/' <<<"$READY")"
ORIGIN="https://$DEMO_HOST:$PORT"
export VEETBOT_TEST_RESOLVE="$DEMO_HOST=127.0.0.1"
export VEETBOT_TEST_CA="$WORK/certs/ca.pem"

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "run: starting the workbench; the demo shop ($ORIGIN) is listed in Website Access" >&2
  # This run's own data, keys and profile service, gone when it ends.
  export VEETBOT_DATA_DIR="$WORK/data" VEETBOT_RUNTIME_DIR="$WORK/run" VEETBOT_KEY_DIR="$WORK/keys"
  "$BIN/veetbot-profile-service" keys init "$VEETBOT_KEY_DIR" > /dev/null
  "$BIN/veetbot" profiles create --origin "$ORIGIN" > /dev/null
  status=0
  "$BIN/veetbot-workbench" || status=$?
  "$BIN/veetbot" service stop > /dev/null 2>&1 || true
  exit "$status"
else
  echo "run: no display; observing the bundled demo shop headlessly" >&2
  "$BIN/veetbot" observe --allow-origin "$ORIGIN" "$ORIGIN/"
fi
