"""The Celery app. Workers run the tasks in ``workers/tasks.py``."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "radreview.settings")

# Celery's Django fixup, keeping the worker's database connection between tasks
# (radreview/jobs/celery_fixup.py).
app = Celery("radreview", fixups=["radreview.jobs.celery_fixup:fixup"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"])
