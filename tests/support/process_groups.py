"""Stopping a child process started in its own process group (``start_new_session=True``),
with everything it started. No Django: bench scripts use it too."""
from __future__ import annotations

import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor


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


def stop_all(*processes) -> None:
    """Call each object's ``stop()`` at once: each waits for its own process group's shutdown
    (a worker's takes about 2 s), so one after the other the waits add up."""
    with ThreadPoolExecutor(max_workers=len(processes) or 1) as pool:
        for stopped in [pool.submit(process.stop) for process in processes]:
            stopped.result()  # a stop that failed fails the caller
