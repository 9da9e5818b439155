#!/usr/bin/env bash
# Run the whole test suite, as CI does, on a fresh machine:
#   0. ruff, the house style of pyproject.toml;
#   1. every test on the embedded default (SQLite + Celery over the filesystem broker);
#   2. the web and pipeline tests again on PostgreSQL + Redis, with the media in an
#      S3-compatible bucket (moto's server), started here on loopback. The browser tests drive
#      the same views as the web tests through Chromium; they run in the first pass only.
# Extra arguments go to pytest (e.g. scripts/test.sh tests/web -x).
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
ensure_debian_packages chromium:chromium redis-server:redis-server '/usr/lib/postgresql/*/bin/initdb:postgresql' \
  /usr/sbin/Orthanc:orthanc '/usr/share/orthanc/plugins/libOrthancDicomWeb.so:orthanc-dicomweb' \
  storescu:dcmtk
ensure_viewer tests
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONDONTWRITEBYTECODE=1
unset DATABASE_URL CELERY_BROKER_URL RADREVIEW_DATA_DIR

source scripts/services.sh

say "Style: ruff (pyproject.toml)"
"$VENV/bin/ruff" check . || exit 1

# The two passes share no server, folder or port (every test process takes free loopback ports),
# so they run at the same time: most of each pass waits on its workers, databases and browser,
# and the two of them keep a 2-core machine busy. The second pass writes to a log that is
# printed when both have ended; the slowest tests of each pass are listed at its end, to keep
# an eye on the whole's 30 minutes.
PASS2_LOG=$(mktemp /tmp/radreview-pass2.XXXXXX)
if [ $# -eq 0 ]; then
  PASS2=(tests/web tests/pipeline)
else
  PASS2=(-m pipeline "$@")  # with a selection, only its pipeline tests need the second pass
fi
(
  start_services
  exec "$VENV/bin/pytest" -p no:cacheprovider --durations=15 "${PASS2[@]}"
) >"$PASS2_LOG" 2>&1 &
PASS2_PID=$!
trap '[ -z "$PASS2_PID" ] || kill "$PASS2_PID" 2>/dev/null || true; stop_services; rm -f "$PASS2_LOG"' EXIT

say "1. All tests on the embedded default (SQLite + filesystem broker)"
status1=0
"$VENV/bin/pytest" --durations=15 "$@" || status1=$?

status2=0
wait "$PASS2_PID" || status2=$?
PASS2_PID=""  # ended: nothing for the exit trap to stop
say "2. Web and pipeline tests on PostgreSQL + Redis, media in an S3 bucket (moto), run beside pass 1"
cat "$PASS2_LOG"
[ "$status2" -eq 5 ] && [ $# -gt 0 ] && status2=0  # a selection without pipeline tests
say "Pass 1: exit $status1; pass 2: exit $status2"
[ "$status1" -eq 0 ] && [ "$status2" -eq 0 ]
