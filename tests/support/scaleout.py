"""HAProxy and PgBouncer for the scale-out test, run from the shipped deploy/ configs.

Both come from Debian (``haproxy``, ``pgbouncer``); when missing and this process is root
(CI), ``ensure_installed`` installs them with apt-get, as tests/support/patroni.py does for
Patroni, else it raises ``ToolUnavailable`` (the test fails, it never skips).

``PgBouncer`` runs deploy/pgbouncer.ini with only the addresses, files and authentication
of this machine replaced (``override_ini``); ``HAProxy`` runs deploy/haproxy.cfg unchanged,
its addresses given as the environment variables it names.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.support.debian import ensure_binaries
from tests.support.pgserver import USER, _os_user, free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PACKAGES = ("haproxy", "pgbouncer")
BINARIES = ("haproxy", "pgbouncer")


class ToolUnavailable(RuntimeError):
    pass


def ensure_installed() -> None:
    """Install HAProxy and PgBouncer from Debian when they are missing (CI runs as root)."""
    ensure_binaries(BINARIES, PACKAGES, ToolUnavailable, "the scale-out test")


# --- the gRPC health check as raw HTTP/2 (deploy/haproxy.cfg's tcp-check) ------------------


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))[1:]
        + bytes([kind, flags])
        + struct.pack(">I", stream)
        + payload
    )


def _literal(name: int | str, value: str) -> bytes:
    """An HPACK literal header field without indexing (name by static index, or new)."""
    if isinstance(name, int):
        head = bytes([name]) if name < 15 else bytes([0x0F, name - 15])
    else:
        head = bytes([0, len(name)]) + name.encode()
    return head + bytes([len(value)]) + value.encode()


def health_check_request() -> bytes:
    """What HAProxy sends to check a replica: grpc.health.v1.Health/Check, service ""."""
    block = bytes([0x83, 0x86])  # :method POST, :scheme http (static table 3 and 6)
    block += _literal(4, "/grpc.health.v1.Health/Check")  # :path
    block += _literal(1, "tabletop")  # :authority (gRPC refuses a request without one)
    block += _literal(31, "application/grpc")  # content-type
    block += _literal("te", "trailers")
    return (
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        + _frame(4, 0, 0, b"")  # SETTINGS
        + _frame(1, 0x4, 1, block)  # HEADERS, END_HEADERS
        + _frame(0, 0x1, 1, b"\0" * 5)  # DATA: an empty message, END_STREAM
    )


SERVING_REPLY = bytes.fromhex("00000000020801")  # the reply message: status = SERVING


# --- processes -----------------------------------------------------------------------------

# A fresh interpreter, not a preexec_fn (no fork in a process that used gRPC): asks for
# SIGTERM when the test process dies, drops to the unprivileged user, becomes the program.
_TRAMPOLINE = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, signal.SIGTERM)\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit('the test process is gone')\n"
    "uid, gid = int(sys.argv[2]), int(sys.argv[3])\n"
    "if uid >= 0:\n"
    "    os.setgroups([]); os.setgid(gid); os.setuid(uid)\n"
    "os.execvp(sys.argv[4], sys.argv[4:])\n"
)


def _spawn(
    args: list[str], log: Path, env: dict[str, str] | None = None, as_user: bool = False
) -> subprocess.Popen[bytes]:
    user = _os_user() if as_user else None
    uid, gid = (user.pw_uid, user.pw_gid) if user else (-1, -1)
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", _TRAMPOLINE, str(os.getpid()), str(uid), str(gid), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            close_fds=False,
            env={**os.environ, **(env or {})},
        )


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ToolUnavailable(
                f"{proc.args!r} exited: {log.read_text(errors='replace')[-2000:]}"
            )
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise ToolUnavailable(f"nothing listens on {port}: {log.read_text(errors='replace')[-2000:]}")


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def override_ini(text: str, section: str, values: dict[str, str]) -> str:
    """``text`` (an ini file) with ``values`` set in ``section``: lines replaced in place,
    keys it lacks added at the section's end."""
    out: list[str] = []
    current, left = "", dict(values)
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            if current == section:
                out += [f"{k} = {v}" for k, v in left.items()]
                left = {}
            current = stripped.strip("[]")
        key = stripped.split("=", 1)[0].strip() if "=" in stripped else ""
        if current == section and key in left and not stripped.startswith(";"):
            out.append(f"{key} = {left.pop(key)}")
            continue
        out.append(line)
    if left:
        out += [f"{k} = {v}" for k, v in left.items()]
    return "\n".join(out) + "\n"


