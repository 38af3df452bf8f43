"""The server's Ed25519 signing key: it seals every move (domain/table/records.py, seal_body).

Where the key comes from, first match wins (server/startup/config.py):

* ``TABLETOP_SIGNING_KEY``: the key itself (PEM, or the 32-byte seed as 64 hex digits), for
  secret stores that hand a process its secrets in the environment;
* ``--signing-key FILE`` (``TABLETOP_SIGNING_KEY_FILE``): a key file, shared by every replica
  of one deployment (make one with ``python -m server.wire.signing new FILE``);
* otherwise ``DATA_DIR/signing-key.pem``, made at first start with permissions 0600 and used
  from then on. PostgreSQL deployments must give the key: each replica making its own would
  sign one game with several keys.

``python -m server.wire.signing public FILE`` prints a key file's public key, so an operator can
publish it before the server ever runs; a running server serves it (GetSigningKey) and
``tabletop-audit key`` prints it.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEY_FILE = "signing-key.pem"
log = logging.getLogger("tabletop.signing")


class SigningKeyError(Exception):
    """The configured signing key is missing or unusable; the message says what to do."""


class Signer:
    """Signs seal bodies with the server's key."""

    def __init__(self, key: Ed25519PrivateKey, source: str = "") -> None:
        self._key = key
        self.source = source  # where the key came from, for the start-up log
        self.public_key = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @staticmethod
    def generate() -> Signer:
        """A fresh key (tests, benchmarks)."""
        return Signer(Ed25519PrivateKey.generate(), "generated")

    def sign(self, body: bytes) -> str:
        return self._key.sign(body).hex()


def parse_key(text: bytes) -> Ed25519PrivateKey:
    """A PEM (PKCS#8) Ed25519 private key, or its 32-byte seed as 64 hex digits."""
    stripped = text.strip()
    if stripped.startswith(b"-----BEGIN"):
        key = serialization.load_pem_private_key(stripped, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise SigningKeyError("the signing key is not an Ed25519 key")
        return key
    try:
        seed = bytes.fromhex(stripped.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        seed = b""
    if len(seed) != 32:
        raise SigningKeyError("the signing key is neither a PEM Ed25519 key nor 64 hex digits")
    return Ed25519PrivateKey.from_private_bytes(seed)


def pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def write_new_key(path: Path) -> Ed25519PrivateKey:
    """Create ``path`` with a fresh key, readable by its owner only; never overwrites."""
    key = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem(key))
    return key


def read_key_file(path: Path) -> Ed25519PrivateKey:
    try:
        mode = path.stat().st_mode
        text = path.read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"cannot read the signing key {path}: {exc.strerror}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("the signing key %s is readable by others (chmod 600 it)", path)
    return parse_key(text)


def load_signer(data_dir: Path, key_file: Path | None, key_text: str | None, store: str) -> Signer:
    """The server's signer from its settings (see the module docstring for the order)."""
    if key_text:
        return Signer(parse_key(key_text.encode()), "TABLETOP_SIGNING_KEY")
    if key_file is not None:
        return Signer(read_key_file(key_file), str(key_file))
    if store == "postgres":
        raise SigningKeyError(
            "a PostgreSQL deployment needs one signing key for every replica: give it with "
            "--signing-key FILE or TABLETOP_SIGNING_KEY (make one with "
            "`python -m server.wire.signing new FILE`)"
        )
    path = data_dir / KEY_FILE
    try:
        return Signer(write_new_key(path), f"{path} (new)")
    except FileExistsError:
        return Signer(read_key_file(path), str(path))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ("new", "public"):
        print("usage: python -m server.wire.signing new|public FILE", file=sys.stderr)
        return 2
    path = Path(args[1])
    try:
        key = write_new_key(path) if args[0] == "new" else read_key_file(path)
    except FileExistsError:
        print(f"{path} exists; not overwritten", file=sys.stderr)
        return 1
    except SigningKeyError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(Signer(key).public_key.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
