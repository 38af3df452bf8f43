"""Receipts of format 3 through a real server (``--receipt-format 3``; docs/api.md, "Receipts
of format 3"): a seal of the chain head alone per move, and per viewer one signature over the
SHA-256 of exactly the bytes it was sent.

One 4-seat game, seats playing from their own streams (own moves left out, keyed seats signing
over the heads their receipts carry), every seat keeping a ReceiptLog. Then: the export (seals
of format 3) verifies; every seat's receipts verify against it and together cover the whole
game; a receipt carries nothing of another viewer; a lie told to one seat, signed, is a proof
(exit 3 in ``verify --receipts`` and ``compare``); two receipts with two heads for one version
are an equivocation; an altered payload or a receipt moved to another game fails.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from clients.python.audit import main
from clients.python.audit_receipts import Replayed, check_receipts
from clients.python.audit_verify import signing_key
from clients.python.bot import RandomBot, play_by_streams
from clients.python.client import TableClient, reveal_and_start
from clients.python.equivocation import prove
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog, check_payload, check_signature, parse_receipts
from clients.python.serverproc import ServerProcess
from domain.table import records
from domain.verify import AuditFailure, parse_export, verify
from server.wire.signedcommands import read_signed_command
from server.wire.signing import KEY_FILE, Signer, read_key_file
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options

Entry = tuple[pb.Receipt, bytes]
SEATS = 4
WIRE_FIELDS = {"first_version", "last_version", "viewer", "head", "signature"}


@pytest.fixture(scope="module")
def v3(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    proc = ServerProcess(
        tmp_path_factory.mktemp("v3"),
        extra=["--allow-prepared-deals", "--receipt-format", "3"],
    ).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def game(v3, tmp_path_factory):  # type: ignore[no-untyped-def]
    logs = [ReceiptLog() for _ in range(SEATS)]
    with TableClient(v3.target) as client:
        created = client.create_game(huaniao_options("BASIC"), SEATS, seed=21)
        gid = created.game_id
        seats = [client.join(gid, s, contribution=f"k{s}", receipts=logs[s]) for s in range(SEATS)]
        reveal_and_start(seats)
        bots = [RandomBot(s, 7 + i) for i, s in enumerate(seats)]
        assert play_by_streams(bots, 300, exclude_own_moves=True) >= 1
        for s in seats:
            s.view()  # a view's receipt (the game is over: the arbiter's rendering)
        lines = list(export_lines(client.as_viewer(gid).history()))
        key = signing_key(client)
    rs = parse_export(lines)
    verify(rs, key, gid, command_reader=read_signed_command)
    folder = tmp_path_factory.mktemp("v3files")
    export = folder / "game.jsonl"
    export.write_text("".join(line + "\n" for line in lines))
    files = []
    for s, log in enumerate(logs):
        files.append(folder / f"seat{s}.receipts")
        log.save(str(files[-1]))
    signer = Signer(read_key_file(v3.data_dir / KEY_FILE))
    assert signer.public_key == key
    return gid, rs, key, logs, export, files, signer


def run(args: list[str]) -> int:
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_the_record_has_seals_of_the_head_alone_and_verifies(game) -> None:  # type: ignore[no-untyped-def]
    _, rs, key, _, export, _, _ = game
    seals = [r.seal for r in rs if r.seal]
    assert seals and all("receipts" not in s for s in seals)
    assert run(["verify", "--file", str(export), "--public-key", key.hex()]) == 0


def test_every_seats_receipts_verify_and_cover_the_game(game) -> None:  # type: ignore[no-untyped-def]
    _, rs, key, logs, _, _, _ = game
    final = len(rs)
    for seat, log in enumerate(logs):
        assert log.counts["play"] >= 1 and log.counts["watch"] >= 1, (seat, log.counts)
        report = check_receipts(rs, log.entries, key)
        assert report.receipts == len(log.entries)
        covered = {v for r, _ in log.entries for v in range(r.first_version, r.last_version + 1)}
        assert covered == set(range(1, final + 1)), (
            seat,
            sorted(set(range(1, final + 1)) - covered),
        )
        # its own seat's rendering while the game ran, the arbiter's once it was over
        assert set(report.viewers) <= {seat, SEATS + 1}


def test_a_receipt_carries_nothing_of_another_viewer(game) -> None:  # type: ignore[no-untyped-def]
    """No list of every viewer's hashes, no nonce: a receipt names its head, its versions,
    its viewer and one signature over the hash of its own viewer's bytes (the saved copy
    adds the game id, which the wire leaves out). The seal lists no viewer's hash either."""
    _, rs, _, logs, _, _, _ = game
    for log in logs:
        for receipt, _ in log.entries:
            sent = {f.name for f, _ in receipt.ListFields()} - {"game_id", "tree_head"}
            assert sent <= WIRE_FIELDS and {"head", "signature"} <= sent, sent
            assert len(receipt.head) == 32 and len(receipt.signature) == 64


