"""Start a throwaway server process on a free port (demo, CLI and tests use it)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def is_serving(target: str, timeout: float = 1.0) -> bool:
    channel = grpc.insecure_channel(target)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        return reply.status == health_pb2.HealthCheckResponse.SERVING
    except grpc.RpcError:
        return False
    finally:
        channel.close()


# A child (a server, or the server's bot processes) is started through this trampoline
# rather than a ``preexec_fn``: a preexec_fn
# (or close_fds=True) makes subprocess fork(), and fork() runs gRPC's atfork handlers, which
# can hang forever in a process that has used gRPC (grpc/grpc#37259: seen here as a test
# worker stuck in ServerProcess.start). Without them subprocess uses posix_spawn, which
# runs no atfork handlers. The trampoline asks for SIGTERM when the process that started
# it dies (a killed test run), checks that it is still alive, then becomes the server
# (exec keeps the pid and the death signal).
_TRAMPOLINE = (
    "import os, signal, sys\n"
    "try:\n"
    "    import ctypes\n"
    "    ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG\n"
    "except Exception:\n"
    "    pass\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit('the process that started this one is gone')\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n"
)


def dies_with_this_process(python_args: list[str]) -> list[str]:
    """``python_args`` (what follows ``python``) run so that the child gets SIGTERM when this
    process dies, on Linux; elsewhere unchanged."""
    if sys.platform != "linux":
        return python_args
    return ["-c", _TRAMPOLINE, str(os.getpid()), *python_args]


class ServerProcess:
    """``python -m server.startup.main`` on 127.0.0.1 with a free port, SQLite in ``data_dir``."""

    def __init__(
        self,
        data_dir: Path | None = None,
        store: str = "sqlite",
        extra: list[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        python: str | None = None,
    ) -> None:
        self._tmp = None if data_dir else tempfile.TemporaryDirectory(prefix="tabletop-")
        self.data_dir = Path(data_dir or self._tmp.name)  # type: ignore[union-attr]
        self.store = store
        self.extra = extra or []
        self.env = env or {}  # added to this process's environment (e.g. POSTGRES_*)
        # the working directory: ``python -m`` finds ``server`` there first, so another
        # checkout's server runs (bench/profile/ab.py); None: this process's
        self.cwd = cwd
        self.python = python or sys.executable  # another interpreter (bench/profile/ab.py)
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.http_port: int | None = None  # the live viewer's, when started with --http-port
        self.web_port: int | None = None  # Connect/gRPC-Web and the page's, with --web-port

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, port: int = 0, timeout: float = 30.0) -> ServerProcess:
        """Start the server and wait until it serves. Call it from a thread that outlives the
        server (the main thread, say): Linux sends the trampoline's parent-death SIGTERM when
        the *thread* that started the process ends, not only the process."""
        port_file = self.data_dir / f"port.{os.getpid()}.{time.monotonic_ns()}"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "server.startup.main",
            "--port",
            str(port),
            "--store",
            self.store,
            "--data-dir",
            str(self.data_dir),
            "--port-file",
            str(port_file),
            *self.extra,
        ]
        self.log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115
        cmd = [self.python, *dies_with_this_process(cmd[1:])]
        self.proc = subprocess.Popen(
            cmd,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **self.env},
            cwd=self.cwd,
            close_fds=False,  # with no preexec_fn: posix_spawn, no fork (see _TRAMPOLINE)
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"server exited: {(self.data_dir / 'server.log').read_text()[-2000:]}"
                )
            if port_file.exists() and port_file.read_text().strip():
                self.port = int(port_file.read_text())
                http = Path(f"{port_file}.http")  # written before the port file
                self.http_port = int(http.read_text()) if http.exists() else None
                web = Path(f"{port_file}.web")  # written before the port file too
                self.web_port = int(web.read_text()) if web.exists() else None
                if is_serving(self.target):
                    return self
            time.sleep(0.05)
        raise TimeoutError("server did not start")

    def stop(self, kill: bool = False) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.log.close()

    def cleanup(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
