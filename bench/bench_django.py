"""Django set up for a bench script run from the repository root (``python bench/<script>.py``).

A bench never touches the operator's data: every script works in a throw-away data folder
(database file, media, broker folders, indexes) whether or not DATABASE_URL names a database —
a bench worker started on the real ./data once deleted a signed study's images (issue 35).
"""
from __future__ import annotations

import os
import tempfile

# Variables that would point a bench's processes at folders outside its own data folder.
FOLDER_VARIABLES = ("RADREVIEW_MEDIA_ROOT", "RADREVIEW_INDEX_DIR")


def use_private_data_dir(path: str | None = None, prefix: str = "radreview-bench-") -> str:
    """Point this process, and every process it starts, at ``path`` (a new temporary folder
    when None) for all its data; return the folder."""
    path = path or tempfile.mkdtemp(prefix=prefix)
    os.environ["RADREVIEW_DATA_DIR"] = path
    for name in FOLDER_VARIABLES:
        os.environ.pop(name, None)
    return path


def setup_django(prefix: str = "radreview-bench-") -> None:
    """A private data folder (``prefix`` names it), then Django configured and migrated."""
    use_private_data_dir(prefix=prefix)
    os.environ.setdefault("RADREVIEW_LOCAL_HTTP", "1")
    os.environ.setdefault("RADREVIEW_LOG_LEVEL", "WARNING")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    os.environ["DJANGO_SETTINGS_MODULE"] = "radreview.settings"
    import django  # noqa: PLC0415 - after the environment is set

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415 - needs django.setup()

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
