"""A deployment's media folder knows its database.

On first start a deployment gets a random identity, kept in the database (``Deployment``) and in
a marker file at the media root. Every process that writes or deletes media checks that the two
agree before it does anything (``ensure``): a worker started against another database (a bench,
a staging copy, a database restored without its media, two deployments sharing one volume)
refuses to start and names both, instead of treating the other deployment's images as its own.

Where neither exists yet, both are created — unless the media folder already holds originals
that the database does not name, which is exactly the case of a fresh database pointed at
another deployment's media. A deployment from before identities existed is adopted on its first
start, because its database names the originals it finds.
"""
from __future__ import annotations

import json
import os
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.utils import timezone

from radreview.errors import ServiceError
from radreview.studies import storage
from radreview.studies.models import Image

from . import layout
from .models import Deployment

MARKER_NAME = ".radreview-deployment.json"
# Enough originals to tell a folder this database knows from one it has never seen.
SAMPLE_SIZE = 50


class DeploymentMismatch(ServiceError):
    """The database and the media folder belong to different deployments."""


@dataclass(frozen=True)
class Marker:
    identity: str
    created_at: str


def read_marker() -> Marker | None:
    """The marker at the media's root (a file, or an object in the bucket)."""
    try:
        raw = json.loads(storage.read_media(MARKER_NAME))
        return Marker(str(uuid.UUID(raw["deployment"])), str(raw.get("created_at", "")))
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        raise DeploymentMismatch(
            f"The media folder's deployment marker {storage.where()}/{MARKER_NAME} cannot be "
            "read. It names the deployment the folder belongs to: restore it from the backup of "
            "the media folder; "
            "RadReview touches nothing in the folder until then.") from None


def describe_database() -> str:
    """Which database this process uses, for a person: no user name, no password."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"the SQLite database {db['NAME']}"
    where = f"{db.get('HOST') or 'localhost'}:{db.get('PORT') or 5432}"
    return f"the PostgreSQL database \"{db['NAME']}\" on {where}"


def _write_marker(identity: uuid.UUID) -> None:
    """Write the marker unless one exists (a link never replaces a file), atomically. In the
    bucket an object is written whole; two processes that both found none write the same
    identity (their database's), and ``ensure`` reads back what was kept."""
    content = {"deployment": str(identity), "created_at": timezone.now().isoformat(),
               "about": "RadReview: the deployment whose database these media files belong to. "
                        "Back it up and restore it with the folder; never copy it elsewhere."}
    if storage.in_bucket():
        if not storage.exists(MARKER_NAME):
            storage.write_media_atomically(MARKER_NAME, json.dumps(content, indent=1).encode())
        return
    path = Path(settings.MEDIA_ROOT) / MARKER_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(content, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(tmp, path)
    except FileExistsError:
        pass  # another process of this deployment wrote it a moment ago: compared below
    finally:
        Path(tmp).unlink(missing_ok=True)


def _foreign_originals() -> list[str]:
    """Originals in the media folder that this database does not name (from a sample)."""
    sample = layout.sample_originals(SAMPLE_SIZE)
    if not sample:
        return []
    if Image.objects.filter(original__in=sample).exists():
        return []
    return sample


def ensure() -> uuid.UUID:
    """This deployment's identity, created on first start; raise ``DeploymentMismatch`` when the
    database and the media folder belong to different deployments."""
    # The marker first: a starting process writes it only after its row is committed, so a
    # marker seen here means the row is visible too (the other order let two processes
    # starting at once see no row, then the other's fresh marker, and refuse).
    marker = read_marker()
    row = Deployment.objects.filter(pk=Deployment.SINGLETON).first()
    root = storage.where()
    if marker is not None and row is not None:
        if marker.identity != str(row.identity):
            raise DeploymentMismatch(
                f"Refusing to start: {describe_database()} belongs to deployment {row.identity}, "
                f"but the media folder {root} belongs to deployment {marker.identity} (its "
                f"marker was written {marker.created_at}). Point this process at the database "
                "and media folder of one deployment; nothing was read or changed.")
        return row.identity
    if marker is not None:
        raise DeploymentMismatch(
            f"Refusing to start: the media folder {root} belongs to deployment "
            f"{marker.identity} (its marker was written {marker.created_at}), but "
            f"{describe_database()} has no deployment identity: it is a new database, or "
            "one restored from before RadReview recorded identities. Point this process at that "
            "deployment's database. If this database really is that deployment's, run "
            "`manage.py deployment_identity --adopt-media` once. Nothing was read or changed.")
    foreign = _foreign_originals()
    if foreign:
        raise DeploymentMismatch(
            f"Refusing to start: the media folder {root} holds patient images that "
            f"{describe_database()} does not name (none of the {len(foreign)} originals looked "
            "at), and it has no deployment marker. It is another deployment's media, or this "
            "database is new or was restored without them. Point this process at the database "
            "and media folder of one deployment; nothing was read or changed.")
    if row is None:
        row, _ = Deployment.objects.get_or_create(pk=Deployment.SINGLETON)
    _write_marker(row.identity)
    written = read_marker()
    if written is None or written.identity != str(row.identity):
        raise DeploymentMismatch(
            f"Refusing to start: another process wrote a different deployment marker into "
            f"{root} at the same moment. Check which deployments share this folder.")
    return row.identity


def adopt_media() -> uuid.UUID:
    """Give this database the media folder's identity (``deployment_identity --adopt-media``):
    for a database restored from before identities existed. Refused when it has one."""
    marker = read_marker()
    if marker is None:
        raise DeploymentMismatch("The media folder has no deployment marker: nothing to adopt. "
                                 "Start a worker instead; it creates both.")
    row = Deployment.objects.filter(pk=Deployment.SINGLETON).first()
    if row is not None:
        if str(row.identity) == marker.identity:
            return row.identity
        raise DeploymentMismatch(
            f"{describe_database()} already belongs to deployment {row.identity}; the media "
            f"folder belongs to {marker.identity}. Adopting would hide the difference: refused.")
    return Deployment.objects.create(pk=Deployment.SINGLETON,
                                     identity=uuid.UUID(marker.identity)).identity
