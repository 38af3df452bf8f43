"""A lie to one seat is a proof (issue 36): `tabletop-audit compare` and `verify --receipts`.

A real server plays a 2-seat game (the `honest` fixture of test_equivocation.py). A planted
server, built here with the real server's key, then renders for seat 1 another value of an
event's field than the record holds, at one move or at every move, and seals that
rendering: the chain heads are the true ones, the record's facts are the true ones, the
seals in the export are the lying ones (the server stores what it signs), and every receipt
of both seats carries those seals, validly signed. Only re-rendering the record for seat 1
shows the lie: both commands exit 3 with the version, the viewer, both signed statements and
the differing field. Honest receipts exit 0; a lie signed by a key that is not the server's
proves nothing (exit 1); a validly signed receipt of garbage is a proof, never a traceback.
The Node verifier (clients/node/bin/verify.js --receipts) re-renders the events as the server
does (clients/node/lib/render.js), and the views (clients/node/lib/viewrender.js), and says
the same: the same proofs, word for word, and the same statuses.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clients.python.audit import LIED, main
from clients.python.audit_receipts import Replayed
from clients.python.receipts import ReceiptLog, payload_bytes
from clients.python.serverproc import ServerProcess
from domain.table import records as rec
from domain.table.records import canonical
from domain.verify import Record
from server.wire.signing import KEY_FILE, Signer, read_key_file
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import resigned, signed_again, zipai_game_with_receipts, zipai_view_lie
from tests.api.test_equivocation import (
    LyingServer,
    honest,  # noqa: F401  (the module's fixture)
    lied_file,
)
from tests.support.nodejs import NODE_DIR, ensure_node_modules
from tests.support.records import saved_evidence


@pytest.fixture(scope="module")
def server(server_receipts_2: ServerProcess) -> ServerProcess:
    """This module reads and forges seals of format 2 (their hash lists and nonces);
    tests/api/test_receipts_v3.py holds format 3 to the same promises."""
    return server_receipts_2


Entry = tuple[pb.Receipt, bytes]
LIED_TO = 1  # the seat the planted server lies to


class RenderingLiar:
    """Renders for seat 1, at the moves ``at`` (None: every move), another value of one
    field than the record holds (a card played, else an event's text), and seals that
    rendering with ``signer``: the record keeps its facts and heads, its seals are the
    lying ones, and so are the seals every receipt of the game carries."""

    def __init__(self, signer: Signer, records: list[Record], at: set[int] | None) -> None:
        self.signer = signer
        replayed = Replayed(records)
        created = records[0].fact["data"]
        secret, salt = created["secret"], created.get("salt", "")
        self.seals: dict[int, dict[str, Any]] = {}  # by the move's last version
        self.shown: dict[int, bytes] = {}  # what seat 1 was sent instead of the record
        self.changed: dict[int, str] = {}  # "path: record X, sent Y"
        for last, first in sorted(replayed.bounds.items()):
            if at is not None and last not in at:
                continue
            payload = pb.ReceiptPayload.FromString(replayed.render(first, last, LIED_TO, "events"))
            self.changed[last] = lie_in(payload, card_only=at is not None)
            self.shown[last] = payload_bytes(events=list(payload.events))
            seal = records[last - 1].seal
            assert seal is not None
            hashes = [list(h) for h in seal["receipts"]]
            nonce = rec.receipt_nonce(secret, salt, last, LIED_TO)
            hashes[LIED_TO][0] = rec.receipt_hash(nonce, self.shown[last])
            body = rec.seal_body(seal["game_id"], first, last, seal["head"], hashes)
            self.seals[last] = {
                **seal,
                "receipts": hashes,
                "signature": signer.sign(body),
                "key_id": signer.key_id,
            }

    def export(self, honest_export: Path, path: Path) -> Path:
        """The export of the lying server: its stored seals."""
        out = []
        for line in honest_export.read_text().splitlines():
            data = json.loads(line)
            if data["version"] in self.seals:
                data["seal"] = self.seals[data["version"]]
            out.append(canonical(data) + "\n")
        path.write_text("".join(out))
        return path

    def receipts(self, log: ReceiptLog, path: Path) -> Path:
        """A seat's receipts as the lying server gave them: every receipt of a lied move
        carries the lying seal; seat 1's events are the lying rendering."""
        lied = ReceiptLog()
        for receipt, payload in log.entries:
            seal = self.seals.get(receipt.last_version)
            if seal is None:
                lied.entries.append((receipt, payload))
                continue
            forged = pb.Receipt()
            forged.CopyFrom(receipt)
            for h, sealed in zip(forged.hashes, seal["receipts"], strict=True):
                h.events = sealed[0]
            if receipt.viewer == LIED_TO and not pb.ReceiptPayload.FromString(payload).HasField(
                "view"
            ):
                payload = self.shown[receipt.last_version]
            signed_again(forged, self.signer.sign)
            forged.key_id = self.signer.key_id
            lied.entries.append((forged, payload))
        lied.save(str(path))
        return path


def lie_in(payload: pb.ReceiptPayload, card_only: bool) -> str:
    """Change one field of the payload's events: the first card played (id + 1), else (for
    a lie at every move) the last event's text. Returns what differs, as the proof says."""
    for i, event in enumerate(payload.events):
        if event.huaniao.HasField("played") and event.huaniao.played.cards:
            card = event.huaniao.played.cards[0]
            card.id = (card.id + 1) % 108
            return f"events[{i}].huaniao.played.cards[0].id: record {(card.id - 1) % 108}, sent {card.id}"
    assert not card_only, "the move chosen plays a card"
    i = len(payload.events) - 1
    record = json.dumps(payload.events[i].text, ensure_ascii=False)
    payload.events[i].text += " (as the server told seat 1)"
    return f"events[{i}].text: record {record}, sent {json.dumps(payload.events[i].text, ensure_ascii=False)}"


def a_played_move(records: list[Record], log: ReceiptLog) -> int:
    """The last version of a move that plays a card and that seat 1 holds a receipt of."""
    replayed = Replayed(records)
    held = {r.last_version for r, p in log.entries if r.viewer == LIED_TO}
    for last, first in sorted(replayed.bounds.items()):
        payload = pb.ReceiptPayload.FromString(replayed.render(first, last, LIED_TO, "events"))
        if last in held and any(e.huaniao.played.cards for e in payload.events):
            return last
    raise AssertionError("no move plays a card")


def node(export: Path, receipts: Path, key: Signer) -> tuple[int, str, str]:
    """The Node verifier's ``verify --receipts``: its status, stdout and stderr."""
    ensure_node_modules()
    cmd = ["node", str(NODE_DIR / "bin" / "verify.js"), str(export), "--receipts", str(receipts)]
    done = subprocess.run(
        [*cmd, "--public-key", key.public_key.hex()],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def run(args: list[str]) -> int:
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_a_lie_to_seat_1_in_one_field_at_one_move_is_a_proof(honest, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, records, logs, files, export, key = honest
    last = a_played_move(records, logs[1])
    first = Replayed(records).bounds[last]
    liar = RenderingLiar(key, records, {last})
    lied_export = liar.export(export, tmp_path / "game.jsonl")
    seats = [liar.receipts(log, tmp_path / f"seat{s}.receipts") for s, log in enumerate(logs)]
    pub = ["--public-key", key.public_key.hex()]
    changed = liar.changed[last]
    assert "huaniao.played.cards[0].id: record " in changed
    # every file verifies on its own: the record, and each seat's receipts against it
    assert run(["verify", "--file", str(lied_export), *pub]) == 0
    assert run(["verify", "--file", str(lied_export), "--receipts", str(seats[0]), *pub]) == LIED
    capsys.readouterr()  # (the record's own seal contradicts it: see below)

    args = ["compare", "--receipts", str(seats[0]), "--receipts", str(seats[1])]
    assert run([*args, "--file", str(lied_export), *pub]) == LIED == 3
    out = capsys.readouterr().out
    head = (
        f"PROOF: the server signed events for viewer {LIED_TO} that the record does not show, "
        f"for game {gid} at versions {first}..{last}"
    )
    assert head in out.splitlines()
    proof = out[out.index(head) :].split("\nPROOF")[0]
    assert f"  differs: {changed}" in proof.splitlines()
    assert "seat1.receipts receipt" in proof and "signed bytes " in proof
    assert f"{lied_export}, the seal of versions {first}..{last}: signed bytes" in proof
    assert proof.count(f"signature {liar.seals[last]['signature']}, key id {key.key_id}") == 2
    assert out.count("PROOF") == 1, "one move, one viewer: one proof"

    assert run(["verify", "--file", str(lied_export), "--receipts", str(seats[1]), *pub]) == LIED
    out = capsys.readouterr().out
    assert head in out and f"  differs: {changed}" in out
    # the Node verifier: the same proof, word for word, with the same status
    assert node(lied_export, seats[1], key) == (LIED, out, "")
    for seat_file in seats[:1]:  # seat 0: the record's own seal for seat 1 is the proof
        assert run(["verify", "--file", str(lied_export), "--receipts", str(seat_file), *pub]) == 3
        said = capsys.readouterr().out
        assert "is not the record's rendering" in said
        assert node(lied_export, seat_file, key) == (LIED, said, "")

    # --json: the proof's viewer, versions and differing field, both signed statements
    assert run(["--json", *args, "--file", str(lied_export), *pub]) == LIED
    found = json.loads(capsys.readouterr().out)
    assert found["agree"] is False and found["games"] == [gid]
    [proof_json] = found["proofs"]
    assert proof_json["kind"] == "rendering" and proof_json["viewer"] == LIED_TO
    assert (proof_json["first"], proof_json["last"], proof_json["version"]) == (first, last, last)
    path, rest = changed.split(": record ")
    record, sent = rest.split(", sent ")
    assert proof_json["differs"] == [{"path": path, "record": record, "sent": sent}]
    signed = proof_json["statements"]
    assert len(signed) == 2 and all(
        s["signed_bytes"].startswith("tabletop-seal/2\n") for s in signed
    )
    assert all(s["key_id"] == key.key_id for s in signed)
    assert proof_json["payload"] and len(proof_json["nonce"]) == 64
    assert (
        run(["--json", "verify", "--file", str(lied_export), "--receipts", str(seats[1]), *pub])
        == LIED
    )
    said = json.loads(capsys.readouterr().out)
    assert said["verified"] is False and said["proofs"] == found["proofs"]

    # the record alone contradicts itself: its seal signs for seat 1 what it does not show
    assert run(["compare", "--file", str(lied_export), *pub]) == LIED
    out = capsys.readouterr().out
    assert (
        f"PROOF: the server signed a seal whose events hash for viewer {LIED_TO} is not the "
        f"record's rendering, for game {gid} at versions {first}..{last}"
    ) in out
    assert f"differs: seal.receipts[{LIED_TO}][0]: record " in out


def test_a_lie_to_seat_1_at_every_move_is_a_proof_at_every_move(honest, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, records, logs, files, export, key = honest
    liar = RenderingLiar(key, records, None)
    lied_export = liar.export(export, tmp_path / "game.jsonl")
    seats = [liar.receipts(log, tmp_path / f"seat{s}.receipts") for s, log in enumerate(logs)]
    pub = ["--public-key", key.public_key.hex()]
    assert run(["verify", "--file", str(lied_export), *pub]) == 0  # the seals are signed
    capsys.readouterr()
    for args in (
        ["compare", "--receipts", str(seats[0]), "--receipts", str(seats[1]), "--file"],
        ["verify", "--receipts", str(seats[1]), "--file"],
    ):
        assert run(["--json", *args, str(lied_export), *pub]) == LIED
        proofs = json.loads(capsys.readouterr().out)["proofs"]
        assert {p["version"] for p in proofs} == set(liar.seals), "every move"
        assert {p["viewer"] for p in proofs} == {LIED_TO}
        held = {r.last_version for r, p in logs[1].entries if r.viewer == LIED_TO}
        by_receipt = {p["version"] for p in proofs if p["kind"] == "rendering"}
        assert by_receipt == held & set(liar.seals) and len(by_receipt) > 5
        for p in proofs:  # the ones seat 1 holds no receipt of: the record's seal alone
            assert p["kind"] == ("rendering" if p["version"] in held else "seal")
            if p["kind"] == "rendering":
                path, rest = liar.changed[p["version"]].split(": record ")
                assert p["differs"][0]["path"] == path
    assert run(["verify", "--receipts", str(seats[1]), "--file", str(lied_export), *pub]) == LIED
    out = capsys.readouterr().out
    assert out.count("PROOF") == len(liar.seals)
    assert node(lied_export, seats[1], key) == (LIED, out, ""), "Node: every move, word for word"


def test_honest_receipts_of_every_seat_exit_0_in_both(honest, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    gid, records, logs, files, export, key = honest
    pub = ["--public-key", key.public_key.hex()]
    args = ["compare", "--receipts", str(files[0]), "--receipts", str(files[1])]
    assert run([*args, "--file", str(export), *pub]) == 0
    assert "every payload and seal is the record's rendering" in capsys.readouterr().out
    assert run(["compare", "--file", str(export), *pub]) == 0
    for seat_file in files:
        assert run(["verify", "--file", str(export), "--receipts", str(seat_file), *pub]) == 0
        assert "receipts: " in capsys.readouterr().out
        code, out, err = node(export, seat_file, key)
        assert (code, err) == (0, ""), err
        assert "the events hashes of all " in out and "are the record's rendering" in out


def test_a_lie_signed_by_a_key_that_is_not_the_servers_proves_nothing(  # type: ignore[no-untyped-def]
    honest,  # noqa: F811
    tmp_path,
    capsys,
) -> None:
    """Anyone can sign a receipt claiming a lie with a key of their own: exit 1, not 3."""
    gid, records, logs, files, export, key = honest
    last = a_played_move(records, logs[1])
    liar = RenderingLiar(Signer.generate(), records, {last})
    seat1 = liar.receipts(logs[1], tmp_path / "seat1.receipts")
    lied_export = liar.export(export, tmp_path / "game.jsonl")
    pub = ["--public-key", key.public_key.hex()]
    assert run(["compare", "--receipts", str(files[0]), "--receipts", str(seat1), "--file",
                str(export), *pub]) == 1  # fmt: skip
    assert "not signed by the given server key" in capsys.readouterr().err
    assert run(["verify", "--file", str(export), "--receipts", str(seat1), *pub]) == 1
    assert "not signed by the given server key" in capsys.readouterr().err
    assert run(["compare", "--file", str(lied_export), *pub]) == 1  # its seals: not the key's
    assert run(["verify", "--file", str(lied_export), "--receipts", str(seat1), *pub]) == 1
    for record in (export, lied_export):
        code, out, err = node(record, seat1, key)
        assert (code, out) == (1, "") and (
            "not signed by" in err or "none of the given keys" in err
        )


def garbage_receipts(log: ReceiptLog, sign: Any, key_id: str, path: Path) -> tuple[Path, int]:
    """Seat 1's receipts with one move's events replaced by bytes that are not a message,
    the seal's hash for them made and signed by ``sign``. Returns the file and the move."""
    garbage = b"\xff" * 8
    with pytest.raises(Exception):  # noqa: B017 (whatever the protobuf runtime raises)
        pb.ReceiptPayload.FromString(garbage)
    out = ReceiptLog()
    out.entries = list(log.entries)
    i, (receipt, _) = next(
        (i, e)
        for i, e in enumerate(log.entries)
        if e[0].viewer == LIED_TO and not pb.ReceiptPayload.FromString(e[1]).HasField("view")
    )
    forged = resigned(receipt, sign, "events", rec.receipt_hash(bytes(receipt.nonce), garbage))
    forged.key_id = key_id
    out.entries[i] = (forged, garbage)
    out.save(str(path))
    return path, receipt.last_version


def test_a_validly_signed_receipt_of_garbage_is_a_proof_not_a_traceback(  # type: ignore[no-untyped-def]
    honest,  # noqa: F811
    tmp_path,
    capsys,
) -> None:
    gid, records, logs, files, export, key = honest
    seat1, last = garbage_receipts(logs[1], key.sign, key.key_id, tmp_path / "seat1.receipts")
    pub = ["--public-key", key.public_key.hex()]
    head = (
        f"PROOF: the server signed a hash of bytes that are not a message as viewer {LIED_TO}'s "
        f"events, for game {gid} at versions "
    )
    # without the record: the server signed garbage (and another seal than seat 0's)
    assert run(["compare", "--receipts", str(files[0]), "--receipts", str(seat1), *pub]) == LIED
    out = capsys.readouterr().out
    assert (
        head in out and "differs: payload: record a ReceiptPayload, sent bytes that are not" in out
    )
    # with the record, and through verify --receipts: the same, against the record's seal
    for args in (
        ["compare", "--receipts", str(files[0]), "--receipts", str(seat1)],
        ["verify", "--receipts", str(seat1)],
    ):
        assert run([*args, "--file", str(export), *pub]) == LIED
        out = capsys.readouterr().out
        assert f"{head}" in out and f"..{last}" in out and "Traceback" not in out
    code, out, err = node(export, seat1, key)
    assert (code, err) == (LIED, "") and head in out and f"..{last}" in out
    assert (
        run(["--json", "compare", "--receipts", str(seat1), "--receipts", str(files[0]), *pub])
        == LIED
    )
    kinds = {p.get("kind") for p in json.loads(capsys.readouterr().out)["proofs"]}
    assert "garbage" in kinds
    # garbage signed by another key proves nothing
    other = Signer.generate()
    forged, _ = garbage_receipts(logs[1], other.sign, other.key_id, tmp_path / "other.receipts")
    assert run(["compare", "--receipts", str(files[0]), "--receipts", str(forged), *pub]) == 1
    assert "not signed by the given server key" in capsys.readouterr().err


def test_a_lie_in_a_view_is_a_proof_against_the_views_own_signature(  # type: ignore[no-untyped-def]
    honest,  # noqa: F811
    tmp_path,
    capsys,
) -> None:
    """A view is signed on its own (tabletop-view/1): a view shown to seat 1 with another
    seat awaited than the record's, signed with the real key, is a proof naming the view's
    field and the view's signed bytes; the Node verifier prints the same proof."""
    gid, records, logs, files, export, key = honest
    i, (receipt, payload) = next(
        (i, e)
        for i, e in enumerate(logs[1].entries)
        if e[0].viewer == LIED_TO and pb.ReceiptPayload.FromString(e[1]).HasField("view")
    )
    shown = pb.ReceiptPayload.FromString(payload)
    shown.view.to_act[:] = [7]
    lied = payload_bytes(view=shown.view)
    forged = resigned(receipt, key.sign, "view", rec.receipt_hash(bytes(receipt.nonce), lied))
    log = ReceiptLog()
    log.entries = list(logs[1].entries)
    log.entries[i] = (forged, lied)
    seat1 = tmp_path / "seat1.receipts"
    log.save(str(seat1))
    pub = ["--public-key", key.public_key.hex()]
    for args in (
        ["compare", "--receipts", str(files[0]), "--receipts", str(seat1)],
        ["verify", "--receipts", str(seat1)],
    ):
        assert run(["--json", *args, "--file", str(export), *pub]) == LIED
        [proof] = json.loads(capsys.readouterr().out)["proofs"]
        assert (proof["kind"], proof["part"], proof["viewer"]) == ("rendering", "view", LIED_TO)
        assert proof["version"] == receipt.last_version
        assert [d["path"] for d in proof["differs"]][-1].startswith("view.to_act")
        assert proof["statements"][0]["signed_bytes"].startswith("tabletop-view/1\n")
        assert proof["statements"][1]["signed_bytes"].startswith("tabletop-seal/2\n")
    assert run(["verify", "--file", str(export), "--receipts", str(seat1), *pub]) == LIED
    out = capsys.readouterr().out
    assert "  differs: view.to_act" in out
    assert node(export, seat1, key) == (LIED, out, "")
    assert run(["compare", "--receipts", str(files[0]), "--receipts", str(seat1), "--file",
                str(export), *pub]) == LIED  # fmt: skip
    assert node_compare([files[0], seat1], export, key) == (LIED, capsys.readouterr().out, "")


def test_signed_mutations_of_a_payload_never_end_in_a_traceback(honest, tmp_path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """Seeded and bounded: seat 1's events payload cut, flipped, extended or replaced by
    random bytes, each hashed and signed with the real key. Every one is a proof against the
    record (status 3, never a traceback); without the record, status 0 or 3."""
    import random

    gid, records, logs, files, export, key = honest
    rng = random.Random(36)
    i, (receipt, payload) = next(
        (i, e)
        for i, e in enumerate(logs[1].entries)
        if e[0].viewer == LIED_TO and not pb.ReceiptPayload.FromString(e[1]).HasField("view")
    )
    mutations = [
        payload[: len(payload) // 2],
        payload + b"\x00",
        payload + b"\x08\x01",
        rng.randbytes(40),
        b"",
        b"\x0a",
    ]
    for _ in range(4):
        flipped = bytearray(payload)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        mutations.append(bytes(flipped))
    pub = ["--public-key", key.public_key.hex()]
    for n, mutated in enumerate(mutations):
        forged = resigned(
            receipt, key.sign, "events", rec.receipt_hash(bytes(receipt.nonce), mutated)
        )
        log = ReceiptLog()
        log.entries = [*logs[1].entries[:i], (forged, mutated), *logs[1].entries[i + 1 :]]
        seat1 = tmp_path / f"seat1.{n}.receipts"
        log.save(str(seat1))
        both = ["compare", "--receipts", str(files[0]), "--receipts", str(seat1)]
        assert run([*both, "--file", str(export), *pub]) == LIED, n
        assert run(["verify", "--file", str(export), "--receipts", str(seat1), *pub]) == LIED, n
        code, out, err = node(export, seat1, key)
        assert (code, err) == (LIED, "") and out.startswith("PROOF: "), (n, err)
        assert run(both + pub) in (0, LIED), n


def test_two_histories_shown_to_seat_1_are_the_same_proof_in_node(  # type: ignore[no-untyped-def]
    honest,  # noqa: F811
    tmp_path,
    capsys,
) -> None:
    """The key holder shows seat 1 another history (other chain heads from a version on,
    test_equivocation.py's LyingServer): both verifiers print the same proofs, word for word,
    and exit 3."""
    gid, records, logs, files, export, key = honest
    own = sorted({r.last_version for r, _ in logs[1].entries})
    liar = LyingServer(key, records, own[len(own) // 2])
    lied = lied_file(logs, liar, tmp_path / "seat1.receipts")
    pub = ["--public-key", key.public_key.hex()]
    assert run(["verify", "--file", str(export), "--receipts", str(lied), *pub]) == LIED
    out = capsys.readouterr().out
    assert out.startswith(f"PROOF: the server signed two different chain heads for game {gid}")
    assert node(export, lied, key) == (LIED, out, "")


def test_node_re_renders_a_huaniao_games_views(honest) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """The Node verifier re-renders every view receipt of a 花鸟风月 game too (as tabletop-audit
    does, test_a_lie_in_a_view_is_a_proof_against_the_views_own_signature) and says how many
    in its line: none is left to its signed hash alone."""
    gid, records, logs, files, export, key = honest
    views = sum(pb.ReceiptPayload.FromString(p).HasField("view") for _, p in logs[1].entries)
    assert views > 0
    code, out, err = node(export, files[1], key)
    assert (code, err) == (0, "")
    assert f"; {views} view receipt(s) re-rendered: the record's view for their viewer" in out
    assert "checked by their signed hash only" not in out


@pytest.fixture(scope="module")
def honest_zipai(server, tmp_path_factory):  # type: ignore[no-untyped-def]
    """A finished 2-seat 川南字牌 game with a report upheld after the deal: the export and each
    seat's receipts (views included: of the open case, with its deadline, and the penalty)."""
    gid, logs, lines = zipai_game_with_receipts(server.target, 2, 36, report=True)
    where = tmp_path_factory.mktemp("zipai")
    files, export = saved_evidence(where, logs, lines)
    key = Signer(read_key_file(server.data_dir / KEY_FILE))
    return gid, logs, files, export, key


def node_compare(files: list[Path], export: Path, key: Signer) -> tuple[int, str, str]:
    """The Node verifier's ``compare``: its status, stdout and stderr."""
    ensure_node_modules()
    cmd = ["node", str(NODE_DIR / "bin" / "verify.js"), "compare"]
    cmd += [x for f in files for x in ("--receipts", str(f))]
    done = subprocess.run(
        [*cmd, "--file", str(export), "--public-key", key.public_key.hex()],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def test_zipai_view_receipts_are_re_rendered_by_both_verifiers(honest_zipai, capsys) -> None:  # type: ignore[no-untyped-def]
    """Honest: every seat's 川南字牌 view receipts are the record's views (exit 0); Node says
    it re-rendered each of them, none left to its signed hash. Among them the views of an
    open case: its deadline follows from the record's times (tabletop-audit once rendered
    them without it, and called the honest server a liar)."""
    gid, logs, files, export, key = honest_zipai
    pub = ["--public-key", key.public_key.hex()]
    for log, seat_file in zip(logs, files, strict=True):
        shown = [pb.ReceiptPayload.FromString(p) for _, p in log.entries]
        views = sum(p.HasField("view") for p in shown)
        assert views > 1 and any(p.view.HasField("case_deadline") for p in shown)
        assert any(p.view.penalties for p in shown)
        assert run(["verify", "--file", str(export), "--receipts", str(seat_file), *pub]) == 0
        code, out, err = node(export, seat_file, key)
        assert (code, err) == (0, ""), err
        assert f"; {views} view receipt(s) re-rendered: the record's view for their viewer" in out
        assert "checked by their signed hash only" not in out
    assert node_compare(files, export, key)[0] == 0
    assert run(["compare", *(x for f in files for x in ("--receipts", str(f))), "--file",
                str(export), *pub]) == 0  # fmt: skip
    capsys.readouterr()


def test_a_lie_in_a_zipai_view_is_the_same_proof_in_both_verifiers(  # type: ignore[no-untyped-def]
    honest_zipai,
    tmp_path,
    capsys,
) -> None:
    """Seat 1 is shown another card in its own hand in a view, validly signed (the view's own
    signature, tabletop-view/1): `verify --receipts` and `compare` exit 3 in Python and Node
    with the same proof, word for word, naming the card's field, both signed statements."""
    gid, logs, files, export, key = honest_zipai
    i, (receipt, payload), (lied, changed) = next(
        (i, e, found)
        for i, e in enumerate(logs[LIED_TO].entries)
        if e[0].viewer == LIED_TO and (found := zipai_view_lie(e[1])) is not None
    )
    forged = resigned(receipt, key.sign, "view", rec.receipt_hash(bytes(receipt.nonce), lied))
    log = ReceiptLog()
    log.entries = list(logs[LIED_TO].entries)
    log.entries[i] = (forged, lied)
    seat1 = tmp_path / "seat1.receipts"
    log.save(str(seat1))
    pub = ["--public-key", key.public_key.hex()]
    last = receipt.last_version
    assert run(["verify", "--file", str(export), "--receipts", str(seat1), *pub]) == LIED
    out = capsys.readouterr().out
    head = (
        f"PROOF: the server signed view for viewer {LIED_TO} that the record does not show, "
        f"for game {gid} at versions {receipt.first_version}..{last}"
    )
    assert out.splitlines()[0] == head and f"  differs: {changed}" in out.splitlines()
    assert out.count("PROOF") == 1 and "tabletop-view/1" in out and "tabletop-seal/2" in out
    assert node(export, seat1, key) == (LIED, out, "")
    args = ["compare", "--receipts", str(files[0]), "--receipts", str(seat1)]
    assert run([*args, "--file", str(export), *pub]) == LIED
    out = capsys.readouterr().out
    assert head in out and f"  differs: {changed}" in out
    assert node_compare([files[0], seat1], export, key) == (LIED, out, "")


def test_a_validly_signed_view_of_garbage_is_the_same_proof_in_both(  # type: ignore[no-untyped-def]
    honest_zipai,
    tmp_path,
    capsys,
) -> None:
    """A view receipt whose signed hash covers bytes that are not a message: both verifiers
    name the size of the record's view for that viewer, word for word but for their
    protobuf runtimes' own words for why the bytes do not decode."""
    gid, logs, files, export, key = honest_zipai
    i, (receipt, _payload) = next(
        (i, e)
        for i, e in enumerate(logs[LIED_TO].entries)
        if pb.ReceiptPayload.FromString(e[1]).HasField("view")
    )
    garbage = b"\xff" * 8
    forged = resigned(receipt, key.sign, "view", rec.receipt_hash(bytes(receipt.nonce), garbage))
    log = ReceiptLog()
    log.entries = list(logs[LIED_TO].entries)
    log.entries[i] = (forged, garbage)
    seat1 = tmp_path / "seat1.receipts"
    log.save(str(seat1))
    pub = ["--public-key", key.public_key.hex()]
    assert run(["verify", "--file", str(export), "--receipts", str(seat1), *pub]) == LIED
    out = capsys.readouterr().out
    assert f"as viewer {LIED_TO}'s view, for game {gid}" in out
    assert (
        "  differs: payload: record a ReceiptPayload of " in out and "bytes that are not a" in out
    )
    code, said, err = node(export, seat1, key)
    assert (code, err) == (LIED, "")
    why = re.compile(r"sent bytes that are not a message \(.*\)")
    assert why.sub("", said) == why.sub("", out) and why.search(said)
