"""Who is calling: a gRPC call's peer, or the browser behind this process's web forwarder.

Browsers reach the API over Connect and gRPC-Web (server/transport/web/api.py), which
forwards each call to this same process's gRPC server over a loopback connection. Every
forwarded call would then come from one peer (the loopback address, one connection), so
the limits keyed per client and per connection (server/transport/limits.py) would count
all browsers as one. The forwarder names the browser's own address (``ipv4:1.2.3.4:5678``,
its TCP connection to the web port) in the metadata ``FORWARDED_HEADER``, prefixed by a
secret drawn when this process starts. Only a value carrying that secret is believed: the
forwarder drops the header from what a browser sends, and a gRPC client cannot know the
secret (it never leaves the process), so nobody can claim another address.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from typing import Any

FORWARDED_HEADER = "x-tabletop-forwarded-peer"
_SECRET = secrets.token_urlsafe(24)


def forwarded(peer: str) -> str:
    """The ``FORWARDED_HEADER`` value that makes ``peer`` the forwarded call's peer."""
    return f"{_SECRET} {peer}"


def peer_of(context: Any) -> str:
    """The caller's peer string (``ipv4:HOST:PORT``): the browser's for a forwarded call."""
    metadata = getattr(context, "invocation_metadata", None)  # (a test's stand-in has none)
    for key, value in (metadata() if metadata else None) or ():
        if key == FORWARDED_HEADER:
            secret, _, peer = str(value).partition(" ")
            if peer and hmac.compare_digest(secret.encode(), _SECRET.encode()):
                return peer
            break
    return str(context.peer() or "")


def network_of(address: str | None, v4_bits: int = 24, v6_bits: int = 64) -> str:
    """The network holding ``address``: its /24 (IPv4) or /64 (IPv6) by default, or as wide
    as asked (/16 and /48: one provider's block); an IPv4 address mapped into IPv6 counts as
    IPv4. Anything else (a Unix socket) is its own group."""
    try:
        ip = ipaddress.ip_address((address or "").split("%")[0])
    except ValueError:
        return address or "unknown"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ipaddress.IPv4Network((int(ip), v4_bits), strict=False))
    return str(ipaddress.IPv6Network((int(ip), v6_bits), strict=False))
