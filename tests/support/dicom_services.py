"""Real DICOM nodes for tests: Orthanc (with its DICOMweb plugin), dcmtk's storescp, and
RadReview's own receiver, each as its own process on free loopback ports, stopped after."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from . import media
from .process_groups import stop_group
from .sockets import free_port
from .worker import ROOT, test_database_url, wait_for

ORTHANC = os.environ.get("RADREVIEW_ORTHANC", "/usr/sbin/Orthanc")
DICOMWEB_PLUGIN = os.environ.get("RADREVIEW_ORTHANC_DICOMWEB_PLUGIN",
                                 "/usr/share/orthanc/plugins/libOrthancDicomWeb.so")


# Debian's folders first: pynetdicom installs console scripts named like dcmtk's programs
# (storescp, ...) with other arguments, and they come first on PATH where the virtual
# environment is activated.
DEBIAN_PROGRAMS = os.pathsep.join(("/usr/bin", "/usr/sbin"))


def require(program: str) -> str:
    found = (shutil.which(program, path=DEBIAN_PROGRAMS) or shutil.which(program)
             or (program if os.path.exists(program) else None))
    if not found:
        pytest.fail(f"{program} not found; scripts/test.sh installs Debian's orthanc, "
                    "orthanc-dicomweb and dcmtk")
    return found


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Process:
    """A child process in its own group, its output in a log file."""

    def __init__(self, name: str, folder: Path):
        self.name, self.folder = name, folder
        self.log_path = folder / f"{name}.log"
        self.process: subprocess.Popen | None = None

    def spawn(self, args: list[str], **kwargs) -> None:
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                        start_new_session=True, **kwargs)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_until(self, predicate, what: str, timeout: float = 60) -> None:
        def ready():
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited early:\n{self.log()}")
            return predicate()
        wait_for(ready, timeout=timeout, message=what, details=self.log)

    def stop(self) -> None:
        if self.process:
            stop_group(self.process, timeout=20)
            self._log.close()


class Orthanc(Process):
    """Orthanc with a generated configuration in a temporary folder, DICOMweb enabled."""

    AE_TITLE = "ORTHANC"

    def __init__(self, folder: Path, modalities: dict[str, list] | None = None):
        super().__init__("orthanc", folder)
        self.http_port, self.dicom_port = free_port(), free_port()
        self.modalities = modalities or {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def dicomweb(self) -> str:
        return f"{self.url}/dicom-web"

    def start(self) -> Orthanc:
        config = {
            "Name": "RadReview tests", "StorageDirectory": str(self.folder / "storage"),
            "IndexDirectory": str(self.folder / "index"), "HttpPort": self.http_port,
            "DicomPort": self.dicom_port, "DicomAet": self.AE_TITLE,
            "RemoteAccessAllowed": False, "AuthenticationEnabled": False,
            "DicomCheckCalledAet": False, "DicomModalities": self.modalities,
            "Plugins": [DICOMWEB_PLUGIN], "DicomWeb": {"Enable": True, "Root": "/dicom-web/"},
            "StableAge": 1, "HttpTimeout": 30,
        }
        path = self.folder / "orthanc.json"
        path.write_text(json.dumps(config))
        self.spawn([require(ORTHANC), str(path)])
        self.wait_until(self._answers, "Orthanc's REST API")
        return self

    def _answers(self) -> bool:
        try:
            return requests.get(f"{self.url}/system", timeout=1).ok
        except requests.RequestException:
            return False

    def upload(self, data: bytes) -> dict:
        answer = requests.post(f"{self.url}/instances", data=data, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def instances(self) -> list[dict]:
        return requests.get(f"{self.url}/instances?expand", timeout=30).json()

    def instance_tags(self, instance_id: str) -> dict:
        return requests.get(f"{self.url}/instances/{instance_id}/simplified-tags",
                            timeout=30).json()


class StoreScp(Process):
    """dcmtk's storescp, writing what it receives into a folder."""

    AE_TITLE = "STORESCP"

    def __init__(self, folder: Path, port: int | None = None):
        super().__init__("storescp", folder)
        self.port = port or free_port()
        self.received = folder / "received"
        self.received.mkdir(exist_ok=True)

    def start(self) -> StoreScp:
        self.spawn([require("storescp"), "--aetitle", self.AE_TITLE, "--output-directory",
                    str(self.received), str(self.port)])
        self.wait_until(lambda: port_open(self.port), "storescp to listen")
        return self

    def files(self) -> list[Path]:
        return sorted(path for path in self.received.iterdir() if path.is_file())


class Receiver(Process):
    """RadReview's DICOM receiver (manage.py run_dicom_receiver) on the test database."""

    AE_TITLE = "RADREVIEW"

    def __init__(self, folder: Path, quiet_seconds: int = 1, **environment: str):
        super().__init__("receiver", folder)
        self.port = free_port()
        self.quiet_seconds = quiet_seconds
        self.environment = environment

    def start(self) -> Receiver:
        env = dict(os.environ, DATABASE_URL=test_database_url(), PYTHONUNBUFFERED="1",
                   **media.environment(),
                   RADREVIEW_DICOM_PORT=str(self.port), RADREVIEW_DICOM_AE_TITLE=self.AE_TITLE,
                   RADREVIEW_DICOM_QUIET_SECONDS=str(self.quiet_seconds), **self.environment)
        self.spawn([sys.executable, "manage.py", "run_dicom_receiver"], cwd=ROOT, env=env)
        self.wait_until(lambda: port_open(self.port), "the DICOM receiver to listen")
        return self


def run_dcmtk(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run a dcmtk command line (echoscu, storescu) and return what it did."""
    return subprocess.run([require(args[0]), *args[1:]], capture_output=True, text=True,
                          timeout=timeout)
