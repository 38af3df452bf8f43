"""A throwaway PostgreSQL cluster managed by Patroni with etcd, for the failover test.

One etcd member and two Patroni nodes (a primary and a synchronous standby), all on
127.0.0.1 with fresh ports, in a temp dir, run as the unprivileged user PostgreSQL needs
(tests/support/pgserver.py). The cluster runs with Patroni's ``synchronous_mode``: the
primary's ``synchronous_standby_names`` names the standby, every commit waits for the
standby (``synchronous_commit = on``), and Patroni promotes only a standby that was
synchronous, so a failover loses no acknowledged commit. ``synchronous_mode_strict`` is
off: once one node is left it takes writes alone (docs/operations.md, "Failover").

``kill(node)`` is the machine going away: SIGKILL to Patroni and to PostgreSQL's process
group at once. Patroni and etcd come from Debian (``patroni``, ``etcd-server``); when they
are missing and this process is root (CI), ``ensure_installed`` installs them with apt-get,
else it raises ``ClusterUnavailable`` (the test fails, it never skips).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.debian import ensure_binaries
from tests.support.pgserver import USER, _os_user, bin_dir, free_port

PACKAGES = ("patroni", "etcd-server")
BINARIES = ("patroni", "etcd")
TTL, LOOP_WAIT, RETRY_TIMEOUT = 10, 1, 4  # Patroni's leader lease: loop_wait + 2 * retry <= ttl


class ClusterUnavailable(RuntimeError):
    pass


def ensure_installed() -> None:
    """Install Patroni and etcd from Debian when they are missing (CI runs as root)."""
    ensure_binaries(BINARIES, PACKAGES, ClusterUnavailable, "the failover test")


# Started through a fresh interpreter rather than a preexec_fn (see clients/python/
# serverproc.py: no fork in a process that used gRPC): it asks for SIGTERM when the test
# process dies, drops to the unprivileged user, then becomes the program.
_TRAMPOLINE = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, signal.SIGTERM)\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit('the test process is gone')\n"
    "uid, gid = int(sys.argv[2]), int(sys.argv[3])\n"
    "if uid >= 0:\n"
    "    os.setgroups([]); os.setgid(gid); os.setuid(uid)\n"
    "os.chdir(sys.argv[4])\n"
    "os.execvp(sys.argv[5], sys.argv[5:])\n"
)


@dataclass
class Node:
    name: str
    pg_port: int
    rest_port: int
    dir: Path
    proc: subprocess.Popen[bytes] | None = None

    def status(self, path: str) -> int:
        """Patroni's REST answer for ``path`` (/primary, /sync, /health ...): 200 or 503."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.rest_port}{path}", timeout=2):
                return 200
        except urllib.error.HTTPError as err:
            return err.code
        except OSError:
            return 0

    def postmaster_pid(self) -> int | None:
        """This node's running postmaster, checked against its command line (a stale pid
        file after a kill may name some other process by now)."""
        try:
            pid = int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            return None
        return pid if str(self.dir / "data").encode() in cmdline else None


