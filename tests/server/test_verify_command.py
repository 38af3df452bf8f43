"""The verify command the pages show (server/transport/verify_command.py): runnable as printed
from any folder on the server's machine, and no path of that machine sent to anyone else."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from server.transport.verify_command import audit_command, grpc_target
from server.transport.web.origin import server_json


def test_a_browser_on_this_machine_gets_this_interpreter_by_its_absolute_path() -> None:
    for local in ("127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"):
        assert shlex.split(audit_command(local)) == [sys.executable, "-m", "clients.python.audit"]


def test_a_browser_elsewhere_gets_the_checkout_form_and_no_path_of_this_machine() -> None:
    for remote in ("10.1.2.3", "2001:db8::1", None, "unix:/tmp/s"):
        assert audit_command(remote) == ".venv/bin/python -m clients.python.audit"
    shown = json.loads(server_json(50051, "192.168.1.9"))
    assert shown == {
        "grpc_port": 50051,
        "audit_command": ".venv/bin/python -m clients.python.audit",
    }
    assert sys.prefix not in server_json(50051, "192.168.1.9").decode()


def test_the_local_form_runs_from_another_folder(tmp_path: Path) -> None:
    line = audit_command("127.0.0.1") + " --help"
    done = subprocess.run(
        line,
        shell=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "verify" in done.stdout, done.stderr


def test_targets() -> None:
    assert grpc_target("127.0.0.1", 5) == "127.0.0.1:5"
    assert grpc_target("::1", 5) == "[::1]:5" and grpc_target("[::1]", 5) == "[::1]:5"
