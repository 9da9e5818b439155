#!/bin/sh
# One image, three roles: "web" (migrates, then gunicorn), "worker-cpu", "worker-gpu".
set -e
case "$1" in
  web)
    python manage.py migrate --no-input
    python manage.py createcachetable
    exec gunicorn radreview.wsgi --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-4}" --timeout 120
    ;;
  worker-cpu)
    exec celery -A radreview worker -Q cpu -n "cpu@%h" --concurrency "${CPU_WORKER_CONCURRENCY:-4}" --loglevel INFO
    ;;
  worker-gpu)
    # Models load lazily once per process; a solo pool keeps exactly one copy on the GPU.
    exec celery -A radreview worker -Q gpu -n "gpu@%h" --pool solo --loglevel INFO
    ;;
  *)
    exec "$@"
    ;;
esac
