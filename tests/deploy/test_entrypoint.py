"""docker/entrypoint.sh's roles run for real, as the image runs them (its programs on PATH)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

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


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder owned by another user")
def test_seed_data_fills_a_volume_it_does_not_own():
    """As in the web pod: the image's user (uid 1000) copies the static files into a fresh
    volume owned by root and writable by the pod's group."""
    base = Path(tempfile.mkdtemp(prefix="radreview-seed-", dir="/tmp"))
    try:
        base.chmod(0o755)
        image_data = base / "image-data"
        (image_data / "staticfiles" / "css").mkdir(parents=True)
        (image_data / "staticfiles" / "css" / "radreview.css").write_text("body {}")
        shutil.chown(image_data, 1000, 1000)
        for path in image_data.rglob("*"):
            shutil.chown(path, 1000, 1000)
        volume = base / "volume"
        volume.mkdir()
        volume.chmod(0o2777)
        shutil.chown(volume, "root", 1000)
        seeded = subprocess.run(
            ["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups",
             "sh", str(ENTRYPOINT), "seed-data", str(volume)],
            env={"PATH": os.environ["PATH"], "RADREVIEW_DATA_DIR": str(image_data)},
            capture_output=True, text=True, timeout=30)
        assert seeded.returncode == 0, seeded.stderr
        assert (volume / "staticfiles" / "css" / "radreview.css").read_text() == "body {}"
    finally:
        shutil.rmtree(base)
