"""Audit over the API: export, verify against the server's key, and forged copies that fail.

The forgers here hold the complete export (so the revealed secret and the chain key) and
the published engine: whatever they rewrite, they can recompute every chain hash. What
they cannot do is sign with the server's key, and each forged history is rejected for
that reason, while it verifies under the forger's own key (so the key, not some slip of
the forger's, is what catches it).
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from typing import Any

import pytest

from clients.python import cli
from clients.python.audit import main
from clients.python.audit_verify import signing_key, verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from domain import table as tables
from domain.registry import rules_for
from domain.table import deal, records
from domain.verify import AuditFailure, Record, moves, parse_export, verify
from server.wire.signedcommands import read_signed_command
from server.wire.signing import Signer
from tests.api.helpers import huaniao_options, seated_game


@pytest.fixture(scope="module")
def finished(server) -> tuple[str, list[str], bytes]:  # type: ignore[no-untyped-def]
    """A game played to the end; its set-up calls carry idempotency keys, whose digests
    the causes then hold (the audit must not mind them)."""
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options("BASIC"), 4, request_id=str(uuid.uuid4()))
        seats = [
            client.join(
                created.game_id, s, f"p{s}", contribution=f"c{s}", request_id=str(uuid.uuid4())
            )
            for s in range(4)
        ]
        for seat in seats:
            seat.reveal()
        seats[0].start(request_id=str(uuid.uuid4()))
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        lines = list(export_lines(client.as_viewer(created.game_id).history()))
        key = signing_key(client)
    return created.game_id, lines, key


def check(lines: list[str], key: bytes, game_id: str | None = None) -> Any:
    return check_records(parse_export(lines), key, game_id)


def check_records(rs: list[Record], key: bytes, game_id: str | None = None) -> Any:
    """The verifier as the auditor runs it: with the reader of seat-signed commands."""
    return verify(rs, key, game_id, command_reader=read_signed_command)


def as_lines(rs: list[Record]) -> list[str]:
    return [
        records.canonical(
            {
                "version": r.version,
                "fact": r.fact,
                "cause": r.cause,
                "hash": r.hash,
                "seal": r.seal,
                "recorded_at": r.recorded_at,
            }
        )
        for r in rs
    ]


def rechain(rs: list[Record]) -> list[Record]:
    """What a forger holding the revealed secret does: recompute every chain hash."""
    created = rs[0].fact["data"]
    key = records.chain_key(created["secret"], created["salt"])
    out, prev = [], ""
    for r in rs:
        digest = records.chain_hash(key, prev, r.version, r.fact, r.cause, r.recorded_at)
        out.append(Record(r.version, r.fact, r.cause, digest, r.seal, r.recorded_at))
        prev = digest
    return out


def reseal(rs: list[Record], signer: Signer, game_id: str) -> list[Record]:
    """Seal every move again (the right heads, plausible receipts) with ``signer``."""
    out = list(rs)
    n = rs[0].fact["data"]["seat_count"]
    for first, last in moves(rs):
        r = out[last - 1]
        hashes = (r.seal or {}).get("receipts") or [["0" * 64, "0" * 64]] * (n + 2)
        body = records.seal_body(game_id, first, last, r.hash, hashes)
        seal = {
            "game_id": game_id,
            "first": first,
            "last": last,
            "head": r.hash,
            "receipts": hashes,
            "signature": signer.sign(body),
        }
        out[last - 1] = Record(r.version, r.fact, r.cause, r.hash, seal, r.recorded_at)
        for v in range(first, last):  # a seal only on the move's last event
            p = out[v - 1]
            out[v - 1] = Record(p.version, p.fact, p.cause, p.hash, None, p.recorded_at)
    return out


def test_a_real_history_verifies_with_the_servers_key(finished) -> None:  # type: ignore[no-untyped-def]
    game_id, lines, key = finished
    report = check(lines, key, game_id)
    assert report.kind == "huaniao" and report.events == len(lines)
    assert report.moves_redecided > 5 and report.winners and report.game_id == game_id
    assert report.seals == report.moves_redecided + 1  # every move, the creation included


def test_verify_over_the_api_and_the_command_line(finished, server, capsys) -> None:  # type: ignore[no-untyped-def]
    game_id, lines, key = finished
    with TableClient(server.target) as client:
        assert verify_game(client, game_id).report.events == len(lines)
    assert main(["--target", server.target, "key"]) == 0
    assert capsys.readouterr().out.strip() == key.hex()
    assert main(["verify", game_id, "--target", server.target]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verified: huaniao,") and f"game {game_id}" in out and key.hex() in out


def test_the_deck_is_recomputable_from_the_revealed_inputs(finished) -> None:  # type: ignore[no-untyped-def]
    _, lines, _ = finished
    rows = [json.loads(line) for line in lines]
    created = rows[0]["fact"]["data"]
    assert created["deal_source"] == "SHUFFLED"

    def of(kind: str) -> list[dict[str, Any]]:
        return [r["fact"]["data"] for r in rows if r["fact"]["type"] == kind]

    def sha(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    commitments = [s["commitment"] for s in of("SeatTaken")]
    assert commitments == [sha(f"tabletop-contribution|c{s}") for s in range(4)]
    reveals = {r["seat"]: r["contribution"] for r in of("ContributionRevealed")}
    assert reveals == {s: f"c{s}" for s in range(4)}, "every seat revealed before the deal"
    (revealed,) = of("ShuffleRevealed")
    secret, salt = revealed["secret"], revealed["salt"]
    assert sha(f"tabletop-commit|{secret}|{salt}|") == created["commitment"]
    entries = ["r" + sha(f"tabletop-reveal|{reveals[s]}") for s in range(4)]
    key = hashlib.sha256("|".join(["tabletop-deal", secret, *entries]).encode()).digest()
    (started,) = of("GameStarted")
    options = tables.decode_event("huaniao", rows[0]["fact"]).options
    mode_deck = rules_for("huaniao").new_deck(options)
    assert tuple(started["deck"]) == deal.deck_for_round(key, mode_deck, 0)
    assert started["seed"] == deal.seed_for_round(key, 0)


def test_a_file_is_verified_against_a_key_from_outside_it(finished, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    game_id, lines, key = finished
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n")
    nobody = ["--target", "127.0.0.1:1"]  # no server there to ask for the key
    with pytest.raises(SystemExit, match="1"):
        main(["verify", "--file", str(path), *nobody])
    assert "give --public-key" in capsys.readouterr().err
    assert main(["verify", "--file", str(path), "--public-key", key.hex(), *nobody]) == 0
    other = Signer.generate().public_key.hex()
    with pytest.raises(SystemExit, match="1"):
        main(["verify", "--file", str(path), "--public-key", other])
    err = capsys.readouterr().err
    assert err.startswith("VERIFY FAILED:") and "not signed by the given server key" in err
    key_file = tmp_path / "server.pub"
    key_file.write_text(key.hex() + "\n")
    assert main(["verify", "--file", str(path), "--public-key", str(key_file), *nobody]) == 0


def test_the_tabletop_export_form_verifies_too(finished, server, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    game_id, lines, key = finished
    path = tmp_path / "cli.jsonl"
    cli.main(["export", game_id, "--target", server.target, "-q", "-o", str(path)])
    assert json.loads(path.read_text().splitlines()[-1]).keys() == {"view"}
    assert main(["verify", "--file", str(path), "--public-key", key.hex()]) == 0
    assert check(path.read_text().splitlines(), key, game_id).events == len(lines)


def test_an_export_of_a_running_game_names_the_command_that_makes_the_right_one(
    client: TableClient, tmp_path, server, capsys
) -> None:  # type: ignore[no-untyped-def]
    game_id, seats, _ = seated_game(client, seed=3)
    lines = list(export_lines(seats[1].history()))
    assert all("redacted" in json.loads(line) for line in lines)
    key = signing_key(client)
    with pytest.raises(AuditFailure, match="tabletop-audit export GAME_ID"):
        check(lines, key)
    path = tmp_path / "running.jsonl"
    cli.main(["export", game_id, "--target", server.target, "-q", "-o", str(path)])
    with pytest.raises(AuditFailure, match="while the game was running.*tabletop-audit export"):
        check(path.read_text().splitlines(), key)


def test_any_single_altered_byte_fails(finished) -> None:  # type: ignore[no-untyped-def]
    _, lines, key = finished
    text = "\n".join(lines)
    rng = random.Random(7)
    for pos in rng.sample(range(len(text)), 300):
        replacement = rng.choice([c for c in '0123456789abcdef{}[]":, x' if c != text[pos]])
        tampered = text[:pos] + replacement + text[pos + 1 :]
        with pytest.raises(AuditFailure):
            check(tampered.split("\n"), key)


def test_a_dropped_event_fails(finished) -> None:  # type: ignore[no-untyped-def]
    _, lines, key = finished
    for i in (1, len(lines) // 2, len(lines) - 2):
        with pytest.raises(AuditFailure):
            check(lines[:i] + lines[i + 1 :], key)


def test_two_swapped_events_fail(finished) -> None:  # type: ignore[no-untyped-def]
    _, lines, key = finished
    i = len(lines) // 2
    with pytest.raises(AuditFailure):
        check(lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2 :], key)
    a, b = json.loads(lines[i]), json.loads(lines[i + 1])
    a["version"], b["version"] = b["version"], a["version"]
    renumbered = lines[:i] + [records.canonical(b), records.canonical(a)] + lines[i + 2 :]
    with pytest.raises(AuditFailure):
        check(renumbered, key)


def test_a_forged_reveal_fails(finished) -> None:  # type: ignore[no-untyped-def]
    _, lines, key = finished
    rs = [json.loads(line) for line in lines]
    forged_secret = "f" * 64
    for r in rs:
        if r["fact"]["type"] == "ShuffleRevealed":
            r["fact"]["data"]["secret"] = forged_secret
    with pytest.raises(AuditFailure, match="secret"):
        check([records.canonical(r) for r in rs], key)
    rs[0]["fact"]["data"]["secret"] = forged_secret
    salt = rs[0]["fact"]["data"]["salt"]
    chain, prev = records.chain_key(forged_secret, salt), ""
    for r in rs:
        r["hash"] = records.chain_hash(
            chain, prev, r["version"], r["fact"], r["cause"], r["recorded_at"]
        )
        prev = r["hash"]
    with pytest.raises(AuditFailure, match="commitment"):
        check([records.canonical(r) for r in rs], key)


def test_a_renamed_player_is_rejected(finished) -> None:  # type: ignore[no-untyped-def]
    """Forged history 1: a seat's name changed, every chain hash recomputed."""
    game_id, lines, key = finished
    real = parse_export(lines)
    renamed = []
    for r in real:
        fact = r.fact
        if fact["type"] == "SeatTaken" and fact["data"]["seat"] == 0:
            fact = {**fact, "data": {**fact["data"], "player_name": "mallory"}}
        renamed.append(Record(r.version, fact, r.cause, r.hash, r.seal, r.recorded_at))
    rechained = rechain(renamed)
    with pytest.raises(AuditFailure, match="signs another chain head"):
        check_records(rechained, key, game_id)  # the server's seals name the real heads
    forger = Signer.generate()
    resealed = reseal(rechained, forger, game_id)
    # re-sealed with a key of the forger's own, it still fails: seat 0 signed its name
    with pytest.raises(AuditFailure, match="seat 0's join: the signed request has another player"):
        check_records(resealed, forger.public_key, game_id)
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        check_records(resealed, key, game_id)  # ...but not the server's


