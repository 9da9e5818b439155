#!/bin/sh
# One image, three roles: "web" (migrates, then gunicorn), "worker-cpu", "worker-gpu".
set -e
case "$1" in
  web)
    python manage.py migrate --no-input
    python manage.py createcachetable
    # gthread: WEB_CONCURRENCY processes (default: one per CPU) x WEB_THREADS threads (4)
    exec gunicorn radreview.wsgi -c docker/gunicorn.conf.py --bind 0.0.0.0:8000
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