class PgBouncer:
    """deploy/pgbouncer.ini in front of ``dbname`` on the PostgreSQL at ``pg_port``."""

    def __init__(self, pg_port: int, dbname: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tabletop-pgbouncer-"))
        user = _os_user()
        if user is not None:
            os.chown(self.dir, user.pw_uid, user.pw_gid)
        self.port = free_port()
        self.log = self.dir / "pgbouncer.log"
        (self.dir / "userlist.txt").write_text(f'"{USER}" ""\n')
        shipped = (DEPLOY / "pgbouncer.ini").read_text()
        text = override_ini(
            shipped, "databases", {dbname: f"host=127.0.0.1 port={pg_port} dbname={dbname}"}
        )
        text = override_ini(
            text,
            "pgbouncer",
            {
                "listen_port": str(self.port),
                "auth_type": "trust",  # the test server trusts local connections
                "auth_file": str(self.dir / "userlist.txt"),
                "logfile": "",
                "pidfile": str(self.dir / "pgbouncer.pid"),
            },
        )
        self.ini = self.dir / "pgbouncer.ini"
        self.ini.write_text(text)
        for path in self.dir.iterdir():
            if user is not None:
                os.chown(path, user.pw_uid, user.pw_gid)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> PgBouncer:
        # PgBouncer refuses to run as root: as PostgreSQL's unprivileged user
        self.proc = _spawn(["pgbouncer", str(self.ini)], self.log, as_user=True)
        _wait_port(self.port, self.proc, self.log, timeout)
        return self

    def stop(self) -> None:
        _stop(self.proc)

    def __enter__(self) -> PgBouncer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class HAProxy:
    """deploy/haproxy.cfg in front of the replicas at ``targets`` (host:port, three)."""

    def __init__(self, targets: list[str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tabletop-haproxy-"))
        self.port, self.stats_port = free_port(), free_port()
        self.log = self.dir / "haproxy.log"
        self.env = {
            "TABLETOP_LISTEN": f"127.0.0.1:{self.port}",
            "TABLETOP_STATS": f"127.0.0.1:{self.stats_port}",
        }
        for i, target in enumerate(targets, 1):
            self.env[f"TABLETOP_REPLICA_{i}"] = target
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> HAProxy:
        cfg = str(DEPLOY / "haproxy.cfg")
        check = subprocess.run(
            ["haproxy", "-c", "-f", cfg], env={**os.environ, **self.env}, capture_output=True
        )
        if check.returncode != 0:
            raise ToolUnavailable(f"deploy/haproxy.cfg: {check.stdout!r} {check.stderr!r}")
        self.proc = _spawn(["haproxy", "-db", "-f", cfg], self.log, env=self.env)
        _wait_port(self.port, self.proc, self.log, timeout)
        return self

    def servers(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it (UP, DOWN, ...), from the stats page."""
        url = f"http://127.0.0.1:{self.stats_port}/;csv"
        text = urllib.request.urlopen(url, timeout=5).read().decode()
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {
            r["svname"]: r["status"]
            for r in rows
            if r["pxname"] == "replicas" and r["svname"] not in ("FRONTEND", "BACKEND")
        }

    def wait_up(self, names: list[str], timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.servers()
            if all(states.get(n, "").startswith("UP") for n in names):
                return
            time.sleep(0.2)
        raise AssertionError(f"replicas not UP in HAProxy: {self.servers()}")

    def stop(self) -> None:
        _stop(self.proc)

    def __enter__(self) -> HAProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
