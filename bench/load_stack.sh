#!/usr/bin/env bash
# bench/load.py on PostgreSQL + Redis, started on loopback by bench/stack.sh and removed
# afterwards. Arguments go to bench/load.py.
#   bench/load_stack.sh --studies 300
# Ports: RADREVIEW_LOAD_PG_PORT (default 54346), RADREVIEW_LOAD_REDIS_PORT (default 63746).
set -euo pipefail
cd "$(dirname "$0")/.."
RADREVIEW_TEST_PG_PORT=${RADREVIEW_LOAD_PG_PORT:-54346} \
RADREVIEW_TEST_REDIS_PORT=${RADREVIEW_LOAD_REDIS_PORT:-63746} \
  exec bench/stack.sh .venv/bin/python bench/load.py "$@"