def test_another_game_played_from_the_real_deal_is_rejected(finished) -> None:  # type: ignore[no-untyped-def]
    """Forged history 2: the real GameCreated, joins and deal kept, and a different game
    played from them with the published engine, which another seat wins."""
    game_id, lines, key = finished
    real = parse_export(lines)
    real_winners = verify(real, key, game_id, command_reader=read_signed_command).winners
    start = next(i for i, r in enumerate(real) if (r.cause or {}).get("action") == "start")
    dealt = next(i for i in range(start + 1, len(real)) if real[i].cause is not None)
    for seed in range(50):
        forged = play_on(real[:dealt], seed)
        table = None
        for r in forged:
            table = tables.evolve(table, tables.decode_event("huaniao", r.fact))
        assert table is not None and table.outcome is not None
        if table.outcome.winners != real_winners:
            break
    else:
        raise AssertionError("no random game from the real deal had another winner")
    forger = Signer.generate()
    resealed = reseal(rechain(forged), forger, game_id)
    # re-sealed with a key of the forger's own, it still fails: no seat signed those moves
    with pytest.raises(AuditFailure, match="carries no seat signature"):
        verify(resealed, forger.public_key, game_id, command_reader=read_signed_command)
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        verify(resealed, key, game_id, command_reader=read_signed_command)
    # keeping the server's real seals for the untouched prefix does not help either
    kept = rechain(forged)
    with pytest.raises(AuditFailure, match="not signed|no seal"):
        verify(
            kept[:dealt] + reseal(kept, forger, game_id)[dealt:],
            key,
            game_id,
            command_reader=read_signed_command,
        )


