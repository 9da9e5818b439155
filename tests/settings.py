"""Settings for the test suite: the real settings, in a throw-away data folder.

The data folder is created once per test session and passed on (through the environment) to
the Celery workers the tests start, so they share the database file, media and broker folders.
"""
import os
import tempfile

os.environ.setdefault("RADREVIEW_DATA_DIR", tempfile.mkdtemp(prefix="radreview-tests-"))
os.environ.setdefault("RADREVIEW_LOCAL_HTTP", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from radreview.settings import *  # noqa: E402,F401,F403

# Hashing passwords slowly is a production virtue and a test-suite cost.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Serve static files from the source folders, as collectstatic is not run for tests.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
