"""A local identity provider for tests of player logins (issue 40): keys made in the test,
a JWKS file (or a loopback URL) it rewrites to rotate them, and tokens signed by them,
good or deliberately bad."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

ISSUER = "https://login.example.test/"
AUDIENCE = "tabletop-app"


class IdentityProvider:
    """Signs ES256 tokens with its current key; ``rotate`` adds a new key to the JWKS."""

    def __init__(self, jwks_path: Path, issuer: str = ISSUER, audience: str = AUDIENCE) -> None:
        self.jwks_path = jwks_path
        self.issuer, self.audience = issuer, audience
        self.keys: dict[str, ec.EllipticCurvePrivateKey] = {}
        self.kid = ""
        self.rotate()

    def rotate(self, keep_old: bool = True) -> str:
        """A new signing key, listed in the JWKS (the old ones too unless ``keep_old``)."""
        self.kid = f"k{len(self.keys) + 1}-{secrets.token_hex(4)}"
        if not keep_old:
            self.keys.clear()
        self.keys[self.kid] = ec.generate_private_key(ec.SECP256R1())
        self.write_jwks()
        return self.kid

    def jwks(self) -> dict[str, Any]:
        listed = []
        for kid, key in self.keys.items():
            jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
            listed.append({**jwk, "kid": kid, "use": "sig", "alg": "ES256"})
        return {"keys": listed}

    def write_jwks(self) -> None:
        self.jwks_path.write_text(json.dumps(self.jwks()))

    def claims(self, subject: str, **over: Any) -> dict[str, Any]:
        now = int(time.time())
        base = {"iss": self.issuer, "aud": self.audience, "sub": subject, "iat": now,
                "exp": now + 600}  # fmt: skip
        base.update(over)
        return {k: v for k, v in base.items() if v is not None}

    def token(self, subject: str, kid: str | None = None, **over: Any) -> str:
        """A token for ``subject`` signed by key ``kid`` (the current one); ``over`` replaces
        claims (None drops one)."""
        kid = kid or self.kid
        return jwt.encode(
            self.claims(subject, **over), self.keys[kid], algorithm="ES256", headers={"kid": kid}
        )

    def forged(self, subject: str) -> str:
        """Signed by a key the issuer never listed, naming its current key's kid."""
        stranger = ec.generate_private_key(ec.SECP256R1())
        return jwt.encode(
            self.claims(subject), stranger, algorithm="ES256", headers={"kid": self.kid}
        )

    def unsigned(self, subject: str) -> str:
        """``alg: none``: the claims and no signature at all."""
        header = {"alg": "none", "typ": "JWT", "kid": self.kid}
        return f"{_b64(header)}.{_b64(self.claims(subject))}."

    def hmac_with_public_key(self, subject: str) -> str:
        """HS256 keyed with the issuer's public JWK text: the algorithm-confusion attack."""
        secret = json.dumps(self.jwks()["keys"][-1]).encode()
        header = {"alg": "HS256", "typ": "JWT", "kid": self.kid}
        body = f"{_b64(header)}.{_b64(self.claims(subject))}"
        sig = hmac.new(secret, body.encode(), hashlib.sha256).digest()
        return f"{body}.{base64.urlsafe_b64encode(sig).rstrip(b'=').decode()}"


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def server_flags(idp: IdentityProvider, jwks: str | None = None, cooldown: float = 0) -> list[str]:
    """The server's flags for this provider (``jwks``: a URL instead of its file)."""
    return [
        "--oidc-issuer", idp.issuer, "--oidc-audience", idp.audience,
        "--oidc-jwks", jwks or str(idp.jwks_path), "--oidc-jwks-cooldown", str(cooldown),
    ]  # fmt: skip
