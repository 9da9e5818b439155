"""The Celery app. Workers run the tasks in ``workers/tasks.py``."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "radreview.settings")

app = Celery("radreview")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"])
