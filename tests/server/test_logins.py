"""Player logins checked (server/transport/logins.py): each kind of bad token is refused
with its own reason, keys rotate (an unknown kid refetches the JWKS, at most once per
cooldown), and the JWKS comes from a file or a loopback URL. The same through a real
server: tests/api/test_player_logins.py."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.transport.logins import LoginSettings, Unauthenticated, player_id
from server.transport.tokens import Logins
from tests.support.oidc import AUDIENCE, ISSUER, IdentityProvider


@pytest.fixture()
def idp(tmp_path: Path) -> IdentityProvider:
    return IdentityProvider(tmp_path / "jwks.json")


def logins(idp: IdentityProvider, cooldown: float = 0, jwks: str = "") -> Logins:
    return Logins(LoginSettings(ISSUER, AUDIENCE, jwks or str(idp.jwks_path), 5, cooldown))


def refusal(check: Logins, token: str) -> str:
    with pytest.raises(Unauthenticated) as refused:
        check.player(f"Bearer {token}")
    return refused.value.reason


def test_a_good_login_is_the_player_of_its_issuer_and_subject(idp: IdentityProvider) -> None:
    assert logins(idp).player(f"Bearer {idp.token('alice')}") == player_id(ISSUER, "alice")
    # the issuer is part of the id; the subject never appears in it
    assert player_id(ISSUER, "alice") != player_id("https://other.test/", "alice")
    assert player_id("a", "bc") != player_id("ab", "c")  # length-prefixed parts
    assert "alice" not in player_id(ISSUER, "alice")


def test_each_bad_login_is_refused_with_its_reason(idp: IdentityProvider) -> None:
    check = logins(idp)
    now = int(time.time())
    cases = {
        "TOKEN_EXPIRED": idp.token("alice", exp=now - 60, iat=now - 700),
        "WRONG_AUDIENCE": idp.token("alice", aud="another-app"),
        "WRONG_ISSUER": idp.token("alice", iss="https://evil.test/"),
        "BAD_SIGNATURE": idp.forged("alice"),
        "UNSUPPORTED_ALGORITHM": idp.unsigned("alice"),
        "MISSING_CLAIM": idp.token("alice", exp=None),
        "TOKEN_NOT_YET_VALID": idp.token("alice", nbf=now + 3600),
        "MALFORMED_TOKEN": "not.a.jwt",
    }
    got = {reason: refusal(check, token) for reason, token in cases.items()}
    assert got == {reason: reason for reason in cases}
    assert refusal(check, idp.hmac_with_public_key("alice")) == "UNSUPPORTED_ALGORITHM"
    with pytest.raises(Unauthenticated) as basic:
        check.player("Basic YWxpY2U6cGFzcw==")
    assert basic.value.reason == "MALFORMED_TOKEN"


def test_clock_skew_within_the_leeway_is_accepted(idp: IdentityProvider) -> None:
    now = int(time.time())
    assert logins(idp).player(f"Bearer {idp.token('alice', exp=now - 2)}")  # leeway 5 s


def test_a_rotated_key_is_fetched_when_a_login_names_it(idp: IdentityProvider) -> None:
    check = logins(idp, cooldown=0)
    assert check.player(f"Bearer {idp.token('alice')}")  # the JWKS is read and cached
    new = idp.rotate()
    assert check.player(f"Bearer {idp.token('alice', kid=new)}") == player_id(ISSUER, "alice")


def test_unknown_kids_refetch_at_most_once_per_cooldown(
    idp: IdentityProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = logins(idp, cooldown=3600)
    fetches = []
    fetch = check.keys.fetch_data
    monkeypatch.setattr(check.keys, "fetch_data", lambda: fetches.append(1) or fetch())
    assert check.player(f"Bearer {idp.token('alice')}")
    new = idp.rotate()
    for _ in range(5):  # a flood of unknown kids: no fetch during the cooldown
        assert refusal(check, idp.token("alice", kid=new)) == "UNKNOWN_KEY"
    assert len(fetches) == 1


class _JWKSHandler(http.server.BaseHTTPRequestHandler):
    idp: IdentityProvider

    def do_GET(self) -> None:  # noqa: N802 (the library's name)
        body = json.dumps(self.idp.jwks()).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def jwks_url(idp: IdentityProvider) -> Iterator[str]:
    handler = type("Handler", (_JWKSHandler,), {"idp": idp})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/jwks.json"
    httpd.shutdown()
    thread.join(timeout=10)


def test_the_jwks_comes_from_a_url_and_rotates_there(idp: IdentityProvider, jwks_url: str) -> None:
    check = logins(idp, jwks=jwks_url)
    assert check.player(f"Bearer {idp.token('bob')}") == player_id(ISSUER, "bob")
    new = idp.rotate()
    assert check.player(f"Bearer {idp.token('bob', kid=new)}") == player_id(ISSUER, "bob")


def test_only_https_urls_or_files_name_a_jwks(idp: IdentityProvider) -> None:
    for bad in ("http://login.example.test/jwks", "ftp://x/jwks", "file:///etc/passwd"):
        with pytest.raises(ValueError):
            logins(idp, jwks=bad)


def test_the_server_takes_all_three_oidc_settings_or_none(idp: IdentityProvider) -> None:
    from server.startup.config import from_args

    assert from_args([])[0].logins is None
    with pytest.raises(SystemExit) as exit_:
        from_args(["--oidc-issuer", ISSUER])
    assert exit_.value.code == 2
    flags = ["--oidc-issuer", ISSUER, "--oidc-audience", AUDIENCE, "--oidc-jwks", "j.json"]
    assert from_args(flags)[0].logins == LoginSettings(ISSUER, AUDIENCE, "j.json", 60.0, 30.0)
