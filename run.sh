#!/usr/bin/env bash
# Set up, build and start the workbench. With no display, run the bundled headless demo:
# serve the demo shop on loopback (test-only settings, announced on stderr) and print what
# `veetbot observe` saw there.
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
  echo "run: starting the workbench on the demo shop ($ORIGIN)" >&2
  "$BIN/veetbot-workbench" --allow-origin "$ORIGIN" "$ORIGIN/"
else
  echo "run: no display; observing the bundled demo shop headlessly" >&2
  "$BIN/veetbot" observe --allow-origin "$ORIGIN" "$ORIGIN/"
fi
