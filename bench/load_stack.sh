#!/usr/bin/env bash
# bench/load.py on PostgreSQL + Redis: both started here on loopback in a temporary folder
# (initdb, as scripts/test.sh does), removed afterwards. Arguments go to bench/load.py.
#   bench/load_stack.sh --studies 300
# Ports: RADREVIEW_LOAD_PG_PORT (default 54346), RADREVIEW_LOAD_REDIS_PORT (default 63746).
set -euo pipefail
cd "$(dirname "$0")/.."

SERVICES=$(mktemp -d /tmp/radreview-load-services.XXXXXX)
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PG_PORT=${RADREVIEW_LOAD_PG_PORT:-54346}
REDIS_PORT=${RADREVIEW_LOAD_REDIS_PORT:-63746}
as_postgres=()
[ "$(id -u)" -eq 0 ] && as_postgres=(runuser -u postgres --)

stop_services() {
  [ -f "$SERVICES/pg/PG_VERSION" ] && "${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES/pg" -m fast stop >/dev/null 2>&1 || true
  [ -f "$SERVICES/redis.pid" ] && kill "$(cat "$SERVICES/redis.pid")" 2>/dev/null || true
  rm -rf "$SERVICES"
}
trap stop_services EXIT

[ "$(id -u)" -eq 0 ] && chown postgres "$SERVICES"
"${as_postgres[@]}" "$PG_BIN/initdb" -D "$SERVICES/pg" -A trust -U radreview >/dev/null
"${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES/pg" -l "$SERVICES/pg.log" -w \
  -o "-p $PG_PORT -k $SERVICES -c listen_addresses=127.0.0.1" start >/dev/null
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U radreview radreview

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
  --daemonize yes --pidfile "$SERVICES/redis.pid" --logfile "$SERVICES/redis.log"
for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

export DATABASE_URL="postgres://radreview@127.0.0.1:$PG_PORT/radreview"
export CELERY_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/0"
.venv/bin/python bench/load.py "$@"
