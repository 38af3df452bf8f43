"""The verify command a page shows, spelled so that it runs as printed from any folder.

The ``tabletop-audit`` entry point is installed only in .venv/bin, which the README's setup
does not put on PATH, so its bare name fails as ``command not found``. For a browser on this
machine the command names this server's own interpreter by its absolute path, with ``-m`` and
the entry point's module; a browser elsewhere is given the form that works in a checkout set
up as the README says (this machine's paths are of no use there, and are not sent).
"""

from __future__ import annotations

import ipaddress
import shlex
import sys

AUDIT_MODULE = "clients.python.audit"  # what the `tabletop-audit` entry point runs
CHECKOUT_PYTHON = ".venv/bin/python"  # the README's setup, from the checkout's folder


def is_loopback(address: str | None) -> bool:
    try:
        ip = ipaddress.ip_address((address or "").split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def audit_command(peer_address: str | None) -> str:
    """How the browser at ``peer_address`` runs ``tabletop-audit`` from any folder."""
    if is_loopback(peer_address):
        return shlex.join([sys.executable, "-m", AUDIT_MODULE])
    return f"{CHECKOUT_PYTHON} -m {AUDIT_MODULE}"


def grpc_target(host: str, grpc_port: int) -> str:
    """``host:port`` for ``--target`` (an IPv6 address in brackets)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{grpc_port}"
