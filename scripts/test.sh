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
ensure_viewer
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONDONTWRITEBYTECODE=1
unset DATABASE_URL CELERY_BROKER_URL RADREVIEW_DATA_DIR

source scripts/services.sh

say "Style: ruff (pyproject.toml)"
"$VENV/bin/ruff" check . || exit 1

# The slowest tests of each pass are listed at its end, to keep an eye on the whole's 30 minutes.
say "All tests on the embedded default (SQLite + filesystem broker)"
"$VENV/bin/pytest" --durations=15 "$@"

say "Web and pipeline tests on PostgreSQL + Redis, media in an S3 bucket (moto)"
start_services
if [ $# -eq 0 ]; then
  "$VENV/bin/pytest" --durations=15 tests/web tests/pipeline
else
  # With a selection, only its pipeline tests need the second pass; none selected is fine.
  "$VENV/bin/pytest" -m pipeline "$@" || [ $? -eq 5 ]
fi
