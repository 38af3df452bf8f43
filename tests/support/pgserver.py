"""A throwaway PostgreSQL server for tests and benchmarks, started from the machine's binaries.

``initdb`` and ``postgres`` refuse to run as root, and the tests run as root on CI, so when
this process is root the server runs as an unprivileged user: ``postgres`` if the machine has
one, else a system user ``tabletop-pg`` created here. Its data directory is a fresh directory
under the system temp dir owned by that user, and it listens on 127.0.0.1 only, on a free
port, with ``trust`` authentication (nothing but this machine's loopback can reach it).

The server is stopped by ``stop()`` and, should this process die first, by the kernel's
parent-death signal. A missing PostgreSQL raises ``PostgresUnavailable``: tests that need
it fail; they never skip.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "tabletop"  # the database superuser the server is initialised with
FALLBACK_OS_USER = "tabletop-pg"


class PostgresUnavailable(RuntimeError):
    pass


def bin_dir() -> Path:
    """The directory of initdb/postgres: $TABLETOP_PG_BIN, else the newest installed major."""
    configured = os.environ.get("TABLETOP_PG_BIN")
    if configured:
        return Path(configured)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2] or 0))
    if found:
        return Path(found[-1])
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise PostgresUnavailable(
        "PostgreSQL server binaries not found: install postgresql (initdb, postgres) or set "
        "TABLETOP_PG_BIN to their directory"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _os_user() -> pwd.struct_passwd | None:
    """The unprivileged account to run PostgreSQL as, or None when we are not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", FALLBACK_OS_USER):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    subprocess.run(
        [
            "useradd",
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            FALLBACK_OS_USER,
        ],
        check=True,
        capture_output=True,
    )
    return pwd.getpwnam(FALLBACK_OS_USER)


def _die_with_parent() -> None:
    """In the child, after it dropped privileges: SIGINT (fast shutdown) if we die."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG


class PgServer:
    """One PostgreSQL cluster in a temp dir. ``start()``, ``create_database()``, ``stop()``."""

    def __init__(self, durable: bool = False, settings: dict[str, str] | None = None) -> None:
        self.bin = bin_dir()
        for tool in ("initdb", "postgres"):
            if not (self.bin / tool).exists():
                raise PostgresUnavailable(f"{self.bin / tool} is missing")
        self.durable = durable
        self.settings = settings or {}
        self.user = _os_user()
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.dir = Path(tempfile.mkdtemp(prefix="tabletop-pg-"))
        self.data = self.dir / "data"
        self.log_path = self.dir / "postgres.log"
        self.signing_key = secrets.token_hex(32)  # server/wire/signing.py: a seed as hex
        if self.user is not None:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)

    # --- process ---------------------------------------------------------------------

    def _run_as(self, args: list[str], **kw: object) -> subprocess.Popen[bytes]:
        if self.user is not None:
            kw.update(user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[])
        return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
            args, preexec_fn=_die_with_parent, cwd=self.dir, **kw
        )

    def start(self, timeout: float = 60.0) -> PgServer:
        self._initdb(timeout)
        return self._launch(timeout)

    def restart(self, down_for: float = 0.0, timeout: float = 60.0) -> None:
        """Stop the server (fast shutdown: sessions are cut) and start it on the same port."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)
        self.proc = None
        time.sleep(down_for)
        self._launch(timeout, port=self.port)

    def _initdb(self, timeout: float) -> None:
        init = self._run_as(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        out, _ = init.communicate(timeout=timeout)
        if init.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {out.decode(errors='replace')[-2000:]}")

    def _launch(self, timeout: float, port: int = 0) -> PgServer:
        options = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.dir),
            "max_connections": "300",
            "shared_buffers": "128MB",
            "log_min_messages": "warning",
        }
        if not self.durable:  # tests: crash safety of the test server itself is not needed
            options.update(fsync="off", synchronous_commit="off", full_page_writes="off")
        options.update(self.settings)
        last_error = ""
        for _attempt in range(5):
            self.port = port or free_port()
            args = [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port)]
            for key, value in options.items():
                args += ["-c", f"{key}={value}"]
            log = open(self.log_path, "ab")  # noqa: SIM115
            self.proc = self._run_as(args, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    last_error = self.log_path.read_text(errors="replace")[-2000:]
                    break
                if self._ready():
                    return self
                time.sleep(0.05)
            else:
                self.stop()
                raise PostgresUnavailable(f"postgres did not start: {self.log_tail()}")
        raise PostgresUnavailable(f"postgres exited: {last_error}")

    def _ready(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- databases -------------------------------------------------------------------

    def dsn(self, dbname: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={USER} dbname={dbname}"

    def create_database(self, name: str) -> str:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return name

    def env(self, dbname: str) -> dict[str, str]:
        """The POSTGRES_* settings the server reads for ``dbname``, and the signing key
        every server on this cluster shares (a PostgreSQL deployment must give one)."""
        return {
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": USER,
            "POSTGRES_PASSWORD": "",
            "POSTGRES_DBNAME": dbname,
            "TABLETOP_SIGNING_KEY": self.signing_key,
        }

    def url(self, dbname: str, schema: str = "") -> str:
        """A shard spec for TABLETOP_SHARDS."""
        tail = f"?schema={schema}" if schema else ""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{dbname}{tail}"
