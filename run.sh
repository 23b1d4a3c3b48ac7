#!/usr/bin/env bash
# Set up, build and start the workbench on the bundled demo shop, served on loopback
# (test-only settings, announced on stderr), with a data directory, keys and profile service
# of this run: the workbench opens on Website Access with the demo shop listed (sign in with
# demo@veetbot.test / demo-password). With no display, the script signs in to the demo shop
# itself over HTTPS, hands that session to the profile service with
# `veetbot profiles sign-in --session-file`, prints what `veetbot observe --profile` sees on
# the account page, and runs "Check my orders." with the shipped recipe (no model needed).
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

# This run's own data, keys and profile service, gone when it ends.
export VEETBOT_DATA_DIR="$WORK/data" VEETBOT_RUNTIME_DIR="$WORK/run" VEETBOT_KEY_DIR="$WORK/keys"
"$BIN/veetbot-profile-service" keys init "$VEETBOT_KEY_DIR" > /dev/null
PROFILE="$("$BIN/veetbot" profiles create --origin "$ORIGIN" |
  sed -nE 's/^ *"id": *"([^"]+)".*/\1/p')"
stop_service() { "$BIN/veetbot" service stop > /dev/null 2>&1 || true; }

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "run: starting the workbench; the demo shop ($ORIGIN) is listed in Website Access" >&2
  echo "run: sign in with demo@veetbot.test and the password demo-password" >&2
  status=0
  "$BIN/veetbot-workbench" || status=$?
  stop_service
  exit "$status"
fi

echo "run: no display; signing in to the demo shop headlessly" >&2
# The demo account's session, as a browser the owner trusts would have it: a sign-in over
# HTTPS that keeps the cookie the shop answers.
COOKIE="$(curl -s --cacert "$VEETBOT_TEST_CA" --resolve "$DEMO_HOST:$PORT:127.0.0.1" \
  -o /dev/null -D - --data-urlencode email=demo@veetbot.test \
  --data-urlencode password=demo-password "$ORIGIN/signin" |
  sed -nE 's/^[Ss]et-[Cc]ookie: demo_session=([0-9a-f]+);.*/\1/p')"
if [ -z "$COOKIE" ]; then
  echo "run: the demo shop did not sign in" >&2
  stop_service
  exit 1
fi
(umask 077; printf '{"cookies":[{"name":"demo_session","value":"%s","domain":"%s","path":"/","expires":-1,"httpOnly":true,"secure":true,"sameSite":"Lax"}],"origins":[]}\n' \
  "$COOKIE" "$DEMO_HOST" > "$WORK/session.json")
status=0
# Its answer is a profile view or a fixed error: neither holds the session.
"$BIN/veetbot" profiles sign-in "$PROFILE" --session-file "$WORK/session.json" \
  --confirmed-url "$ORIGIN/account" > "$WORK/signed-in.json" || status=$?
if [ "$status" -ne 0 ]; then
  echo "run: the sign-in was not verified: $(cat "$WORK/signed-in.json")" >&2
else
  echo "run: signed in; what an agent sees on the account page:" >&2
  "$BIN/veetbot" observe --profile "$PROFILE" "$ORIGIN/account" || status=$?
  if [ "$status" -eq 0 ]; then
    echo "run: and \"Check my orders.\", carried by the reviewed recipe demo-shop.orders:" >&2
    "$BIN/veetbot" run --profile "$PROFILE" --task "Check my orders." || status=$?
  fi
fi
stop_service
exit "$status"
