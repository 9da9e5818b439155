"""Loopback TCP sockets for tests and bench scripts: a free port, and which process holds a
socket, from /proc (Linux): the gunicorn worker that serves a client's connection, the processes
listening on a port. No Django: bench/load.py uses it too."""
from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

LISTEN = "0A"  # the state column of /proc/net/tcp


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def child_pids(pid: int) -> list[int]:
    """A process's children (gunicorn's arbiter: its workers)."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def tcp_inodes(local_port: int, remote_port: int | None = None,
               state: str | None = None) -> set[str]:
    """The inodes of the loopback TCP sockets on ``local_port`` (to ``remote_port``, in
    ``state``, when given)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if (int(fields[1].rsplit(":", 1)[1], 16) == local_port
                        and (remote_port is None
                             or int(fields[2].rsplit(":", 1)[1], 16) == remote_port)
                        and (state is None or fields[3] == state)):
                    inodes.add(fields[9])
    return inodes


def socket_inodes_of(pid: int) -> set[str]:
    """The inodes of the sockets a process has open."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[len("socket:["):-1])
    return inodes


def process_holding(pids: list[int], server_port: int, client_port: int) -> int | None:
    """Which of ``pids`` holds the server end of the client's connection (the web worker that
    is serving it)."""
    inodes = tcp_inodes(server_port, client_port)
    return next((pid for pid in pids if socket_inodes_of(pid) & inodes), None) if inodes else None
