"""Stopping a child process started in its own process group (``start_new_session=True``),
with everything it started. No Django: bench scripts use it too."""
from __future__ import annotations

import os
import signal
import subprocess


def stop_group(process: subprocess.Popen, timeout: float = 30.0) -> None:
    """SIGTERM the process's group, and SIGKILL it if the process has not stopped within
    ``timeout`` seconds (a prefork pool's warm shutdown sometimes hangs)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=timeout)
