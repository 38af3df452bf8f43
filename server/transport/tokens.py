"""Player logins checked with PyJWT: ``Logins`` reads the issuer's keys (an https URL or a
file) and answers the player a bearer token stands for (the settings, the player id and the
refusals are in server/transport/logins.py). Imported only by a server whose players log in
(why: importing PyJWT was about 60 ms of every server start, and the test suite starts a few
hundred servers)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import jwt

from server.transport.logins import (
    ALGORITHMS,
    BEARER,
    LOOPBACK,
    MAX_APP_ID,
    MAX_TOKEN,
    KeysUnavailable,
    Login,
    LoginSettings,
    Unauthenticated,
    player_id,
)


class _FileJWKClient(jwt.PyJWKClient):
    """The JWKS read from a file, with PyJWKClient's cache, kid lookup and cooldown (its
    ``fetch_data`` is the documented point to override): rotating keys = rewriting the file."""

    def __init__(self, path: Path, **kw: Any) -> None:
        super().__init__("https://jwks.file.invalid/", **kw)  # the scheme check; never fetched
        self.path = path

    def fetch_data(self) -> Any:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError) as exc:
            raise jwt.PyJWKClientConnectionError(f"cannot read the JWKS file: {exc}") from None
        # as the library's own fetch does: the cooldown on unknown kids counts from here
        self._last_successful_fetch = time.monotonic()
        return data


def jwks_client(settings: LoginSettings) -> jwt.PyJWKClient:
    """PyJWKClient for an https URL (http only to this machine), else for a file."""
    kw: dict[str, Any] = {
        "cooldown_duration": settings.jwks_cooldown,
        "lifespan": settings.jwks_lifespan,
        "timeout": 10,
    }
    url = urlparse(settings.jwks)
    if url.scheme == "https" or (url.scheme == "http" and url.hostname in LOOPBACK):
        return jwt.PyJWKClient(settings.jwks, **kw)
    if url.scheme:
        raise ValueError(f"--oidc-jwks: an https URL or a file path, not {url.scheme}://")
    return _FileJWKClient(Path(settings.jwks), **kw)


class Logins:
    """Checks a bearer token and answers the player id it stands for. Blocking (a JWKS
    fetch may happen): the servicer calls ``player`` in a thread."""

    def __init__(self, settings: LoginSettings) -> None:
        self.settings = settings
        self.keys = jwks_client(settings)

    def player(self, authorization: str) -> str:
        """The player id of a ``Bearer <jwt>`` authorization value, or Unauthenticated."""
        return self.login(authorization).player

    def login(self, authorization: str) -> Login:
        """The player id and app of a ``Bearer <jwt>`` authorization value, or
        Unauthenticated. The app is read from the checked token only: an app team cannot
        name another app's client id without that app's tokens from the identity provider."""
        if authorization[: len(BEARER)].lower() != BEARER:
            raise Unauthenticated("authorization must be 'Bearer <token>'", "MALFORMED_TOKEN")
        token = authorization[len(BEARER) :].strip()
        if not token or len(token) > MAX_TOKEN:
            raise Unauthenticated(
                f"the bearer token must be 1..{MAX_TOKEN} characters", "MALFORMED_TOKEN"
            )
        claims = self._claims(token)
        app = claims.get("azp") or claims.get("client_id") or ""
        if not isinstance(app, str) or len(app) > MAX_APP_ID:
            raise Unauthenticated(
                f"the login's azp (or client_id) must be text of at most {MAX_APP_ID} characters",
                "MALFORMED_TOKEN",
            )
        return Login(player_id(claims["iss"], claims["sub"]), app)

    def _claims(self, token: str) -> dict[str, Any]:
        return claims(self.keys, self.settings, token)


def claims(keys: jwt.PyJWKClient, s: LoginSettings, token: str) -> dict[str, Any]:
    """The checked claims of ``token``, or Unauthenticated (KeysUnavailable when the
    issuer's keys cannot be read now)."""
    try:
        alg = jwt.get_unverified_header(token).get("alg")
        if alg not in ALGORITHMS:  # before any key lookup: "none", HS256, ...
            raise Unauthenticated(
                f"the token's algorithm {alg!r} is not accepted (one of {', '.join(ALGORITHMS)})",
                "UNSUPPORTED_ALGORITHM",
            )
        key = keys.get_signing_key_from_jwt(token)
        found: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=list(ALGORITHMS),
            audience=s.audience,
            issuer=s.issuer,
            leeway=s.leeway,
            options={"require": ["exp", "iss", "aud", "sub"]},
        )
    except jwt.PyJWKClientConnectionError as exc:
        raise KeysUnavailable(
            f"the login keys cannot be read now: {exc}", "JWKS_UNAVAILABLE"
        ) from None
    except jwt.PyJWTError as exc:
        raise _refusal(exc) from None
    if not isinstance(found.get("sub"), str) or not found["sub"]:
        raise Unauthenticated("the token names no subject (sub)", "MISSING_CLAIM")
    return found


# PyJWT's refusals, most specific first, as the reasons a client is told
_REASONS: tuple[tuple[type[Exception], str, str], ...] = (
    (jwt.ExpiredSignatureError, "TOKEN_EXPIRED", "the login has expired: sign in again"),
    (jwt.ImmatureSignatureError, "TOKEN_NOT_YET_VALID", "the login is not valid yet (nbf, iat)"),
    (jwt.InvalidAudienceError, "WRONG_AUDIENCE", "the login is for another audience"),
    (jwt.InvalidIssuerError, "WRONG_ISSUER", "the login comes from another issuer"),
    (jwt.InvalidSignatureError, "BAD_SIGNATURE", "the login's signature does not verify"),
    (jwt.InvalidAlgorithmError, "UNSUPPORTED_ALGORITHM", "the login's algorithm is refused"),
    (jwt.MissingRequiredClaimError, "MISSING_CLAIM", "the login lacks a required claim"),
    (jwt.PyJWKClientError, "UNKNOWN_KEY", "the login is signed by a key the issuer does not list"),
)


def _refusal(exc: Exception) -> Unauthenticated:
    for kind, reason, message in _REASONS:
        if isinstance(exc, kind):
            return Unauthenticated(f"{message} ({exc})", reason)
    return Unauthenticated(f"the login is not a valid token ({exc})", "MALFORMED_TOKEN")
