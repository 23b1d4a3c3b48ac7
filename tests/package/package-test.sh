#!/usr/bin/env bash
# The Debian package, end to end (docs/install.md).
#
#   package-test.sh package SOURCE_ROOT BINARY_ROOT
#     builds the .deb with cpack into a temporary directory, checks its control fields, its
#     file list (every expected path; nothing from tests, benchmarks or fuzzing), lintian (no
#     error; every warning explained in docs/install.md), then unpacks it with dpkg-deb -x and
#     runs the checks below on the unpacked tree: the programs find their helper in
#     <prefix>/libexec/veetbot and the demo site in <prefix>/share/veetbot only relative to
#     themselves.
#   package-test.sh install SOURCE_ROOT BINARY_ROOT
#     builds it the same way, installs it for real (apt-get install ./veetbot_*.deb), runs the
#     same checks on /usr, purges it and checks that no file of the package is left.
#
# The checks on an installed tree: desktop-file-validate and appstreamcli on the installed
# files, the manual pages render without warnings and name every option each program's
# --help lists, the systemd unit names the installed program, --version of each program,
# `veetbot observe` of the demo site (served by the fixture site from the installed copy),
# and the profile service started on demand and stopped.
set -euo pipefail

MODE="$1"
SOURCE_ROOT="$(cd "$2" && pwd)"
BINARY_ROOT="$(cd "$3" && pwd)"
WORK="$(mktemp -d /tmp/veetbot-package-XXXXXX)"
SITE_PID=
INSTALLED=
SERVICE_STARTED=
PREFIX=
cleanup() {
  if [ -n "$SITE_PID" ]; then kill "$SITE_PID" 2>/dev/null || true; wait "$SITE_PID" 2>/dev/null || true; fi
  if [ -n "$SERVICE_STARTED" ]; then "$PREFIX/bin/veetbot" service stop >/dev/null 2>&1 || true; fi
  if [ -n "$INSTALLED" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq veetbot >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
step() { echo "package-test: $*" >&2; }
START=$SECONDS

case "$MODE" in
  package | install) ;;
  *) echo "usage: package-test.sh package|install SOURCE_ROOT BINARY_ROOT" >&2; exit 2 ;;
esac
if [ "$MODE" = install ] && dpkg-query -W -f='${Status}' veetbot 2>/dev/null | grep -q "installed"; then
  fail "veetbot is already installed on this system; this test installs and purges it"
fi

