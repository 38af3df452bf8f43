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

Keys have ids (``domain.table.records.key_id``): every seal stores the id of the key that
signed it. ``python -m server.wire.signing rotate FILE`` replaces the key in FILE with a new
one and appends the old public key to ``FILE.retired`` (one ``HEX  KEY_ID  retired DATE``
line per key). The server reads that file beside its key file (or
``--retired-signing-keys FILE``) and publishes the retired keys with the current one, so
records signed before a rotation still verify after it.

A retired key counts only for the seals the transparency log held when it was retired
(docs/api.md, "Transparency log"): ``rotate`` also keeps the old private key beside the new
one, in ``FILE.retiring`` (0600), and the server that starts with the new key and finds it
states the retirement (every log's size, signed by both keys; server/store/translog.py),
then deletes it. After that only the public half of the old key is kept anywhere.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import nacl.bindings
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.table.records import key_id

KEY_FILE = "signing-key.pem"
RETIRED_SUFFIX = ".retired"  # the retired public keys, beside the key file
RETIRING_SUFFIX = ".retiring"  # the old private key, until the server states its retirement
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
        self.key_id = key_id(self.public_key)
        # libsodium signs a move's seal and receipts in 45 µs against OpenSSL's 60 here, and
        # Ed25519 is deterministic: the same signature, byte for byte (tests/server/test_signing)
        seed = key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        self._sodium = nacl.bindings.crypto_sign_seed_keypair(seed)[1]

    @staticmethod
    def generate() -> Signer:
        """A fresh key (tests, benchmarks)."""
        return Signer(Ed25519PrivateKey.generate(), "generated")

    def sign(self, body: bytes) -> str:
        return nacl.bindings.crypto_sign(body, self._sodium)[:64].hex()

    def pem(self) -> bytes:
        return pem(self._key)


@dataclass(frozen=True)
class KeySet:
    """The keys a server publishes: the one it signs with, and the public halves of the
    ones it signed with before (oldest first)."""

    signer: Signer
    retired: tuple[bytes, ...] = ()
    retiring: Path | None = None  # the old private keys rotate left, to state their retirement

    def public_keys(self) -> dict[str, bytes]:
        """Every key by its id, the current one first."""
        keys = {self.signer.key_id: self.signer.public_key}
        for public in self.retired:
            keys.setdefault(key_id(public), public)
        return keys


def parse_retired(text: str, where: str) -> tuple[bytes, ...]:
    """A retired-keys file: one 64-hex-digit public key at the start of each line; the rest
    of a line, blank lines and ``#`` lines are comments."""
    keys = []
    for n, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        try:
            public = bytes.fromhex(words[0])
        except ValueError:
            public = b""
        if len(public) != 32:
            raise SigningKeyError(f"{where} line {n} is not a 64-hex-digit public key")
        keys.append(public)
    return tuple(keys)


def read_retired(path: Path, required: bool) -> tuple[bytes, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise SigningKeyError(f"cannot read the retired signing keys {path}") from None
        return ()
    except (OSError, UnicodeDecodeError) as exc:
        raise SigningKeyError(f"cannot read the retired signing keys {path}: {exc}") from None
    return parse_retired(text, str(path))


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


def load_keys(
    data_dir: Path,
    key_file: Path | None,
    key_text: str | None,
    store: str,
    retired_file: Path | None = None,
) -> KeySet:
    """The server's key set: its signer (``load_signer``) and the retired keys, from
    ``retired_file`` if given, else from ``.retired`` beside the key file, if there is one."""
    signer = load_signer(data_dir, key_file, key_text, store)
    if retired_file is not None:
        return KeySet(signer, read_retired(retired_file, required=True))
    if key_text:
        return KeySet(signer)
    beside = Path(f"{key_file or data_dir / KEY_FILE}{RETIRED_SUFFIX}")
    retiring = Path(f"{key_file or data_dir / KEY_FILE}{RETIRING_SUFFIX}")
    return KeySet(
        signer, read_retired(beside, required=False), retiring if retiring.exists() else None
    )


def retiring_chain(path: Path, current: Signer) -> list[tuple[Signer, Signer]]:
    """The (retired, successor) pairs the old keys ``rotate`` left at ``path`` make with the
    current key, oldest first (two rotations without a start between leave two keys). A key
    that is its own successor (a rotation that crashed before it replaced the key) is none."""
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"cannot read the retiring keys {path}: {exc.strerror}") from None
    marker = b"-----BEGIN"
    blocks = [marker + b for b in text.split(marker)[1:]]
    chain = [Signer(parse_key(b), str(path)) for b in blocks] + [current]
    return [(a, b) for a, b in zip(chain, chain[1:], strict=False) if a.key_id != b.key_id]


def rotate(path: Path, retired: Path | None = None) -> tuple[Signer, Signer]:
    """Replace the key in ``path`` with a new one; the old public key is appended to
    ``retired`` (default: ``path`` + ``.retired``) first, so a crash between the two steps
    leaves the old key current and also retired, never lost. The old private key is kept in
    ``path`` + ``.retiring`` until the server states its retirement. Returns (old, new)."""
    old = Signer(read_key_file(path))
    keep = Path(f"{path}{RETIRING_SUFFIX}")  # appended to: keys no server has retired yet
    fd = os.open(keep, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(old.pem())
    retired = retired or Path(f"{path}{RETIRED_SUFFIX}")
    if old.public_key not in read_retired(retired, required=False):
        date = datetime.now(UTC).strftime("%Y-%m-%d")
        with open(retired, "a", encoding="utf-8") as f:
            f.write(f"{old.public_key.hex()}  {old.key_id}  retired {date}\n")
    fresh = Path(f"{path}.new")
    fresh.unlink(missing_ok=True)
    new = Signer(write_new_key(fresh))
    os.replace(fresh, path)
    return old, new


USAGE = "usage: python -m server.wire.signing new|public FILE, or rotate FILE [RETIRED_FILE]"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["rotate"] and len(args) in (2, 3):
        return _rotate(args[1:])
    if len(args) != 2 or args[0] not in ("new", "public"):
        print(USAGE, file=sys.stderr)
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


def _rotate(args: list[str]) -> int:
    path = Path(args[0])
    retired = Path(args[1]) if len(args) > 1 else None
    try:
        old, new = rotate(path, retired)
    except SigningKeyError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"new key {new.public_key.hex()} (key id {new.key_id}) in {path}")
    kept = retired or Path(f"{path}{RETIRED_SUFFIX}")
    print(f"retired {old.public_key.hex()} (key id {old.key_id}) to {kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
