"""Celery tasks: thin wrappers that hand a job id to the Django-side runner.

This is the only module under ``workers/`` that imports Django code.
"""
import logging

from celery import shared_task
from celery.signals import worker_init, worker_ready, worker_shutdown

from radreview.dicomnet import delivery
from radreview.jobs import reconcile, recovery, runner
from radreview.media import identity, intents, inventory

logger = logging.getLogger(__name__)


@shared_task(name="workers.tasks.run_stage", acks_late=True, ignore_result=True)
def run_stage(job_id: int) -> None:
    runner.run_chain(job_id)


@shared_task(name="workers.tasks.send_sr", bind=True, acks_late=True, ignore_result=True,
             max_retries=None)
def send_sr(self, delivery_id: int) -> None:
    """Send a signed report's DICOM SR to the PACS; retried until the PACS takes it."""
    delay = delivery.attempt(delivery_id)
    if delay is not None:
        raise self.retry(countdown=delay)


@worker_init.connect
def refuse_another_deployments_media(**_):
    """Before the worker takes any work: its database and media folder must belong to one
    deployment (radreview/media/identity.py). SystemExit, because Celery logs and ignores any
    other exception a signal handler raises."""
    try:
        identity.ensure()
    except identity.DeploymentMismatch as exc:
        logger.critical("%s", exc)
        raise SystemExit(f"RadReview worker: {exc}") from None


@worker_ready.connect
def requeue_orphaned_jobs(**_):
    recovery.recover_orphaned_jobs()
    delivery.requeue_pending()
    intents.sweep()
    inventory.check()
    reconcile.start_in_worker()  # from now on, lost messages are found while the worker runs


@worker_shutdown.connect
def stop_reconciler(**_):
    reconcile.stop_in_worker()
