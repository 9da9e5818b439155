#!/usr/bin/env bash
# Start PostgreSQL + Redis on loopback (scripts/services.sh, as scripts/test.sh does), run a
# command with DATABASE_URL and CELERY_BROKER_URL pointing at them, then stop both.
#   bench/stack.sh .venv/bin/python bench/drain.py --studies 200
#   bench/stack.sh .venv/bin/pytest tests/pipeline/test_reconcile_broker.py
# Ports: RADREVIEW_TEST_PG_PORT (default 54329) and RADREVIEW_TEST_REDIS_PORT (default 63799).
# PG_OPTIONS adds server settings (e.g. PG_OPTIONS="-c synchronous_commit=off" to compare);
# PG_SOCKET=1 / REDIS_SOCKET=1 connect to PostgreSQL / Redis over their unix sockets instead
# of TCP loopback.
cd "$(dirname "$0")/.."
set -euo pipefail
source scripts/services.sh
MEDIA_STORE=${MEDIA_STORE:-filesystem}  # the benches measure the embedded media folder

start_services
# The data directory, so a test can stop and start this PostgreSQL (tests/pipeline/test_outages*).
export RADREVIEW_TEST_PG_DATA="$SERVICES/pg"
"$@"
