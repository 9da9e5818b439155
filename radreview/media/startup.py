"""The web server's check at start: it writes uploads into the media folder, so it must not
serve a database and a media folder of two different deployments (radreview/media/identity.py).
A database or object store that cannot be reached is not a reason to stay down: the server
answers 503 until it is back (radreview/outages), and every worker checks again before it takes
any work."""
from __future__ import annotations

import logging

from django.db import DatabaseError

from radreview.studies import storage

from . import identity

logger = logging.getLogger(__name__)


def check_before_serving() -> None:
    try:
        identity.ensure()
    except identity.DeploymentMismatch as exc:
        # Raised on: gunicorn halts when a worker fails to boot (respawning it would not help).
        logger.critical("%s", exc)
        raise
    except DatabaseError:
        logger.warning("the deployment identity was not checked at start: the database did "
                       "not answer (workers check it before they take work)")
    except Exception as exc:
        if not storage.unavailable(exc):
            raise
        logger.warning("the deployment identity was not checked at start: the object store "
                       "did not answer (workers check it before they take work)")
