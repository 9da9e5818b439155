"""Django set up for a bench script run from the repository root (``python bench/<script>.py``):
a throw-away SQLite data folder unless DATABASE_URL names a database, migrated, with the cache
table."""
from __future__ import annotations

import os
import tempfile


def setup_django(prefix: str = "radreview-bench-") -> None:
    """Configure and migrate; ``prefix`` names the temporary data folder."""
    if not os.environ.get("DATABASE_URL"):
        os.environ["RADREVIEW_DATA_DIR"] = tempfile.mkdtemp(prefix=prefix)
    os.environ.setdefault("RADREVIEW_LOCAL_HTTP", "1")
    os.environ.setdefault("RADREVIEW_LOG_LEVEL", "WARNING")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    os.environ["DJANGO_SETTINGS_MODULE"] = "radreview.settings"
    import django  # noqa: PLC0415 - after the environment is set

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415 - needs django.setup()

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