def play_on(prefix: list[Record], seed: int) -> list[Record]:
    """Random legal moves from the end of ``prefix`` to the end of the game, recorded as
    the server records them (the forger's side of the published engine)."""
    rng = random.Random(seed)
    out = list(prefix)
    table = None
    for r in prefix:
        table = tables.evolve(table, tables.decode_event("huaniao", r.fact))
    assert table is not None
    while table.phase is tables.Phase.PLAYING:
        seat = rng.choice(list(tables.to_act(table)))
        legal = [c for c in tables.legal_commands(table, seat) if type(c).__name__ != "Retract"]
        command = rng.choice(legal)
        cause = tables.cause("play", seat, command)
        for i, fact in enumerate(tables.act(table, command)):
            table = tables.evolve(table, fact)
            out.append(
                Record(
                    len(out) + 1,
                    records.split_private(tables.encode_event(fact))[0],
                    cause if i == 0 else None,
                    "0" * 64,
                    None,
                    "2030-01-01T00:00:00.000000Z",
                )
            )
    return out


def test_an_export_is_bound_to_its_game(finished, server) -> None:  # type: ignore[no-untyped-def]
    game_id, lines, key = finished
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options("SIMPLE"), 2)
        seats = [client.join(created.game_id, s) for s in range(2)]
        reveal_and_start(seats)
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        other = list(export_lines(client.as_viewer(created.game_id).history()))
    with pytest.raises(AuditFailure, match="names game"):
        check(lines, key, created.game_id)  # a real record, presented as another game's
    assert check(other, key, created.game_id).game_id == created.game_id
    # a seal lifted from another game of the same server does not fit
    rs, donor = parse_export(lines), parse_export(other)
    last = rs[-1]
    lifted = Record(
        last.version, last.fact, last.cause, last.hash, donor[-1].seal, last.recorded_at
    )
    spliced = [*rs[:-1], lifted]
    with pytest.raises(AuditFailure, match="names game|covers other versions|chain head"):
        verify(spliced, key, game_id, command_reader=read_signed_command)


def test_nothing_exported_carries_a_token_hash(finished) -> None:  # type: ignore[no-untyped-def]
    _, lines, _ = finished
    rs = [json.loads(line) for line in lines]
    assert rs[0]["fact"]["data"]["arbiter_token_hash"] == ""
    assert all(
        r["fact"]["data"]["token_hash"] == "" for r in rs if r["fact"]["type"] == "SeatTaken"
    )
