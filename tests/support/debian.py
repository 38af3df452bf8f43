"""Debian packages that a test needs, installed when missing (the tests run as root on CI).

One installer for the browser, Go, Patroni and the scale-out tools: test workers may install
at the same moment, so every apt-get waits for dpkg's lock rather than failing on it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

LOCK_WAIT = ["-o", "DPkg::Lock::Timeout=600"]


def apt_install(
    packages: Sequence[str], error: type[Exception], why: str, recommends: bool = False
) -> None:
    """``apt-get install`` ``packages`` (with their recommended packages if ``recommends``);
    raise ``error`` (naming ``why``, what needs them) when this process may not install or
    apt-get fails. Tests then fail, they never skip."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise error(f"{why}: install the Debian packages {' '.join(packages)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    extra = [] if recommends else ["--no-install-recommends"]
    for args in (
        ["apt-get", *LOCK_WAIT, "update", "-qq"],
        ["apt-get", *LOCK_WAIT, "install", "-y", "-qq", *extra, *packages],
    ):
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise error(f"{' '.join(args)} failed: {done.stderr[-2000:]}")


def ensure_binaries(
    binaries: Sequence[str], packages: Sequence[str], error: type[Exception], why: str
) -> None:
    """Install ``packages`` when any of ``binaries`` is not on PATH (``apt_install``), and
    raise ``error`` if some are still missing after."""
    if all(shutil.which(b) for b in binaries):
        return
    apt_install(packages, error, f"{why} needs " + " and ".join(binaries))
    missing = [b for b in binaries if not shutil.which(b)]
    if missing:
        raise error(f"{missing} still missing after installing {tuple(packages)}")
