"""Settings for the test suite: the real settings, in a throw-away data folder.

The data folder is created once per test session and passed on (through the environment) to
the Celery workers the tests start, so they share the database file, media and broker folders.
A data folder named in the environment by anything else (an operator's RADREVIEW_DATA_DIR) is
never used: tests never touch a deployment's data.
"""
import os
import tempfile

_inherited = os.environ.get("RADREVIEW_TEST_SESSION_DATA_DIR")
if not _inherited or _inherited != os.environ.get("RADREVIEW_DATA_DIR"):
    # A new test session (not a process it started): its own folder, and nothing pointing out.
    _session = tempfile.mkdtemp(prefix="radreview-tests-")
    os.environ["RADREVIEW_DATA_DIR"] = os.environ["RADREVIEW_TEST_SESSION_DATA_DIR"] = _session
    for _name in ("RADREVIEW_MEDIA_ROOT", "RADREVIEW_INDEX_DIR"):
        os.environ.pop(_name, None)
os.environ.setdefault("RADREVIEW_LOCAL_HTTP", "1")
# Every pull asks the store: a test publishes a version and looks for it at once.
os.environ.setdefault("RADREVIEW_INDEX_CHECK_SECONDS", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from radreview.settings import *  # noqa: E402,F401,F403

# Hashing passwords slowly is a production virtue and a test-suite cost.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Serve static files from the source folders, as collectstatic is not run for tests.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
STATIC_ROOT.mkdir(parents=True, exist_ok=True)

# axe-core (pinned in viewer/package.json, installed by `npm ci`) for the accessibility tests,
# served from this site's own static files so that it runs under the real Content-Security-
# Policy ('self' scripts). Only here: the production settings never serve it
# (tests/browser/test_accessibility.py checks both).
AXE_STATIC_PREFIX = "axe"
STATICFILES_DIRS = [*STATICFILES_DIRS,  # noqa: F405
                    (AXE_STATIC_PREFIX, BASE_DIR / "viewer" / "node_modules" / "axe-core")]  # noqa: F405
