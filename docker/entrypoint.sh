#!/bin/sh
# One image, every role (docs/operations.md, "Deploying on more than one host"):
#   web             migrates, then serves: one host, or a single web container
#   migrate         migrations and the cache table only: a one-shot step before any new process
#   serve           the web server without migrating (several web containers after "migrate")
#   worker-cpu      Celery worker for the cpu queue (any number of hosts)
#   worker-gpu      Celery worker for the gpu queue, one process per GPU
#   dicom-receiver  the DICOM Storage SCP (C-STORE, C-ECHO), as scripts/run.sh starts it
#   hl7-listener    reports from dictation over MLLP, as scripts/run.sh starts it
#   create-bucket   the media bucket, created (versioned) when missing (docker/create_bucket.py)
#   wait-for-migrations  returns once the database has every migration of this image
#   seed-data DIR   copies the static files collected into the image's /data into DIR, a fresh
#                   volume that is then mounted on /data (a read-only root file system)
# Anything else runs as a command (e.g. "python manage.py media_files").
set -e

migrate() {
  python manage.py migrate --no-input
  python manage.py createcachetable
}

serve() {
  # gthread: WEB_CONCURRENCY processes (default: one per CPU) x WEB_THREADS threads (4)
  exec gunicorn radreview.wsgi -c docker/gunicorn.conf.py --bind 0.0.0.0:8000
}

case "$1" in
  web)
    migrate
    serve
    ;;
  migrate)
    migrate
    ;;
  serve)
    serve
    ;;
  worker-cpu)
    exec celery -A radreview worker -Q cpu -n "cpu@%h" --concurrency "${CPU_WORKER_CONCURRENCY:-4}" --loglevel INFO
    ;;
  worker-gpu)
    # Models load lazily once per process; a solo pool keeps exactly one copy on the GPU.
    exec celery -A radreview worker -Q gpu -n "gpu@%h" --pool solo --loglevel INFO
    ;;
  dicom-receiver)
    exec python manage.py run_dicom_receiver
    ;;
  hl7-listener)
    exec python manage.py run_hl7_listener
    ;;
  wait-for-migrations)
    # A new pod may start while the migration Job still runs: it waits for the schema it needs.
    until python manage.py migrate --check >/dev/null; do sleep 5; done
    ;;
  seed-data)
    # Into DIR, not onto it: DIR belongs to root (a fresh volume), and copying the folder itself
    # would try to give DIR the image folder's times and mode, which only its owner may.
    cp -a "${RADREVIEW_DATA_DIR:-/data}/staticfiles" "$2"/
    ;;
  create-bucket)
    exec python docker/create_bucket.py
    ;;
  *)
    exec "$@"
    ;;
esac