def test_each_receipt_checks_on_arrival_and_an_altered_one_fails(game) -> None:  # type: ignore[no-untyped-def]
    gid, rs, key, logs, _, _, _ = game
    for receipt, payload in logs[2].entries:
        check_signature(receipt, key, payload, gid)
        assert check_payload(receipt, payload) in ("events", "view")
    receipt, payload = logs[2].entries[len(logs[2].entries) // 2]
    parsed = pb.ReceiptPayload.FromString(payload)
    if parsed.HasField("view"):
        parsed.view.version += 1
    else:
        parsed.events[0].text += " (edited)"
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        check_signature(receipt, key, parsed.SerializeToString(deterministic=True), gid)
    other = pb.Receipt()
    other.CopyFrom(receipt)
    other.game_id = "00000000-0000-0000-0000-000000000000"
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        check_signature(other, key, payload)
    moved = pb.Receipt()
    moved.CopyFrom(receipt)
    moved.viewer = (receipt.viewer + 1) % SEATS
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        check_receipts(rs, [(moved, payload)], key)


def lie_to(entries: list[Entry], signer: Signer, gid: str) -> tuple[list[Entry], int]:
    """Seat's entries with one events receipt's payload changed (an event's readable line)
    and signed again with the server's own key: what a lying server hands a seat."""
    out = list(entries)
    for i, (receipt, payload) in enumerate(out):
        parsed = pb.ReceiptPayload.FromString(payload)
        if parsed.HasField("view") or not parsed.events:
            continue
        parsed.events[-1].text = "seat 3 passes"
        lied = parsed.SerializeToString(deterministic=True)
        forged = pb.Receipt()
        forged.CopyFrom(receipt)
        body = records.receipt_body(
            gid,
            receipt.first_version,
            receipt.last_version,
            receipt.head.hex(),
            receipt.viewer,
            hashlib.sha256(lied).hexdigest(),
        )
        forged.signature = bytes.fromhex(signer.sign(body))
        out[i] = (forged, lied)
        return out, receipt.last_version
    raise AssertionError("no events receipt")


def save(entries: list[Entry], path: Path) -> Path:
    log = ReceiptLog()
    log.entries = entries
    log.save(str(path))
    return path


def test_a_signed_lie_to_one_seat_is_a_proof(game, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    gid, rs, key, logs, export, files, signer = game
    lied, last = lie_to(logs[1].entries, signer, gid)
    seat1 = save(lied, tmp_path / "seat1.receipts")
    pub = ["--public-key", key.hex()]
    assert run(["verify", "--file", str(export), "--receipts", str(files[1]), *pub]) == 0
    capsys.readouterr()
    assert run(["verify", "--file", str(export), "--receipts", str(seat1), *pub]) == 3
    out = capsys.readouterr().out
    assert "PROOF: the server signed events for viewer 1 that the record does not show" in out
    assert "at versions " in out and "text: record " in out
    compare = ["compare", "--receipts", str(files[0]), "--receipts", str(seat1)]
    assert run([*compare, "--file", str(export), *pub]) == 3
    out = capsys.readouterr().out
    assert out.count("PROOF") == 1 and "tabletop-receipt/3" in out
    # the honest seats agree with the record
    honest = ["compare", *(x for f in files for x in ("--receipts", str(f)))]
    assert run([*honest, "--file", str(export), *pub]) == 0


def test_two_heads_for_one_version_are_an_equivocation(game) -> None:  # type: ignore[no-untyped-def]
    """The key holder signs seat 2 a receipt over another head at a version the record
    seals: the two signed statements prove the server signed two histories."""
    gid, rs, key, logs, export, _, signer = game
    receipt, payload = next(
        (r, p) for r, p in logs[2].entries if not pb.ReceiptPayload.FromString(p).HasField("view")
    )
    forged = pb.Receipt()
    forged.CopyFrom(receipt)
    forged.head = hashlib.sha256(b"another history").digest()
    body = records.receipt_body(
        gid,
        receipt.first_version,
        receipt.last_version,
        forged.head.hex(),
        receipt.viewer,
        hashlib.sha256(payload).hexdigest(),
    )
    forged.signature = bytes.fromhex(signer.sign(body))
    _, proofs = prove(rs, str(export), [("seat2", [(forged, payload)])], key)
    heads = [p for p in proofs if getattr(p, "what", "") == "two different chain heads"]
    assert heads and heads[0].version == receipt.last_version


def test_saved_lines_name_their_game(game) -> None:  # type: ignore[no-untyped-def]
    gid, _, _, _, _, files, _ = game
    lines = files[0].read_text().splitlines()
    assert all(set(json.loads(line)) == {"payload", "receipt"} for line in lines)
    assert all(r.game_id == gid for r, _ in parse_receipts(lines))


def test_no_seat_of_a_format_3_server_receives_a_card_it_may_not_see(v3) -> None:  # type: ignore[no-untyped-def]
    """The leak hunt (tests/api/leakhunt.py) over a --receipt-format 3 server: what the
    streams send is rendered and signed apart from the seals, so it is hunted too."""
    from tabletop.zipai.v1 import zipai_pb2 as zp
    from tests.api.leakhunt import hunt

    checks, leaks = 0, []
    with TableClient(v3.target) as client:
        for i in range(8):
            options = huaniao_options("SIMPLE" if i % 2 else "BASIC")
            result = hunt(client, options, 4, 40_000 + i)
            checks += result.checks
            leaks += result.leaks
        for seats in (2, 3):
            result = hunt(client, pb.GameOptions(zipai=zp.Options()), seats, 41_000 + seats)
            checks += result.checks
            leaks += result.leaks
    print(f"format 3: 10 games, {checks} messages checked, {len(leaks)} leaks")
    assert checks > 10 * 20
    assert not leaks, "\n".join(leaks[:20])


def node(*args: str) -> tuple[int, str, str]:
    """`node bin/verify.js ARGS`: its status, stdout and stderr."""
    import subprocess

    from tests.support.nodejs import NODE_DIR, ensure_node_modules

    ensure_node_modules()
    done = subprocess.run(
        ["node", str(NODE_DIR / "bin" / "verify.js"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def python(capsys, *args: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    status = run(list(args))
    return status, capsys.readouterr().out


def test_node_agrees_word_for_word(game, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The Node verifier reads seals and receipts of format 3 as Python does: the honest
    export and receipts verify, the lie to seat 1 is the same proof with the same status."""
    gid, _, key, logs, export, files, signer = game
    pub = ("--public-key", key.hex())
    status, out, err = node(str(export), "--receipts", str(files[3]), *pub)
    assert status == 0 and f"receipts: {len(logs[3].entries)} verified" in out, (out, err)
    lied, _ = lie_to(logs[1].entries, signer, gid)
    seat1 = save(lied, tmp_path / "seat1.receipts")
    py = python(capsys, "verify", "--file", str(export), "--receipts", str(seat1), *pub)
    js = node(str(export), "--receipts", str(seat1), *pub)
    assert py[0] == 3 and (js[0], js[1]) == py, (py, js)
    args = ("--receipts", str(files[0]), "--receipts", str(seat1), "--file", str(export), *pub)
    py = python(capsys, "compare", *args)
    js = node("compare", *args)
    assert py[0] == 3 and (js[0], js[1]) == py, (py, js)
    honest = (*(x for f in files for x in ("--receipts", str(f))), "--file", str(export), *pub)
    py = python(capsys, "compare", *honest)
    js = node("compare", *honest)
    assert py[0] == 0 and (js[0], js[1]) == py, (py, js)


def test_the_format_3_vector() -> None:
    """docs/api.md, "Receipts of format 3": the worked vector, byte for byte."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    event = pb.GameEvent(version=12, text="seat 1 诵 鸟+鸟 (2)")
    event.recorded_at.seconds = 1796601600
    payload = pb.ReceiptPayload(events=[event]).SerializeToString(deterministic=True)
    assert (
        payload.hex() == "0a22080c12060880eed7d8061a1673656174203120e8afb520e9b89f2be9b89f20283229"
    )
    digest = hashlib.sha256(payload).hexdigest()
    assert digest == "dd24244807cf3483f4400de9f71c36ee891f4545ce2e57a34f77c41345831d81"
    head = hashlib.sha256(b"head").hexdigest()
    gid = "0b5c3f4e-8d2a-4c6b-9e1f-2a3b4c5d6e7f"
    body = records.receipt_body(gid, 12, 12, head, 1, digest)
    assert body == (
        b'tabletop-receipt/3\n{"first":12,"game_id":"'
        + gid.encode()
        + b'","head":"'
        + head.encode()
        + b'","last":12,"payload":"'
        + digest.encode()
        + b'","viewer":1}'
    )
    signature = key.sign(body)
    assert signature.hex().startswith("64a89ee34e16a94a") and signature.hex().endswith("f773eae40b")
    wire = pb.Receipt(
        first_version=12, last_version=12, viewer=1, head=bytes.fromhex(head), signature=signature
    )
    assert len(wire.SerializeToString()) == 106
    public = key.public_key().public_bytes_raw()
    assert public.hex() == "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
    check_signature(wire, public, payload, gid)
    assert records.seal_body(gid, 12, 12, head, None).startswith(b'tabletop-seal/3\n{"first":12,')


def test_verify_receipts_checks_the_tree_heads_they_carry(game, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """issue 36: the tree heads a view's receipts carry are checked by `verify --receipts`:
    one not signed by a given key fails (exit 1); two signed heads of one log and size with
    different roots are a fork of the log (exit 3). Node's `verify --receipts` agrees: the
    same status, the same proof word for word, the same reason."""
    from domain import translog

    gid, _, key, logs, export, files, signer = game
    entries = list(logs[0].entries)
    at = next(i for i, (r, _) in enumerate(entries) if r.HasField("tree_head"))
    pub = ["--public-key", key.hex()]
    assert run(["verify", "--file", str(export), "--receipts", str(files[0]), *pub]) == 0
    heads = re.search(
        r"(\d+) tree head\(s\) they carry signed and consistent", capsys.readouterr().out
    )
    assert heads and int(heads[1]) >= 1
    status, out, err = node(str(export), "--receipts", str(files[0]), *pub)
    assert status == 0 and f"; {heads[0]}" in out, (out, err)

    receipt, payload = entries[at]
    unsigned = pb.Receipt()
    unsigned.CopyFrom(receipt)
    unsigned.tree_head.signature = bytes(64)
    path = save([*entries[:at], (unsigned, payload), *entries[at + 1 :]], tmp_path / "u.receipts")
    assert run(["verify", "--file", str(export), "--receipts", str(path), *pub]) == 1
    reason = capsys.readouterr().err
    assert "is not signed by a given key" in reason
    status, out, err = node(str(export), "--receipts", str(path), *pub)
    assert status == 1 and f"{path} receipt {at + 1}: its tree head of log" in err, (out, err)
    assert "is not signed by a given key" in err and not out, (out, err)

    forked = pb.Receipt()
    forked.CopyFrom(receipt)
    head = forked.tree_head
    head.root = hashlib.sha256(b"another log").digest()
    body = translog.tree_head_body(head.log_id, head.root.hex(), head.size, head.timestamp_ms)
    head.signature = bytes.fromhex(signer.sign(body))
    path = save([*entries, (forked, payload)], tmp_path / "f.receipts")
    py = python(capsys, "verify", "--file", str(export), "--receipts", str(path), *pub)
    assert py[0] == 3 and "PROOF: the server signed two different tree heads for log" in py[1]
    js = node(str(export), "--receipts", str(path), *pub)
    assert (js[0], js[1]) == py, (py, js)


@pytest.mark.parametrize("batched", [False, True])
def test_a_stream_resumed_in_the_middle_of_a_move_is_receipted(game, v3, batched) -> None:  # type: ignore[no-untyped-def]
    """A Watch from a version inside a move (a dropped unbatched stream resumes so): its
    first receipt starts there, and every receipt of the stream verifies against the
    record, covering every version from there to the end, and nothing twice."""
    gid, rs, key, _, _, _, _ = game
    moves = sorted(Replayed(rs).bounds.items())
    inside = next(first for last, first in moves if last - first >= 2)  # a move of 3 events+
    log = ReceiptLog()
    with TableClient(v3.target) as client:
        viewer = client.as_viewer(gid)
        request = pb.WatchRequest(game_id=gid, after_version=inside, batched=batched)
        for reply in viewer.stub.Watch(request, metadata=viewer.metadata):
            log.watched(reply, gid)
    assert log.entries and log.entries[0][0].first_version == inside + 1
    report = check_receipts(rs, log.entries, key)
    assert report.receipts == len(log.entries)
    covered = [v for r, _ in log.entries for v in range(r.first_version, r.last_version + 1)]
    assert covered == list(range(inside + 1, len(rs) + 1))


def test_a_one_hand_stream_leaves_the_game_id_out_and_a_match_stream_names_it(game, v3) -> None:  # type: ignore[no-untyped-def]
    gid, *_ = game
    with TableClient(v3.target) as client:
        viewer = client.as_viewer(gid)
        plain = list(viewer.stub.Watch(pb.WatchRequest(game_id=gid), metadata=viewer.metadata))
        named = list(
            viewer.stub.Watch(
                pb.WatchRequest(game_id=gid, follow_match=True), metadata=viewer.metadata
            )
        )
    assert plain and all(not m.game_id for m in plain)
    events = [m for m in named if m.HasField("event")]
    assert events and all(m.game_id == gid for m in events)


def test_the_node_client_plays_on_a_format_3_server(v3) -> None:  # type: ignore[no-untyped-def]
    """The Node client against this module's --receipt-format 3 server (lib/client.js, acks.js,
    bot.js): keyed seats sign their Plays over the heads their receipts carry (events come
    without hashes), play whole games from their own streams (with their own moves left out
    too), a reveal's acknowledgement is checked on the reply's bytes (and an altered event,
    another game or another key fails it), and a dropped stream resumes with no gap (its
    end: a message with the receipt alone). The whole Node suite runs against a format-2
    server in tests/api/test_node_client.py."""
    import os
    import subprocess

    from tests.support.nodejs import NODE_DIR, ensure_node_modules

    ensure_node_modules()
    files = ["test/streams.test.js", "test/signed.test.js", "test/watch.test.js"]
    done = subprocess.run(
        ["node", "--test", "--test-reporter=spec", *files],
        cwd=NODE_DIR,
        env={**os.environ, "TABLETOP_TARGET": v3.target},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    output = done.stdout + done.stderr
    counts = {
        k: int(v) for k, v in re.findall(r"^\S*\s*(tests|pass|fail|skipped) (\d+)$", output, re.M)
    }
    assert done.returncode == 0 and counts.get("fail") == 0, output[-6000:]
    assert counts.get("skipped") == 0 and counts.get("pass", 0) >= 8, output[-4000:]
    assert counts["pass"] == counts["tests"], output[-4000:]


@pytest.fixture(scope="module")
def zipai_game(v3, tmp_path_factory):  # type: ignore[no-untyped-def]
    """A finished 2-seat 川南字牌 game on the format-3 server, a report upheld after the deal:
    the export and each seat's receipts (their views of the open case and the penalty too)."""
    from tests.api.helpers import zipai_game_with_receipts

    gid, logs, lines = zipai_game_with_receipts(v3.target, 2, 41, report=True)
    folder = tmp_path_factory.mktemp("v3zipai")
    export = folder / "game.jsonl"
    export.write_text("".join(line + "\n" for line in lines))
    files = [save(log.entries, folder / f"seat{s}.receipts") for s, log in enumerate(logs)]
    signer = Signer(read_key_file(v3.data_dir / KEY_FILE))
    return gid, logs, export, files, signer


def test_node_re_renders_zipai_views_of_format_3_and_a_lie_is_the_same_proof(  # type: ignore[no-untyped-def]
    zipai_game,
    tmp_path,
    capsys,
) -> None:
    """Each 川南字牌 view receipt of format 3 (its own signature over the view's bytes) is
    re-rendered by Node (exit 0, the line says how many); a view showing seat 1 another card
    of its own hand, signed with the server's key, is the same proof in Python and Node."""
    from tests.api.helpers import zipai_view_lie

    gid, logs, export, files, signer = zipai_game
    pub = ("--public-key", signer.public_key.hex())
    for log, seat_file in zip(logs, files, strict=True):
        views = sum(pb.ReceiptPayload.FromString(p).HasField("view") for _, p in log.entries)
        status, out, err = node(str(export), "--receipts", str(seat_file), *pub)
        assert (status, err) == (0, "") and views > 1, (out, err)
        assert f"; {views} view receipt(s) re-rendered: the record's view for their viewer" in out
        assert (
            python(capsys, "verify", "--file", str(export), "--receipts", str(seat_file), *pub)[0]
            == 0
        )
    entries = list(logs[1].entries)
    i, (receipt, lied, changed) = next(
        (i, (r, *found))
        for i, (r, p) in enumerate(entries)
        if (found := zipai_view_lie(p)) is not None
    )
    forged = pb.Receipt()
    forged.CopyFrom(receipt)
    body = records.receipt_body(
        gid, receipt.last_version, receipt.last_version, receipt.head.hex(), receipt.viewer,
        hashlib.sha256(lied).hexdigest(),
    )  # fmt: skip
    forged.signature = bytes.fromhex(signer.sign(body))
    entries[i] = (forged, lied)
    seat1 = save(entries, tmp_path / "seat1.receipts")
    py = python(capsys, "verify", "--file", str(export), "--receipts", str(seat1), *pub)
    assert py[0] == 3 and f"  differs: {changed}" in py[1].splitlines(), py
    assert "PROOF: the server signed view for viewer 1 that the record does not show" in py[1]
    assert node(str(export), "--receipts", str(seat1), *pub) == (3, py[1], "")
    args = ("--receipts", str(files[0]), "--receipts", str(seat1), "--file", str(export), *pub)
    py = python(capsys, "compare", *args)
    assert py[0] == 3 and "tabletop-receipt/3" in py[1]
    assert node("compare", *args) == (3, py[1], "")
