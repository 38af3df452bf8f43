"""The Node verifier's `compare` (clients/node/lib/compare.js) beside `tabletop-audit compare`,
through a real server's game (the `honest` fixture of test_equivocation.py): two seats'
receipts, with and without the export, must get the same words and the same status from both.

Honest receipts agree (exit 0, the same "agree: ..." line). A key holder that shows seat 1
another history (test_equivocation.LyingServer) is proven by both (exit 3, the same proof); so
is a lie to seat 1 in one field (test_rendering_lie.RenderingLiar, with the export) and a
validly signed receipt of garbage (without it). A lie signed by a key that is not the server's
proves nothing (exit 1 in both).
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from clients.python.audit import main
from server.wire.signing import Signer
from tests.api.test_equivocation import (
    LyingServer,
    honest,  # noqa: F401  (the module's fixture)
    lied_file,
    server,  # noqa: F401  (the fixture: receipts of format 2, as test_equivocation reads)
)
from tests.api.test_rendering_lie import RenderingLiar, a_played_move, garbage_receipts
from tests.support.nodejs import NODE_DIR, ensure_node_modules


def node(*args: str) -> tuple[int, str, str]:
    """`node bin/verify.js ARGS`: its status, stdout and stderr."""
    ensure_node_modules()
    done = subprocess.run(
        ["node", str(NODE_DIR / "bin" / "verify.js"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def python(capsys: Any, *args: str) -> tuple[int, str, str]:
    """`tabletop-audit ARGS` in this process: its status, stdout and stderr."""
    capsys.readouterr()
    try:
        status = main(list(args))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


def decoders_words(out: str) -> str:
    """The protobuf runtime's own words for bytes it cannot parse differ by language."""
    return re.sub(
        r"bytes that are not a message \([^\n]*\)$",
        "bytes that are not a message (…)",
        out,
        flags=re.M,
    )


def both(capsys: Any, *args: str) -> tuple[int, str]:
    """The same `compare ARGS` in Python and in Node: the same status and stdout (but for the
    protobuf decoder's error text), returned."""
    py = python(capsys, "compare", *args)
    js = node("compare", *args)
    assert (js[0], decoders_words(js[1])) == (py[0], decoders_words(py[1])), (
        f"Python {py}\nNode {js}"
    )
    return py[0], py[1]


def test_honest_receipts_agree_in_both_word_for_word(honest, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, _, _, files, export, key = honest
    pub = ("--public-key", key.public_key.hex())
    status, out = both(capsys, "--receipts", str(files[0]), "--receipts", str(files[1]), *pub)
    assert status == 0 and out.startswith("agree: 2 files, "), out
    status, out = both(
        capsys,
        "--receipts",
        str(files[0]),
        "--receipts",
        str(files[1]),
        "--file",
        str(export),
        *pub,
    )
    assert status == 0 and "every payload and seal is the record's rendering" in out, out
    assert both(capsys, "--file", str(export), *pub)[0] == 0


def test_two_histories_shown_to_two_seats_are_one_proof_in_both(honest, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, records, logs, files, export, key = honest
    own = sorted({r.last_version for r, _ in logs[1].entries})
    liar = LyingServer(key, records, own[len(own) // 2])
    lied = lied_file(logs, liar, tmp_path / "seat1.receipts")
    pub = ("--public-key", key.public_key.hex())
    status, out = both(capsys, "--receipts", str(files[0]), "--receipts", str(lied), *pub)
    assert status == 3, out
    assert out.startswith(f"PROOF: the server signed two different chain heads for game {gid}")
    status, out = both(capsys, "--file", str(export), "--receipts", str(lied), *pub)
    assert status == 3 and f"{export} version " in out, out


def test_a_lie_to_one_seat_and_signed_garbage_are_proofs_in_both(honest, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, records, logs, files, export, key = honest
    last = a_played_move(records, logs[1])
    liar = RenderingLiar(key, records, {last})
    lied_export = liar.export(export, tmp_path / "game.jsonl")
    seats = [liar.receipts(log, tmp_path / f"seat{s}.receipts") for s, log in enumerate(logs)]
    pub = ("--public-key", key.public_key.hex())
    args = ("--receipts", str(seats[0]), "--receipts", str(seats[1]), "--file", str(lied_export))
    status, out = both(capsys, *args, *pub)
    assert status == 3 and "that the record does not show" in out, out
    assert f"  differs: {liar.changed[last]}" in out.splitlines()
    seat1, _ = garbage_receipts(logs[1], key.sign, key.key_id, tmp_path / "garbage.receipts")
    status, out = both(capsys, "--receipts", str(files[0]), "--receipts", str(seat1), *pub)
    assert status == 3 and "a hash of bytes that are not a message" in out, out


def test_a_lie_signed_by_another_key_proves_nothing_in_either(honest, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, records, logs, files, export, key = honest
    liar = LyingServer(Signer.generate(), records, 3)
    lied = lied_file(logs, liar, tmp_path / "seat1.receipts")
    args = ("--receipts", str(files[0]), "--receipts", str(lied), "--public-key")
    py = python(capsys, "compare", *args, key.public_key.hex())
    js = node("compare", *args, key.public_key.hex())
    assert (py[0], js[0], py[1], js[1]) == (1, 1, "", ""), (py, js)
    assert js[2].startswith("VERIFY FAILED: ") and "not signed by" in js[2] + py[2], (py, js)