# --- build --------------------------------------------------------------------------------
step "cpack"
cpack --config "$BINARY_ROOT/CPackConfig.cmake" -B "$WORK/cpack" > "$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log" >&2; fail "cpack"; }
DEBS=("$WORK"/cpack/veetbot_*.deb)
[ ${#DEBS[@]} -eq 1 ] && [ -f "${DEBS[0]}" ] || fail "expected one veetbot_*.deb, found: ${DEBS[*]}"
DEB="${DEBS[0]}"
step "built $(basename "$DEB") ($(du -k "$DEB" | cut -f1) KiB) in $((SECONDS - START)) s"

# --- control fields -------------------------------------------------------------------------
[ "$(dpkg-deb -f "$DEB" Package)" = veetbot ] || fail "package name"
DEPENDS="$(dpkg-deb -f "$DEB" Depends)"
for needed in libqt6sql6-sqlite publicsuffix libqt6webenginecore6-bin libsecret-1-0 chromium \
  libqt6core6 libqt6webenginecore6 libqt6widgets6 libssl3 libpsl5 libqt6keychain1; do
  grep -Eq "(^|, )$needed( |,|$)" <<<"$DEPENDS" || fail "Depends lacks $needed: $DEPENDS"
done

# --- file list ------------------------------------------------------------------------------
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep -v '^$' | sort > "$WORK/files"
EXPECTED=(
  /usr/bin/veetbot /usr/bin/veetbot-workbench /usr/bin/veetbot-profile-service
  /usr/libexec/veetbot/veetbot-browser-host
  /usr/share/veetbot/demo/index.html /usr/share/veetbot/demo/style.css
  /usr/share/applications/org.veetbot.Workbench.desktop
  /usr/share/metainfo/org.veetbot.Workbench.metainfo.xml
  /usr/share/icons/hicolor/scalable/apps/org.veetbot.Workbench.svg
  /usr/share/man/man1/veetbot.1.gz /usr/share/man/man1/veetbot-workbench.1.gz
  /usr/share/man/man8/veetbot-profile-service.8.gz
  /usr/lib/systemd/user/veetbot-profile-service.service
  /usr/share/doc/veetbot/copyright /usr/share/doc/veetbot/changelog.gz
)
for size in 16 22 24 32 48 64 128 256; do
  EXPECTED+=("/usr/share/icons/hicolor/${size}x${size}/apps/org.veetbot.Workbench.png")
done
for path in "${EXPECTED[@]}"; do
  grep -qxF "$path" "$WORK/files" || fail "missing from the package: $path"
done
if grep -E '(^|/)(tst_[^/]*|bench[^/]*|fuzz[^/]*|[^/]*fixture[^/]*|effectledger-writer|[^/]*\.a|include)(/|$)' \
  "$WORK/files"; then
  fail "test, benchmark or build files in the package (above)"
fi
# Only the three programs in bin: anything else there would hide the libexec lookup.
[ "$(grep -c '^/usr/bin/.' "$WORK/files")" -eq 3 ] || fail "unexpected files in /usr/bin"

# --- lintian --------------------------------------------------------------------------------
step "lintian"
lintian --fail-on error --tag-display-limit 0 "$DEB" > "$WORK/lintian.log" 2>&1 ||
  { cat "$WORK/lintian.log" >&2; fail "lintian found errors"; }
cat "$WORK/lintian.log" >&2
while read -r tag; do
  grep -qF "\`$tag\`" "$SOURCE_ROOT/docs/install.md" ||
    fail "lintian warning $tag is not explained in docs/install.md"
done < <(sed -nE 's/^W: veetbot[^:]*: ([a-z0-9-]+).*/\1/p' "$WORK/lintian.log" | sort -u)

# --- the tree to check ----------------------------------------------------------------------
if [ "$MODE" = package ]; then
  dpkg-deb -x "$DEB" "$WORK/root"
  ROOT="$WORK/root"
else
  step "apt-get install $(basename "$DEB")"
  cp "$DEB" "$WORK/install.deb" && chmod 0644 "$WORK/install.deb"
  INSTALLED=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$WORK/install.deb" \
    > "$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log" >&2; fail "apt-get install"; }
  ROOT=
fi
PREFIX="$ROOT/usr"

step "desktop entry, AppStream metadata, manual pages, unit"
desktop-file-validate "$PREFIX/share/applications/org.veetbot.Workbench.desktop" ||
  fail "desktop-file-validate"
appstreamcli validate --no-net "$PREFIX/share/metainfo/org.veetbot.Workbench.metainfo.xml" >&2 ||
  fail "appstreamcli validate"
grep -qx "ExecStart=/usr/bin/veetbot-profile-service serve" \
  "$PREFIX/lib/systemd/user/veetbot-profile-service.service" || fail "the unit's ExecStart"
if [ "$MODE" = install ]; then
  mkdir -m 0700 "$WORK/xdg-runtime"
  XDG_RUNTIME_DIR="$WORK/xdg-runtime" systemd-analyze verify --user \
    /usr/lib/systemd/user/veetbot-profile-service.service \
    > "$WORK/verify.log" 2>&1 || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify"; }
fi

export QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8
# Every option a program's --help names is in its manual page.
render() { MANWIDTH=200 man --warnings=w -E UTF-8 -l "$1" 2>"$WORK/man.err" | col -b; }
check_options() {
  local page="$1"; shift
  local text
  text="$(render "$page")"
  [ ! -s "$WORK/man.err" ] || { cat "$WORK/man.err" >&2; fail "$(basename "$page") renders with warnings"; }
  local option options
  options="$("$@" 2>/dev/null | grep -oE -- '--[a-z][a-z-]+' | sort -u)"
  grep -q -- --help <<<"$options" || fail "no options read from: $*"
  for option in $options; do
    grep -qF -- "$option" <<<"$text" || fail "$(basename "$page") lacks $option ($*)"
  done
}
MAN="$PREFIX/share/man"
check_options "$MAN/man1/veetbot.1.gz" "$PREFIX/bin/veetbot" --help
# Every command veetbot --help lists, so a new command cannot miss its manual page.
COMMANDS="$("$PREFIX/bin/veetbot" --help 2>/dev/null | sed -nE 's/^  ([a-z][a-z-]*) +[A-Z].*/\1/p')"
grep -qx observe <<<"$COMMANDS" && grep -qx run <<<"$COMMANDS" ||
  fail "no commands read from veetbot --help"
for command in $COMMANDS; do
  check_options "$MAN/man1/veetbot.1.gz" "$PREFIX/bin/veetbot" "$command" --help
done
check_options "$MAN/man1/veetbot-workbench.1.gz" "$PREFIX/bin/veetbot-workbench" --help
check_options "$MAN/man8/veetbot-profile-service.8.gz" "$PREFIX/bin/veetbot-profile-service" --help
check_options "$MAN/man8/veetbot-profile-service.8.gz" "$PREFIX/bin/veetbot-profile-service" keys --help

step "the programs"
VERSION="$(dpkg-deb -f "$DEB" Version)"
# veetbot's first line is the program; the engines follow, the default marked.
[ "$("$PREFIX/bin/veetbot" --version | head -n 1)" = "veetbot $VERSION" ] || fail "veetbot --version"
"$PREFIX/bin/veetbot" --version | grep -qE '^engine chromium: Chromium [0-9.]+ \(default\)$' ||
  fail "veetbot --version names the default engine"
[ "$("$PREFIX/bin/veetbot-profile-service" --version)" = "veetbot-profile-service $VERSION" ] ||
  fail "veetbot-profile-service --version"
"$PREFIX/bin/veetbot-workbench" --version 2>/dev/null | grep -qx "veetbot-workbench $VERSION" ||
  fail "veetbot-workbench --version"

# The demo site, served from the installed copy by the fixture site.
DEMO_HOST=demo.veetbot.test
mkfifo "$WORK/ready"
"$BINARY_ROOT/bin/veetbot-fixture-site" --cert-dir "$WORK/certs" --root "$PREFIX/share/veetbot/demo" \
  --host "$DEMO_HOST" > "$WORK/ready" &
SITE_PID=$!
read -r READY < "$WORK/ready"
PORT="$(sed -E 's/.*"https_port":([0-9]+).*/\1/' <<<"$READY")"
ORIGIN="https://$DEMO_HOST:$PORT"
export VEETBOT_TEST_RESOLVE="$DEMO_HOST=127.0.0.1" VEETBOT_TEST_CA="$WORK/certs/ca.pem"
export VEETBOT_DATA_DIR="$WORK/data" VEETBOT_RUNTIME_DIR="$WORK/run" VEETBOT_KEY_DIR="$WORK/keys"
"$PREFIX/bin/veetbot" observe --allow-origin "$ORIGIN" "$ORIGIN/" > "$WORK/observation.json" \
  2> "$WORK/observe.err" || { cat "$WORK/observe.err" >&2; fail "veetbot observe"; }
grep -q '"title": *"Veetbot demo shop"' "$WORK/observation.json" ||
  { cat "$WORK/observation.json" >&2; fail "the observation is not the demo shop's"; }

# The profile service, started on demand from beside the program, and stopped.
"$PREFIX/bin/veetbot-profile-service" keys init "$VEETBOT_KEY_DIR" > /dev/null
SERVICE_STARTED=1
"$PREFIX/bin/veetbot" service start > "$WORK/service.json" 2> "$WORK/service.err" ||
  { cat "$WORK/service.err" "$WORK/service.json" >&2; fail "veetbot service start"; }
grep -q "\"version\": *\"$VERSION\"" "$WORK/service.json" || fail "the service's version"
"$PREFIX/bin/veetbot" service stop > /dev/null || fail "veetbot service stop"
SERVICE_STARTED=
kill "$SITE_PID"; wait "$SITE_PID" 2>/dev/null || true; SITE_PID=

if [ "$MODE" = install ]; then
  step "apt-get purge"
  dpkg -L veetbot | sort > "$WORK/owned"
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq veetbot > "$WORK/purge.log" 2>&1 ||
    { cat "$WORK/purge.log" >&2; fail "apt-get purge"; }
  INSTALLED=
  ! dpkg-query -W -f='${Status}' veetbot 2>/dev/null | grep -q "installed" || fail "still installed"
  while read -r path; do
    [ -e "$path" ] || [ -L "$path" ] || continue
    # A directory stays when another package has it or something else lives in it.
    if [ -d "$path" ] && { dpkg-query -S "$path" > /dev/null 2>&1 || [ -n "$(ls -A "$path")" ]; }; then
      continue
    fi
    fail "left behind after purge: $path"
  done < "$WORK/owned"
fi
step "passed in $((SECONDS - START)) s"