class Cluster:
    def __init__(self) -> None:
        ensure_installed()
        self.pg_bin = bin_dir()
        self.user = _os_user()
        self.dir = Path(tempfile.mkdtemp(prefix="tabletop-patroni-"))
        self.scope = f"tabletop-{uuid.uuid4().hex[:8]}"
        self.etcd_port, self.etcd_peer = free_port(), free_port()
        self.etcd: subprocess.Popen[bytes] | None = None
        self.nodes = [
            Node(f"pg{i}", free_port(), free_port(), self.dir / f"pg{i}") for i in range(2)
        ]
        self._chown(self.dir)

    # --- processes ---------------------------------------------------------------------

    def _chown(self, path: Path) -> None:
        if self.user is not None:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def _spawn(self, args: list[str], cwd: Path, log_name: str) -> subprocess.Popen[bytes]:
        uid, gid = (self.user.pw_uid, self.user.pw_gid) if self.user else (-1, -1)
        log = open(self.dir / log_name, "ab")  # noqa: SIM115
        try:
            return subprocess.Popen(
                [sys.executable, "-c", _TRAMPOLINE, str(os.getpid()), str(uid), str(gid),
                 str(cwd), *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                close_fds=False,  # posix_spawn, no fork (see _TRAMPOLINE)
                env={**os.environ, "PATH": f"{self.pg_bin}:{os.environ.get('PATH', '')}"},
            )  # fmt: skip
        finally:
            log.close()

    def start(self, timeout: float = 120.0) -> Cluster:
        try:
            self._start_etcd(timeout)
            primary, standby = self.nodes
            self._start_node(primary)
            self.wait(lambda: primary.status("/primary") == 200, timeout, "no primary")
            self._start_node(standby)
            self.wait(lambda: standby.status("/sync") == 200, timeout, "no synchronous standby")
        except BaseException:
            self.stop()
            raise
        return self

    def _start_etcd(self, timeout: float) -> None:
        data = self.dir / "etcd"
        data.mkdir()
        self._chown(data)
        peer = f"http://127.0.0.1:{self.etcd_peer}"
        client = f"http://127.0.0.1:{self.etcd_port}"
        self.etcd = self._spawn(
            ["etcd", "--name", "e0", "--data-dir", str(data),
             "--listen-client-urls", client, "--advertise-client-urls", client,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"e0={peer}", "--initial-cluster-state", "new",
             "--initial-cluster-token", self.scope],
            data, "etcd.log",
        )  # fmt: skip
        self.wait(self._etcd_healthy, timeout, "etcd did not start")

    def _etcd_healthy(self) -> bool:
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{self.etcd_port}/health", timeout=2
            ) as r:
                return bool(json.loads(r.read()).get("health") == "true")
        except (OSError, ValueError):
            return False

    def _start_node(self, node: Node) -> None:
        node.dir.mkdir()
        self._chown(node.dir)
        config = node.dir / "patroni.yml"
        config.write_text(json.dumps(self._config(node), indent=2))  # JSON is YAML
        self._chown(config)
        node.proc = self._spawn(["patroni", str(config)], node.dir, f"{node.name}.log")

    def _config(self, node: Node) -> dict[str, Any]:
        hba = [
            "local all all trust",
            "host all all 127.0.0.1/32 trust",
            "host replication replicator 127.0.0.1/32 trust",
        ]
        return {
            "scope": self.scope,
            "namespace": "/tabletop/",
            "name": node.name,
            "log": {"level": "WARNING"},
            "restapi": {
                "listen": f"127.0.0.1:{node.rest_port}",
                "connect_address": f"127.0.0.1:{node.rest_port}",
            },
            "etcd3": {"hosts": f"127.0.0.1:{self.etcd_port}"},
            "bootstrap": {
                "dcs": {
                    "ttl": TTL,
                    "loop_wait": LOOP_WAIT,
                    "retry_timeout": RETRY_TIMEOUT,
                    "maximum_lag_on_failover": 1048576,
                    "synchronous_mode": True,
                    "synchronous_mode_strict": False,
                    "postgresql": {
                        "use_pg_rewind": False,
                        "parameters": {
                            "synchronous_commit": "on",
                            "max_connections": 200,
                            "wal_keep_size": "256MB",
                            # the test kills processes, not machines: the OS keeps what
                            # was written, so skipping fsync loses nothing here (docs)
                            "fsync": "off",
                            "full_page_writes": "off",
                        },
                    },
                },
                "initdb": [
                    {"encoding": "UTF8"},
                    {"locale": "C"},
                    {"auth": "trust"},
                    {"username": USER},
                ],  # fmt: skip
                "pg_hba": hba,
            },
            "postgresql": {
                "listen": f"127.0.0.1:{node.pg_port}",
                "connect_address": f"127.0.0.1:{node.pg_port}",
                "data_dir": str(node.dir / "data"),
                "bin_dir": str(self.pg_bin),
                "pgpass": str(node.dir / "pgpass"),
                "authentication": {
                    "superuser": {"username": USER, "password": "unused"},
                    "replication": {"username": "replicator", "password": "unused"},
                },
                "parameters": {
                    "unix_socket_directories": str(node.dir),
                    "log_min_messages": "warning",
                },
                "pg_hba": hba,
            },
        }

    @staticmethod
    def wait(check: Any, timeout: float, what: str) -> float:
        """Poll ``check`` until true; returns the seconds it took."""
        start = time.monotonic()
        while not check():
            if time.monotonic() - start > timeout:
                raise ClusterUnavailable(f"{what} within {timeout:.0f} s")
            time.sleep(0.1)
        return time.monotonic() - start

    def primary(self) -> Node | None:
        found = [n for n in self.nodes if n.proc is not None and n.status("/primary") == 200]
        return found[0] if len(found) == 1 else None

    def kill(self, node: Node) -> None:
        """The machine is gone: Patroni and every PostgreSQL process of the node, at once."""
        postmaster = node.postmaster_pid()
        if node.proc is not None:
            node.proc.kill()
        if postmaster is not None:
            _kill_group(postmaster)
        if node.proc is not None:
            node.proc.wait(timeout=10)
            node.proc = None

    def stop(self) -> None:
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.proc.terminate()  # Patroni stops its PostgreSQL
                try:
                    node.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.kill(node)
            pid = node.postmaster_pid()
            if pid is not None:
                _kill_group(pid)
            node.proc = None
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.kill()
            self.etcd.wait(timeout=10)
        self.etcd = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what the servers connect to ---------------------------------------------------

    def url(self, dbname: str) -> str:
        """A libpq multi-host URL: every connection goes to whichever node is primary."""
        hosts = ",".join(f"127.0.0.1:{n.pg_port}" for n in self.nodes)
        return f"postgresql://{USER}@{hosts}/{dbname}?target_session_attrs=read-write"

    def dsn(self, dbname: str) -> str:
        hosts = ",".join("127.0.0.1" for _ in self.nodes)
        ports = ",".join(str(n.pg_port) for n in self.nodes)
        return (
            f"host={hosts} port={ports} user={USER} dbname={dbname} "
            "target_session_attrs=read-write connect_timeout=5"
        )

    def log_tail(self) -> str:
        out = []
        for path in sorted(self.dir.glob("*.log")):
            with contextlib.suppress(OSError):
                out.append(f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}")
        return "\n".join(out)


def _kill_group(pid: int) -> None:
    """SIGKILL the process group of ``pid`` (Patroni starts PostgreSQL in a session of its
    own, so this is the postmaster and every backend), never our own group."""
    with contextlib.suppress(ProcessLookupError):
        group = os.getpgid(pid)
        if group == os.getpgrp():
            os.kill(pid, signal.SIGKILL)
        else:
            os.killpg(group, signal.SIGKILL)
