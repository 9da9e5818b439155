# PostgreSQL + Redis on loopback in a temporary folder, for scripts/test.sh's second pass and
# bench/stack.sh, and an S3-compatible object store (moto's server) for the media of the second
# pass. Sourced, not run. Ports: RADREVIEW_TEST_PG_PORT (default 54329),
# RADREVIEW_TEST_REDIS_PORT (default 63799) and RADREVIEW_TEST_S3_PORT (default 53699);
# PG_OPTIONS adds server settings; MEDIA_STORE=filesystem keeps the media on disk. PG_SOCKET=1 points
# DATABASE_URL at PostgreSQL's unix socket instead of TCP loopback, REDIS_SOCKET=1
# CELERY_BROKER_URL at Redis's (docs/operations.md, "PostgreSQL throughput"). Both are
# stopped and the folder removed when the sourcing script exits.

SERVICES=$(mktemp -d /tmp/radreview-services.XXXXXX)
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PG_PORT=${RADREVIEW_TEST_PG_PORT:-54329}
REDIS_PORT=${RADREVIEW_TEST_REDIS_PORT:-63799}
S3_PORT=${RADREVIEW_TEST_S3_PORT:-53699}
as_postgres=()
[ "$(id -u)" -eq 0 ] && as_postgres=(runuser -u postgres --)

stop_services() {
  [ -f "$SERVICES/pg/PG_VERSION" ] && "${as_postgres[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES/pg" -m fast stop >/dev/null 2>&1 || true
  [ -f "$SERVICES/redis.pid" ] && kill "$(cat "$SERVICES/redis.pid")" 2>/dev/null || true
  [ -f "$SERVICES/s3.pid" ] && kill "$(cat "$SERVICES/s3.pid")" 2>/dev/null || true
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

# moto's S3 server (tests/support/object_store.py, which also creates the bucket).
start_object_store() {
  "${VENV:-.venv}/bin/python" -m tests.support.object_store "$S3_PORT" >"$SERVICES/s3.log" 2>&1 &
  echo $! >"$SERVICES/s3.pid"
  for _ in $(seq 300); do grep -q "^http://" "$SERVICES/s3.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "^http://" "$SERVICES/s3.log" || { echo "the object store did not start" >&2; exit 1; }
  export RADREVIEW_MEDIA_STORE=s3 RADREVIEW_S3_ENDPOINT="http://127.0.0.1:$S3_PORT" \
    RADREVIEW_S3_BUCKET=radreview RADREVIEW_S3_REGION=us-east-1 \
    RADREVIEW_S3_ACCESS_KEY_ID=radreview-test RADREVIEW_S3_SECRET_ACCESS_KEY=radreview-test-secret
}

# Start them and point Django, Celery and the media at them.
start_services() {
  start_postgres
  start_redis
  [ "${MEDIA_STORE:-s3}" = s3 ] && start_object_store
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
