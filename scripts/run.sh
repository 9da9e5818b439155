#!/usr/bin/env bash
# Set up everything on a fresh machine and run RadReview on its embedded default:
# SQLite and a Celery worker over the filesystem broker, both in ./data, the web server on
# http://127.0.0.1:8000, the DICOM receiver on 127.0.0.1:11112 (AE title RADREVIEW) and the HL7
# listener for reports from dictation on 127.0.0.1:2575. Ctrl-C stops them all.
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv
ensure_viewer
export RADREVIEW_LOCAL_HTTP=1   # plain HTTP, loopback only (settings refuse other hosts)
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PORT=${RADREVIEW_PORT:-8000}

say "Preparing the database and static files"
manage migrate --no-input -v0
manage createcachetable
manage collectstatic --no-input -v0
say "Demo accounts"
manage ensure_demo_users
say "Reference library (the first start imports the Indiana University reports: a minute or two)"
manage import_reference --source iu-xray --if-empty || say "The IU reference library could \
not be loaded (see the message above); RadReview starts without it. Load it later with: \
.venv/bin/python manage.py import_reference --source iu-xray [--path torchxrayvision-1.5.7-py3-none-any.whl]"

say "Starting the worker"
"$VENV/bin/celery" -A radreview worker --pool solo -Q cpu,gpu -n "embedded@%h" \
  --loglevel INFO --without-gossip --without-mingle &
WORKER=$!
trap 'kill $WORKER 2>/dev/null; wait $WORKER 2>/dev/null' EXIT INT TERM

say "Starting the DICOM receiver"
manage run_dicom_receiver &
RECEIVER=$!
trap 'kill $RECEIVER $WORKER 2>/dev/null; wait 2>/dev/null' EXIT INT TERM

say "Starting the HL7 listener (reports from dictation: ORU^R01 over MLLP)"
manage run_hl7_listener &
LISTENER=$!
trap 'kill $LISTENER $RECEIVER $WORKER 2>/dev/null; wait 2>/dev/null' EXIT INT TERM

say "RadReview on http://127.0.0.1:$PORT/ (Ctrl-C to stop)"
"$VENV/bin/gunicorn" radreview.wsgi --bind "127.0.0.1:$PORT" --workers 2 --timeout 120 \
  --access-logfile - &
WEB=$!
trap 'kill $WEB $LISTENER $RECEIVER $WORKER 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
wait $WEB
