"""docker/entrypoint.sh's roles run for real, as the image runs them (its programs on PATH)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from .manifests import ENTRYPOINT, ROOT


def role(name: str, data_dir, timeout: float = 120, **variables) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(PATH=f"{os.path.dirname(sys.executable)}:{env['PATH']}",
               RADREVIEW_DATA_DIR=str(data_dir), DJANGO_SECRET_KEY="entrypoint-test-only",
               **variables)
    # A session of its own, so a timeout ends the shell's python and sleep too.
    process = subprocess.Popen(["sh", str(ENTRYPOINT), name], cwd=ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@pytest.mark.slow
def test_new_pods_wait_until_the_migrate_role_has_run(tmp_path):
    # An empty database: wait-for-migrations keeps waiting (the timeout ends it here).
    with pytest.raises(subprocess.TimeoutExpired):
        role("wait-for-migrations", tmp_path, timeout=8)
    migrated = role("migrate", tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    waited = role("wait-for-migrations", tmp_path, timeout=60)
    assert waited.returncode == 0, waited.stderr


def test_a_listener_open_to_the_network_refuses_to_start_without_its_allow_list(tmp_path):
    dicom = role("dicom-receiver", tmp_path, RADREVIEW_DICOM_HOST="0.0.0.0",
                 RADREVIEW_DICOM_ALLOWED_AES="")
    assert dicom.returncode != 0
    assert "RADREVIEW_DICOM_ALLOWED_AES" in dicom.stderr
    hl7 = role("hl7-listener", tmp_path, RADREVIEW_HL7_HOST="0.0.0.0",
               RADREVIEW_HL7_ALLOWED_SENDERS="")
    assert hl7.returncode != 0
    assert "RADREVIEW_HL7_ALLOWED_SENDERS" in hl7.stderr
