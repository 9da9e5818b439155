#!/usr/bin/env bash
# Run the whole test suite, as CI does, on a fresh machine:
#   0. ruff, the house style of pyproject.toml;
#   1. every test on the embedded default (SQLite + Celery over the filesystem broker);
#   2. the Django tests (web, pipeline, browser) again on PostgreSQL + Redis, started here
#      on loopback.
# Extra arguments go to pytest (e.g. scripts/test.sh tests/web -x).
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
ensure_debian_packages chromium:chromium redis-server:redis-server '/usr/lib/postgresql/*/bin/initdb:postgresql' \
  /usr/sbin/Orthanc:orthanc '/usr/share/orthanc/plugins/libOrthancDicomWeb.so:orthanc-dicomweb' \
  storescu:dcmtk
ensure_viewer
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONDONTWRITEBYTECODE=1
unset DATABASE_URL CELERY_BROKER_URL RADREVIEW_DATA_DIR

SERVICES=$(mktemp -d /tmp/radreview-services.XXXXXX)
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PG_PORT=${RADREVIEW_TEST_PG_PORT:-54329}
REDIS_PORT=${RADREVIEW_TEST_REDIS_PORT:-63799}
as_postgres=()
[ "$(id -u)" -eq 0 ] && as_postgres=(runuser -u postgres --)

stop_services() {
  [ -f "$SERVICES/pg/PG_VERSION" ] && "${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES/pg" -m fast stop >/dev/null 2>&1 || true
  [ -f "$SERVICES/redis.pid" ] && kill "$(cat "$SERVICES/redis.pid")" 2>/dev/null || true
  rm -rf "$SERVICES"
}
trap stop_services EXIT

start_postgres() {
  [ "$(id -u)" -eq 0 ] && chown postgres "$SERVICES"
  "${as_postgres[@]}" "$PG_BIN/initdb" -D "$SERVICES/pg" -A trust -U radreview >/dev/null
  "${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES/pg" -l "$SERVICES/pg.log" -w \
    -o "-p $PG_PORT -k $SERVICES -c listen_addresses=127.0.0.1" start >/dev/null
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U radreview radreview
}

start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
    --daemonize yes --pidfile "$SERVICES/redis.pid" --logfile "$SERVICES/redis.log"
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "redis did not start" >&2; exit 1
}

say "Style: ruff (pyproject.toml)"
"$VENV/bin/ruff" check . || exit 1

say "All tests on the embedded default (SQLite + filesystem broker)"
"$VENV/bin/pytest" "$@"

say "Web, pipeline and browser tests on PostgreSQL + Redis"
start_postgres
start_redis
export DATABASE_URL="postgres://radreview@127.0.0.1:$PG_PORT/radreview"
export CELERY_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/0"
if [ $# -eq 0 ]; then
  "$VENV/bin/pytest" tests/web tests/pipeline tests/browser
else
  # With a selection, only its pipeline tests need the second pass; none selected is fine.
  "$VENV/bin/pytest" -m pipeline "$@" || [ $? -eq 5 ]
fi
