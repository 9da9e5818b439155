# PostgreSQL + Redis on loopback in a temporary folder, for scripts/test.sh's second pass and
# bench/stack.sh. Sourced, not run. Ports: RADREVIEW_TEST_PG_PORT (default 54329) and
# RADREVIEW_TEST_REDIS_PORT (default 63799); PG_OPTIONS adds server settings. PG_SOCKET=1 points
# DATABASE_URL at PostgreSQL's unix socket instead of TCP loopback, REDIS_SOCKET=1
# CELERY_BROKER_URL at Redis's (docs/operations.md, "PostgreSQL throughput"). Both are
# stopped and the folder removed when the sourcing script exits.

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
    -o "-p $PG_PORT -k $SERVICES -c listen_addresses=127.0.0.1 ${PG_OPTIONS:-}" start >/dev/null
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U radreview radreview
}

start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
    --unixsocket "$SERVICES/redis.sock" --unixsocketperm 700 \
    --daemonize yes --pidfile "$SERVICES/redis.pid" --logfile "$SERVICES/redis.log"
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "redis did not start" >&2; exit 1
}

# Start both and point Django and Celery at them.
start_services() {
  start_postgres
  start_redis
  if [ "${PG_SOCKET:-0}" = 1 ]; then  # the socket's folder, percent-encoded as the URL's host
    export DATABASE_URL="postgres://radreview@${SERVICES//\//%2F}:$PG_PORT/radreview"
  else
    export DATABASE_URL="postgres://radreview@127.0.0.1:$PG_PORT/radreview"
  fi
  if [ "${REDIS_SOCKET:-0}" = 1 ]; then
    export CELERY_BROKER_URL="redis+socket://$SERVICES/redis.sock"
  else
    export CELERY_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/0"
  fi
}
