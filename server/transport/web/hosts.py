"""The Host allow-list of the web port (``--web-allow-host``): the defence against DNS rebinding.

A page on ``http://evil.example:P`` whose name the attacker re-points at a LAN or loopback
address reaches this server from the victim's browser as *same-origin*: its requests carry
``Origin: http://evil.example:P`` and ``Host: evil.example:P``, which agree, so the CORS check
alone lets them through. The attacker's page can only ever name its own host, though, so a
server that answers only for the names it is known by cannot be reached that way.

Accepted by default: IP literals (a page served from an address cannot be rebound: its origin
is that address) and ``localhost`` with its ``*.localhost`` names (RFC 6761: always loopback).
Any other name is served only when ``--web-allow-host`` lists it (``*`` turns the check off,
for a proxy in front that checks the Host itself). The port is not compared: a rebinding
page must already use this server's port to reach it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

LOOPBACK_NAMES = ("localhost",)  # and every *.localhost name


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, lower-case, without its port or a final dot."""
    value = host_header.strip().lower()
    if value.startswith("["):  # [v6]:port
        return value[1 : value.find("]")] if "]" in value else ""
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return value.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return False
    return True


class HostAllowList:
    """Which ``Host`` headers the web port answers."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        names = {host_name(a) for a in allowed if a.strip()}
        self.any = "*" in names
        self.names = frozenset(names | set(LOOPBACK_NAMES))

    def allows(self, host_header: str | None) -> bool:
        if self.any:
            return True
        name = host_name(host_header or "")
        if not name:
            return False
        return name in self.names or name.endswith(".localhost") or _is_ip(name)

    def refusal(self, host_header: str | None) -> str:
        return (
            f"本服务器不以此名称提供服务 (Host {host_header or '(none)'!r} is not served here: "
            "add the name with --web-allow-host)"
        )
