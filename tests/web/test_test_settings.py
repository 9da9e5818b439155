"""The test suite never touches a deployment's data: whatever data folder the environment names,
a test session makes its own (tests/settings.py), and the processes it starts share that one."""
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
PRINT_FOLDERS = ("from django.conf import settings; "
                 "print(settings.DATA_DIR); print(settings.MEDIA_ROOT)")


def folders_seen(**env) -> list[str]:
    environment = dict(os.environ, DJANGO_SETTINGS_MODULE="tests.settings", **env)
    for name in ("RADREVIEW_DATA_DIR", "RADREVIEW_TEST_SESSION_DATA_DIR"):
        if name not in env:
            environment.pop(name, None)
    done = subprocess.run([sys.executable, "-c", PRINT_FOLDERS], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.split()


def test_a_session_ignores_a_data_folder_named_by_the_environment(tmp_path):
    operators = tmp_path / "operators-data"
    data_dir, media_root = folders_seen(RADREVIEW_DATA_DIR=str(operators),
                                        RADREVIEW_MEDIA_ROOT=str(operators / "media"))
    assert Path(data_dir).name.startswith("radreview-tests-")
    assert not media_root.startswith(str(operators)) and not operators.exists()
    assert not data_dir.startswith(str(ROOT / "data"))


def test_a_process_the_session_starts_shares_the_sessions_folder():
    data_dir, _ = folders_seen(RADREVIEW_DATA_DIR=str(settings.DATA_DIR),
                               RADREVIEW_TEST_SESSION_DATA_DIR=str(settings.DATA_DIR))
    assert data_dir == str(settings.DATA_DIR)
