"""Go for the docs' quick start test: Debian bookworm's toolchain and gRPC packages.

The Go module proxy is not reachable from CI, so the quick start builds in GOPATH mode
against the Debian packages (their sources live under /usr/share/gocode). When a package is
missing and this process is root, it is installed with apt-get (the tests must install what
they need); otherwise GoUnavailable is raised and the test fails.
"""

from __future__ import annotations

import subprocess

from tests.support.debian import apt_install

PACKAGES = [
    "golang-go",
    "protobuf-compiler",
    "protoc-gen-go",
    "protoc-gen-go-grpc",
    "golang-google-grpc-dev",
    "golang-google-protobuf-dev",
    "golang-github-golang-protobuf-1-5-dev",
]
GOCODE = "/usr/share/gocode"


class GoUnavailable(RuntimeError):
    pass


def _installed(package: str) -> bool:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
    )
    return out.returncode == 0 and "install ok installed" in out.stdout


def ensure_go() -> None:
    missing = [p for p in PACKAGES if not _installed(p)]
    if not missing:
        return
    apt_install(missing, GoUnavailable, "the Go client's tests need Go", recommends=True)
