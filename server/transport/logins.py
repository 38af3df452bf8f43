"""Players from the app's own login (issue 40): an OpenID Connect / JWT access or ID token,
checked against the configured issuer, audience and JWKS, becomes a player id.

PyJWT does the checking (signature, ``exp``/``nbf``/``iat`` with a clock-skew leeway,
``iss``, ``aud``) and its ``PyJWKClient`` the keys: the JWKS is cached, a token naming an
unknown ``kid`` refetches it (key rotation), at most once per cooldown so that forged
``kid``s cannot make the server hammer the identity provider. Nothing here is written by
hand but the mapping of PyJWT's refusals to reasons a client can act on.

The token travels as ``authorization: Bearer <jwt>`` call metadata, apart from the seat
token's ``x-seat-token`` (docs/api.md, "Players"). The player id is a hash of the issuer
and the subject (``player_id``): see there for why.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

# Asymmetric algorithms only: an HMAC key would be a secret the server shares with the
# identity provider, and "none" is no signature at all.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA")
BEARER = "bearer "
MAX_TOKEN = 16_384  # characters: a JWT from an identity provider is a few kilobytes
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


MAX_APP_ID = 128  # characters of a login's client id (azp / client_id) kept as a table's app


@dataclass(frozen=True)
class Login:
    """A checked login: the player id, and the app (the OAuth client the identity provider
    issued the token to: its ``azp`` claim, else ``client_id``; "" when it names none),
    which owns the tables its player opens or queues for (webhooks go to that app only)."""

    player: str
    app: str = ""


class Unauthenticated(Exception):
    """The login was refused (→ UNAUTHENTICATED with ``reason``); nothing is appended."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class KeysUnavailable(Unauthenticated):
    """The identity provider's keys cannot be read now (→ UNAVAILABLE: retry later)."""


@dataclass(frozen=True)
class LoginSettings:
    """The app's identity provider: ``issuer`` (the ``iss`` every token must carry),
    ``audience`` (its ``aud``), ``jwks`` (an https URL, or a file path, of its public keys),
    ``leeway`` (seconds of clock skew allowed on ``exp``, ``nbf`` and ``iat``) and
    ``jwks_cooldown`` (seconds between two refetches for unknown ``kid``s)."""

    issuer: str
    audience: str
    jwks: str
    leeway: float = 60.0
    jwks_cooldown: float = 30.0
    jwks_lifespan: float = 300.0  # seconds the fetched JWKS is kept before a plain refetch


def player_id(issuer: str, subject: str) -> str:
    """The player's id: SHA-256 over the issuer and the subject, each length-prefixed.

    The issuer is in it because a subject is unique only within its issuer (OpenID Connect
    Core, section 2): two apps', or a migrated provider's, players never share an id. It is
    hashed so that the record (exported, shown to everyone after the end) holds a fixed-size
    pseudonym rather than whatever the provider uses as a subject (some use an e-mail
    address or a phone number); the app's backend computes the same id from (iss, sub) to
    find its user. An unkeyed hash of a guessable subject can still be confirmed by whoever
    guesses it: providers' pairwise or random subjects avoid that (docs/api.md, "Players")."""
    h = hashlib.sha256(b"tabletop-player/1\n")
    for part in (issuer, subject):
        raw = part.encode()
        h.update(len(raw).to_bytes(4, "big") + raw)
    return h.hexdigest()
