#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster, then stops and deletes the cluster.
#
#   scripts/with-postgres.sh ctest --test-dir build --output-on-failure
#   scripts/with-postgres.sh build/bin/tst_profilerepository_postgres
#
# The cluster comes from pg_virtualenv (Debian package postgresql-common) with -t, so even as
# root it lives in a fresh temporary directory (owned by the postgres user) rather than in
# /etc/postgresql and /var/lib/postgresql, and never touches an existing cluster. It listens
# on loopback only (and its Unix socket), on the first free port from 5432 up, with fsync off
# and a random superuser password. The command sees the connection in the standard libpq
# variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD) and again as
# VEETBOT_TEST_PG_HOST/PORT/USER/DB/PASSWORD, which the profile tests read. Its exit status
# is returned; on failure pg_virtualenv also prints the end of the server log.
#
# Needs: postgresql-15 (or the version in VEETBOT_PG_VERSION) and postgresql-common, e.g.
#   apt-get install --no-install-recommends postgresql-15 postgresql-common
set -euo pipefail

PG_VERSION="${VEETBOT_PG_VERSION:-15}"

if [ $# -eq 0 ]; then
  echo "usage: $0 <command> [arguments...]" >&2
  exit 2
fi
if ! command -v pg_virtualenv >/dev/null 2>&1; then
  echo "with-postgres: pg_virtualenv is missing (apt-get install postgresql-common)" >&2
  exit 2
fi
if [ ! -x "/usr/lib/postgresql/$PG_VERSION/bin/postgres" ]; then
  echo "with-postgres: PostgreSQL $PG_VERSION server is missing (apt-get install postgresql-$PG_VERSION)" >&2
  exit 2
fi

# The cluster is created under LC_ALL=C.UTF-8 (always present on Debian): pg_createcluster
# refuses a host locale that is not generated, as on many fresh containers. The command gets
# the caller's locale back.
if [ "${LC_ALL+set}" = set ]; then
  export WITH_POSTGRES_LC_ALL="$LC_ALL"
else
  unset WITH_POSTGRES_LC_ALL
fi
export LC_ALL=C.UTF-8

exec pg_virtualenv -t -v "$PG_VERSION" -o "listen_addresses=localhost" -- \
  bash -c '
    set -euo pipefail
    if [ "${WITH_POSTGRES_LC_ALL+set}" = set ]; then
      export LC_ALL="$WITH_POSTGRES_LC_ALL"
    else
      unset LC_ALL
    fi
    unset WITH_POSTGRES_LC_ALL
    export VEETBOT_TEST_PG_HOST="$PGHOST" VEETBOT_TEST_PG_PORT="$PGPORT" \
           VEETBOT_TEST_PG_USER="$PGUSER" VEETBOT_TEST_PG_DB="$PGDATABASE" \
           VEETBOT_TEST_PG_PASSWORD="$PGPASSWORD"
    echo "with-postgres: PostgreSQL $PGVERSION on $PGHOST:$PGPORT as $PGUSER" >&2
    exec "$@"
  ' with-postgres "$@"
