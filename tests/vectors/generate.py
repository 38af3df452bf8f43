"""The conformance corpus: honest exports of real games and their mutations, each with the
verdict both verifiers must give (docs/api.md, "The export grammar").

    python -m tests.vectors.generate [--out tests/vectors]

Plays a few games on a real server (keyed seats, as the clients play): a 花鸟风月 game of 4
seats, a 川南字牌 game of 3, an arbitrated 川南字牌 game re-dealt once and ruled on once,
and a 2-hand 花鸟风月 match; exports each (``tabletop-audit export``, one game also in the
``tabletop export`` form; the match, the game of a --receipt-format 3 server and the void
game also with their log line, as ``tabletop-audit export`` writes it by default) and writes
beside them mutations of the smallest one: bytes, lines and JSON changed, and lies told by
the holder of the server's key (re-chained and re-sealed, tree heads re-signed), so that only
the grammar, the chain, a seat's signature, the replay or the log's proofs can tell.
manifest.json names each file, "accept", "refuse" or "proof" (exit 3: the file proves the
server lied), and the words the verdict's first line must hold in both verifiers; server.pub
is the server's public key they verify against (its private key is thrown away with the
server's data directory). Last, the server's key is rotated (``rotate``, a restart: the
retirement stated at the log's size) and keys.json is its key set (``tabletop-audit key
--json``): the vectors whose manifest entry names ``keys`` are verified with ``--keys`` that
file instead: the old key's games below the size, the thief's new game (played after the
rotation, re-sealed with the old key) and mutations of the key set (keysets/).
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.json_format import MessageToDict

from clients.python.audit_log import export_log_line, key_set_json
from clients.python.audit_verify import match_export_lines, signing_key
from clients.python.bot import RandomBot, play_match, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from clients.python.serverproc import ServerProcess
from domain import logaudit, translog
from domain.codec import canonical
from domain.table.records import key_id
from server.wire.signing import KEY_FILE, rotate
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.api.test_node_verify import (
    ZIPAI,
    raw_public,
    rechain,
    redealt_game,
    resign,
    truncated_match,
    unclosed_match,
)

HERE = Path(__file__).resolve().parent
Line = dict[str, Any]


@dataclass
class Games:
    key: bytes  # the server's public key
    signer: Ed25519PrivateKey  # its private key: the key holder's lies (never written)
    hua: list[Line]
    zipai: list[Line]
    void: list[Line]  # a 川南字牌 game whose draw was abandoned: small, complete, keyed
    void_events: list[str]  # the same game in the `tabletop export` form
    redealt: list[Line]
    match: list[Line]
    hua3: list[Line]  # a server with --receipt-format 3: seals of the head alone
    void_log: Line  # the void game's log line (`tabletop-audit export`'s last line)
    older_head: Line  # a head the server signed of its log one leaf before void_log's
    match_log: Line
    hua3_log: Line
    rotated: Rotated  # the same server after a key rotation


@dataclass
class Rotated:
    """The server after ``python -m server.wire.signing rotate`` and a restart: its key set
    (``tabletop-audit key --json``: the new key, the old one retired at the log's size) and
    the void game's log line exported anew (its head signed by the new key)."""

    keys: Line
    successor: Ed25519PrivateKey  # the new key (the key holder's lies; never written)
    void_log: Line
    after: list[Line]  # a void game played after the rotation: sealed by the new key
    after_log: Line

    @property
    def statement(self) -> Line:
        retirement: Line = self.keys["retirements"][0]
        return retirement

    @property
    def log_id(self) -> str:
        (log_id,) = self.statement["logs"]
        return str(log_id)

    @property
    def size(self) -> int:
        """The log's size at the retirement."""
        return int(self.statement["logs"][self.log_id])


FORMAT2 = ["--receipt-format", "2"]  # seals listing every viewer's hashes (no longer the default)


def play() -> Games:
    with tempfile.TemporaryDirectory() as tmp:
        with (
            ServerProcess(Path(tmp) / "server", extra=FORMAT2) as server,
            TableClient(server.target) as client,
        ):
            key = signing_key(client)
            pem = (server.data_dir / KEY_FILE).read_bytes()
            signer = serialization.load_pem_private_key(pem, password=None)
            assert isinstance(signer, Ed25519PrivateKey)
            # the void game first, its log line at once: a log of its seals alone, so the
            # log line is small and its proofs the same in every corpus made anew
            void_gid = void_game(client)
            void, void_events = finished_game(client, void_gid)
            void_log = json.loads(export_log_line(client, [("game", void_gid)]))
            head = void_log["log"]["heads"][0]
            older = client.stub.GetTreeHead(
                pb.GetTreeHeadRequest(log_id=head["log_id"], tree_size=head["size"] - 1)
            ).tree_head
            older_head = head_json(older)
            hua = shortest(lambda: finished_game(client, huaniao_game(client))[0])
            zipai = shortest(lambda: finished_game(client, zipai_game(client))[0])
            redealt = shortest(lambda: redealt_game(client))
            match, match_log = shortest_logged(lambda: match_game(client), client)
        # the same data directory, so the same key: one record, two seal formats, one key
        format3 = ["--receipt-format", "3"]
        with (
            ServerProcess(Path(tmp) / "server", extra=format3) as server,
            TableClient(server.target) as client,
        ):
            assert signing_key(client) == key
            hua3, hua3_log = shortest_logged(
                lambda: game_and_id(client, huaniao_game(client)), client
            )
        rotated = rotate_key(Path(tmp) / "server", void_gid)
    return Games(
        key,
        signer,
        hua,
        zipai,
        void,
        void_events,
        redealt,
        match,
        hua3,
        void_log,
        older_head,
        match_log,
        hua3_log,
        rotated,
    )


def rotate_key(data: Path, void_gid: str) -> Rotated:
    """The operator's rotation (``rotate``, then a restart, which states the retirement,
    signed by both keys, at the log's size): every game above was sealed by the old key
    before it, so at or below that size."""
    rotate(data / KEY_FILE)
    with ServerProcess(data, extra=FORMAT2) as server, TableClient(server.target) as client:
        keys = key_set_json(client.stub.GetSigningKey(pb.GetSigningKeyRequest()))
        void_log = json.loads(export_log_line(client, [("game", void_gid)]))
        after_gid = void_game(client)
        after = finished_game(client, after_gid)[0]
        after_log = json.loads(export_log_line(client, [("game", after_gid)]))
        successor = serialization.load_pem_private_key(
            (server.data_dir / KEY_FILE).read_bytes(), password=None
        )
    assert isinstance(successor, Ed25519PrivateKey)
    assert len(keys["retirements"]) == 1 and len(keys["retirements"][0]["logs"]) == 1, keys
    return Rotated(keys, successor, void_log, after, after_log)


def head_json(head: pb.TreeHead) -> Line:
    return {
        "key_id": head.key_id,
        "log_id": head.log_id,
        "root": head.root.hex(),
        "signature": head.signature.hex(),
        "size": head.size,
        "timestamp": head.timestamp_ms,
    }


Logged = tuple[list[Line], list[tuple[str, str]]]  # an export's lines, the records it logs


def game_and_id(client: TableClient, gid: str) -> Logged:
    return finished_game(client, gid)[0], [("game", gid)]


def shortest_logged(make: Callable[[], Logged], client: TableClient) -> tuple[list[Line], Line]:
    """The shortest of a few exports, with its log line (asked once the others are played)."""
    lines, records = min((make() for _ in range(TRIES)), key=lambda made: len(text(dump(made[0]))))
    return lines, json.loads(export_log_line(client, records))


TRIES = 4  # games of random bots vary in length: the shortest of a few keeps the corpus small


def shortest(make: Callable[[], list[Line]]) -> list[Line]:
    return min((make() for _ in range(TRIES)), key=lambda lines: len(text(dump(lines))))


def huaniao_game(client: TableClient) -> str:
    gid = client.create_game(huaniao_options("BASIC"), 4).game_id
    seats = [client.join(gid, s, f"花{s}") for s in range(4)]
    reveal_and_start(seats)
    play_to_end([RandomBot(s, 70 + i) for i, s in enumerate(seats)])
    return gid


def zipai_game(client: TableClient) -> str:
    gid = client.create_game(ZIPAI, 3).game_id
    seats = [client.join(gid, s, f"z{s}") for s in range(3)]
    reveal_and_start(seats)
    play_to_end([RandomBot(s, 80 + i) for i, s in enumerate(seats)])
    return gid


def match_game(client: TableClient) -> Logged:
    created = client.create_game(huaniao_options("BASIC"), 2, match=pb.MatchSettings(hands=2))
    seats = [client.join(created.game_id, s, f"m{s}") for s in range(2)]
    reveal_and_start(seats)
    play_match([RandomBot(s, 90 + i) for i, s in enumerate(seats)])
    lines = [json.loads(x) for x in match_export_lines(client, created.match_id, None)]
    hands = list(dict.fromkeys(x["game_id"] for x in lines if "game_id" in x))
    return lines, [("match", created.match_id), *(("game", g) for g in hands)]


ABANDON_MS = 1000


def void_game(client: TableClient) -> str:
    """A 川南字牌 table whose seat 2 never reveals: void once the abandonment limit passed."""
    gid = client.create_game(ZIPAI, 3, abandon_after_ms=ABANDON_MS).game_id
    seats = [client.join(gid, s, f"v{s}") for s in range(3)]
    for seat in seats[:2]:
        seat.reveal()
    until = time.monotonic() + ABANDON_MS / 1000 + 20
    while not client.as_viewer(gid).view().void:
        assert time.monotonic() < until, "the server never abandoned the draw"
        time.sleep(0.2)
    return gid


def finished_game(client: TableClient, gid: str) -> tuple[list[Line], list[str]]:
    """A finished game's export, in both forms."""
    viewer = client.as_viewer(gid)
    history = list(viewer.history())
    lines = [json.loads(x) for x in export_lines(history)]
    events = [
        json.dumps(
            {"event": MessageToDict(e, preserving_proto_field_name=True)}, ensure_ascii=False
        )
        for e in history
    ]
    view = MessageToDict(viewer.view(), preserving_proto_field_name=True)
    events.append(json.dumps({"view": view}, ensure_ascii=False))
    return lines, events


# --- the corpus ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Vector:
    file: str
    verdict: str  # "accept", "refuse" or "proof" (exit 3)
    reason: tuple[str, ...]  # words both verdict lines must hold
    why: str
    data: bytes | None  # None: a file another vector writes (verified with another key set)
    keys: str | None = None  # verified with --keys this file (of tests/vectors/), not server.pub
    keyset: bytes | None = None  # the key set's bytes, when ``keys`` is a mutated one


def text(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def dump(lines: list[Line]) -> list[str]:
    return [canonical(x) for x in lines]


def accept(file: str, why: str, data: bytes, *words: str) -> Vector:
    return Vector(file, "accept", ("verified", *words), why, data)


def refuse(file: str, why: str, data: bytes, *words: str) -> Vector:
    return Vector(file, "refuse", words, why, data)


def honest(g: Games) -> list[Vector]:
    return [
        accept("hua.jsonl", "花鸟风月, 4 keyed seats", text(dump(g.hua)), "game"),
        accept(
            "void.jsonl",
            "川南字牌 whose seat 2 never revealed: void (the base of the mutations)",
            text(dump(g.void)),
            "void",
        ),
        accept(
            "void-events.jsonl",
            "the same game as `tabletop export` writes it",
            text(g.void_events),
            "void",
        ),
        accept("zipai.jsonl", "川南字牌, 3 keyed seats", text(dump(g.zipai)), "game"),
        accept(
            "redealt.jsonl",
            "川南字牌 re-dealt by every seat, then a ruling by the keyed arbiter",
            text(dump(g.redealt)),
            "game",
        ),
        accept(
            "crlf.jsonl", "the void game with CR LF line ends (JSON whitespace)", crlf(g), "void"
        ),
        accept(
            "match.jsonl",
            "a 2-hand 花鸟风月 match, with its log line (the match's seals, then each hand's)",
            text(dump([*g.match, g.match_log])),
            "match",
            LOGGED,
        ),
        accept(
            "hua-format3.jsonl",
            "花鸟风月, 4 keyed seats, a server run with --receipt-format 3 (seals of the head "
            "alone: tabletop-seal/3), with its log line",
            text(dump([*g.hua3, g.hua3_log])),
            "game",
            LOGGED,
        ),
        accept(
            "void-log.jsonl",
            "the void game with its log line (the base of the log line's mutations)",
            text(dump(with_log(g))),
            "void",
            LOGGED,
        ),
    ]


LOGGED = "transparency log: all"  # the verify line's words for a log line that proves all


def seal3_with_receipts(g: Games) -> bytes:
    """A seal of format 3 given an empty list of viewers' hashes: no longer that format, and
    not a seal of format 2 either."""
    lines = copy.deepcopy(g.hua3)
    sealed = next(line for line in lines if line["seal"])
    sealed["seal"]["receipts"] = []
    return text(dump(lines))


def seal3_other_head(g: Games) -> bytes:
    """A seal of format 3 whose head is changed: it names another chain head than the
    record's."""
    lines = copy.deepcopy(g.hua3)
    sealed = [line for line in lines if line["seal"]][-1]
    sealed["seal"]["head"] = "0" * 64
    return text(dump(lines))


Mutation = Callable[[Games], bytes]


def base(g: Games) -> list[Line]:
    """The game the mutations start from (the smallest honest export)."""
    return copy.deepcopy(g.void)


def first(lines: list[Line], fact_type: str) -> Line:
    return next(x for x in lines if x["fact"]["type"] == fact_type)


def signed_cause(lines: list[Line], action: str) -> Line:
    return next(
        x for x in lines if (x["cause"] or {}).get("action") == action and x["cause"].get("signed")
    )


def changed_fact(g: Games) -> bytes:
    lines = base(g)
    first(lines, "SeatTaken")["fact"]["data"]["player_name"] = "mallory"
    return text(dump(lines))


def changed_fact_rechained(g: Games) -> bytes:
    lines = base(g)
    first(lines, "SeatTaken")["fact"]["data"]["player_name"] = "mallory"
    return text(dump(rechain(lines)))


def changed_cause_resealed(g: Games) -> bytes:
    """The key holder records a seat's reveal as another seat's (re-chained, re-sealed)."""
    lines = base(g)
    cause = signed_cause(lines, "reveal")["cause"]
    cause["seat"] = 2
    return text(dump(rechain(lines, g.signer)))


def forged_move_resealed(g: Games) -> bytes:
    """The key holder makes a move in a seat's name (its reveal) with a key of its own: the
    signature is a valid Ed25519 signature, by the wrong key."""
    lines = base(g)
    signed = signed_cause(lines, "reveal")["cause"]["signed"]
    command = base64.b64decode(signed["command"])
    forged = Ed25519PrivateKey.generate().sign(b"tabletop-seat-command/1\n" + command)
    signed["signature"] = base64.b64encode(forged).decode("ascii")
    return text(dump(rechain(lines, g.signer)))


def unsigned_move_resealed(g: Games) -> bytes:
    lines = base(g)
    del signed_cause(lines, "reveal")["cause"]["signed"]
    return text(dump(rechain(lines, g.signer)))


def abandon_lied_resealed(g: Games) -> bytes:
    """The key holder names another seat as the one the draw waited for."""
    lines = base(g)
    first(lines, "DealAbandoned")["fact"]["data"]["waiting_for"] = [1]
    return text(dump(rechain(lines, g.signer)))


def seal_by_another_key(g: Games) -> bytes:
    lines = base(g)
    sealed = [x for x in lines if x["seal"]]
    resign(sealed[len(sealed) // 2]["seal"], Ed25519PrivateKey.generate())
    return text(dump(lines))


def dropped_line(g: Games) -> bytes:
    lines = base(g)
    del lines[len(lines) // 2]
    return text(dump(lines))


def dropped_renumbered(g: Games) -> bytes:
    lines = base(g)
    i = len(lines) // 2
    del lines[i]
    for x in lines[i:]:
        x["version"] -= 1
    return text(dump(rechain(lines, g.signer)))


def swapped_lines(g: Games) -> bytes:
    lines = base(g)
    i = len(lines) // 2
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return text(dump(lines))


def duplicated_line(g: Games) -> bytes:
    lines = base(g)
    lines.insert(5, lines[4])
    return text(dump(lines))


def last_move_dropped(g: Games) -> bytes:
    """Truncated at a line: the game's end (and its revealed secret) missing."""
    lines = base(g)
    return text(dump(lines[:-1]))


def truncated_mid_line(g: Games) -> bytes:
    data = cut(text(dump(base(g))))
    return data[: len(data) - 40]


def on_line(g: Games, n: int, edit: Callable[[str], str]) -> bytes:
    lines = dump(base(g))
    edited = edit(lines[n])
    assert edited != lines[n], "the edit changed nothing"
    lines[n] = edited
    return text(lines)


def duplicated_key(g: Games) -> bytes:
    return on_line(g, 1, lambda s: s[:-1] + ',"version":2}')


def duplicated_inner_key(g: Games) -> bytes:
    return on_line(g, 1, lambda s: s.replace('"fact":{', '"fact":{"type":"X",', 1))


def float_version(g: Games) -> bytes:
    return on_line(g, 1, lambda s: s.replace('"version":2', '"version":2.0'))


def exponent_version(g: Games) -> bytes:
    return on_line(g, 1, lambda s: s.replace('"version":2', '"version":2e0'))


def float_in_fact(g: Games) -> bytes:
    lines = base(g)
    first(lines, "GameCreated")["fact"]["data"]["seat_count"] = 3.0
    return text([json.dumps(x, ensure_ascii=False, sort_keys=True) for x in lines])


def retimed(g: Games, form: str) -> bytes:
    """Every time written another way that means the same instant, re-chained and re-sealed
    by the key holder (the grammar, not the chain, must refuse it)."""
    lines = base(g)
    for x in lines:
        x["recorded_at"] = x["recorded_at"].replace("Z", "") + form
    return text(dump(rechain(lines, g.signer)))


def spaced_time(g: Games) -> bytes:
    lines = base(g)
    for x in lines:
        x["recorded_at"] = x["recorded_at"].replace("T", " ")
    return text(dump(rechain(lines, g.signer)))


def arabic_time(g: Games) -> bytes:
    lines = base(g)
    digits = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
    lines[2]["recorded_at"] = (
        lines[2]["recorded_at"][:4].translate(digits) + lines[2]["recorded_at"][4:]
    )
    return text(dump(rechain(lines, g.signer)))


def bad_date(g: Games) -> bytes:
    lines = base(g)
    at = lines[1]["recorded_at"]
    lines[1]["recorded_at"] = at[:5] + "13-45" + at[10:]
    return text(dump(rechain(lines, g.signer)))


def upper_hash(g: Games) -> bytes:
    lines = base(g)
    lines[2]["hash"] = lines[2]["hash"].upper()
    return text(dump(lines))


def extra_seal_key(g: Games) -> bytes:
    lines = base(g)
    next(x for x in lines if x["seal"])["seal"]["note"] = "unsigned words"
    return text(dump(lines))


def extra_line_key(g: Games) -> bytes:
    lines = base(g)
    lines[1]["note"] = "unsigned words"
    return text(dump(lines))


def missing_line_key(g: Games) -> bytes:
    lines = base(g)
    del lines[1]["recorded_at"]
    return text(dump(lines))


def bad_utf8(g: Games) -> bytes:
    data = text(dump(base(g)))
    at = data.index(b"v1")  # inside a player's name
    return data[:at] + b"\xff" + data[at + 1 :]


def bom(g: Games) -> bytes:
    return b"\xef\xbb\xbf" + text(dump(base(g)))


def nbsp_indent(g: Games) -> bytes:
    return on_line(g, 2, lambda s: "\u00a0" + s)


def crlf(g: Games) -> bytes:
    return text(dump(base(g))).replace(b"\n", b"\r\n")


def empty(_g: Games) -> bytes:
    return b""


def not_object(g: Games) -> bytes:
    return on_line(g, 2, lambda s: f"[{s}]")


# the `tabletop export` form


def events_form(g: Games) -> list[Line]:
    """The first lines of the game's `tabletop export` form, and its view line."""
    lines = [json.loads(x) for x in g.void_events]
    return lines[:SHORT] + lines[-1:]


def dump_events(lines: list[Line]) -> bytes:
    return text([json.dumps(x, ensure_ascii=False) for x in lines])


def view_first(g: Games) -> bytes:
    lines = events_form(g)
    return dump_events(lines[-1:] + lines[:-1])


def event_and_view(g: Games) -> bytes:
    lines = events_form(g)
    lines[2]["view"] = lines[-1]["view"]
    return dump_events(lines)


def extra_event_key(g: Games) -> bytes:
    lines = events_form(g)
    lines[2]["note"] = "unsigned words"
    return dump_events(lines)


def fullwidth_version(g: Games) -> bytes:
    lines = events_form(g)
    v = lines[2]["event"]["version"]
    lines[2]["event"]["version"] = v.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    return dump_events(lines)


def offset_event_time(g: Games) -> bytes:
    lines = events_form(g)
    at = lines[2]["event"]["recorded_at"]
    lines[2]["event"]["recorded_at"] = at.replace("Z", "+00:00")
    return dump_events(lines)


def two_views(g: Games) -> bytes:
    lines = events_form(g)
    return dump_events(lines + lines[-1:])


def mixed_forms(g: Games) -> bytes:
    """The `tabletop export` form's first half, then the rest as stored lines."""
    return text(g.void_events[:2] + dump(g.void)[2:SHORT])


# a match (the grammar's refusals on its first lines: a reader refuses them before it
# verifies anything)


def match_prefix(g: Games) -> list[Line]:
    """The match's facts and the first three lines of each hand."""
    lines = copy.deepcopy(g.match)
    seen: dict[Any, int] = {}
    out = []
    for x in lines:
        hand = x.get("hand")
        seen[hand] = seen.get(hand, 0) + 1
        if hand is None or seen[hand] <= 3:
            out.append(x)
    return out


def match_fact_after_hands(g: Games) -> bytes:
    lines = match_prefix(g)
    facts = [x for x in lines if "match" in x]
    rest = [x for x in lines if "match" not in x]
    return text(dump(facts[:-1] + rest + facts[-1:]))


def hand_line_without_hand(g: Games) -> bytes:
    lines = match_prefix(g)
    del next(x for x in lines if "hand" in x)["hand"]
    return text(dump(lines))


def match_extra_key(g: Games) -> bytes:
    lines = match_prefix(g)
    lines[0]["note"] = "unsigned words"
    return text(dump(lines))


def match_null_line(g: Games) -> bytes:
    """The match's log line replaced by JSON's null (not a blank line, not an object)."""
    return text([*dump(match_prefix(g)), "null"])


def match_truncated(g: Games) -> bytes:
    """The match's last hand dropped, MatchEnded and the match chain kept as they were."""
    lines = copy.deepcopy(g.match)
    return text(dump([x for x in lines if x.get("hand") != 2]))


def key_holders(g: Games) -> Any:
    """What the match lies of tests/api/test_node_verify.py read: the match, the key."""
    return SimpleNamespace(match=g.match, signer=g.signer)


def match_cut_resealed(g: Games) -> bytes:
    """Cut after hand 1, its length kept, re-chained and every match seal re-signed by the
    key holder: hand 1's own signed HandClosed says hand 2 follows (issue 36)."""
    return text(truncated_match(key_holders(g), g.signer, keep_length=True))


def match_unclosed_resealed(g: Games) -> bytes:
    """Hand 2's HandClosed dropped (as before issue 36), HandEnded pointed at the new head,
    the match re-chained and re-signed by the key holder."""
    return text(unclosed_match(key_holders(g)))


def match_hands_interleaved(g: Games) -> bytes:
    lines = match_prefix(g)
    one = [i for i, x in enumerate(lines) if x.get("hand") == 1]
    two = [i for i, x in enumerate(lines) if x.get("hand") == 2]
    lines[one[-1]], lines[two[0]] = lines[two[0]], lines[one[-1]]
    return text(dump(lines))


# the log line (docs/api.md, "Transparency log", "The export's log line")


def with_log(g: Games, short: bool = False) -> list[Line]:
    """The void game as `tabletop-audit export` writes it: its lines, then its log line;
    ``short``: its first lines only, for the log line's grammar (both verifiers read it
    before they verify anything)."""
    lines = base(g)
    return [*(lines[:SHORT] if short else lines), copy.deepcopy(g.void_log)]


def log_of(lines: list[Line]) -> dict[str, Any]:
    body: dict[str, Any] = lines[-1]["log"]
    return body


def logged(edit: Callable[[list[Line]], None], short: bool = False) -> Mutation:
    """A mutation of the void game's log line (the record's lines kept as they are)."""

    def make(g: Games) -> bytes:
        lines = with_log(g, short)
        edit(lines)
        return text(dump(lines))

    return make


def resigned_head(g: Games, head: Line, signer: Ed25519PrivateKey | None = None) -> Line:
    """``head`` signed anew by the key holder (or by ``signer``), whatever its fields hold:
    the signature verifies, so only the grammar can refuse it."""
    by = signer or g.signer
    body = {k: head[k] for k in ("log_id", "root", "size", "timestamp")}
    head["signature"] = by.sign(translog.TREE_HEAD_PREFIX + canonical(body).encode()).hex()
    head["key_id"] = key_id(raw_public(by))
    return head


def head_edit(field: str, value: Any) -> Callable[[Games], bytes]:
    """The head's ``field`` set to ``value``, the head re-signed by the key holder."""

    def make(g: Games) -> bytes:
        lines = with_log(g)  # the whole record: a verifier lenient here would accept it
        head = log_of(lines)["heads"][0]
        head[field] = value(head[field]) if callable(value) else value
        resigned_head(g, head)
        return text(dump(lines))

    return make


def arabic(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))


def fullwidth(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "０１２３４５６７８９"))


def log_extra_line_key(lines: list[Line]) -> None:
    lines[-1]["note"] = "unsigned words"


def log_extra_key(lines: list[Line]) -> None:
    log_of(lines)["note"] = "unsigned words"


def log_missing_key(lines: list[Line]) -> None:
    del log_of(lines)["inclusions"]


def head_extra_key(lines: list[Line]) -> None:
    log_of(lines)["heads"][0]["note"] = "unsigned words"


def head_missing_key(lines: list[Line]) -> None:
    del log_of(lines)["heads"][0]["timestamp"]


def inclusion_extra_key(lines: list[Line]) -> None:
    log_of(lines)["inclusions"][0]["note"] = "unsigned words"


def inclusion_missing_key(lines: list[Line]) -> None:
    del log_of(lines)["inclusions"][2]["index"]


def head_bad_signature(lines: list[Line]) -> None:
    head = log_of(lines)["heads"][0]
    head["signature"] = flip(head["signature"])


def flip(hex_text: str, at: int = 10) -> str:
    return hex_text[:at] + ("0" if hex_text[at] != "0" else "1") + hex_text[at + 1 :]


def path_flipped(lines: list[Line]) -> None:
    entry = log_of(lines)["inclusions"][0]
    entry["path"][0] = flip(entry["path"][0])


def wrong_index(lines: list[Line]) -> None:
    log_of(lines)["inclusions"][0]["index"] += 1


def seal_missing(lines: list[Line]) -> None:
    del log_of(lines)["inclusions"][-1]


def other_versions(lines: list[Line]) -> None:
    log_of(lines)["inclusions"][1]["first"] += 1


def other_log(lines: list[Line]) -> None:
    log_of(lines)["inclusions"][0]["log_id"] = OTHER_LOG


OTHER_LOG = "00000000-0000-4000-8000-000000000000"  # sorts before any log the server makes


def upper_path(lines: list[Line]) -> None:
    entry = log_of(lines)["inclusions"][0]
    entry["path"][0] = entry["path"][0].upper()


def fullwidth_index(lines: list[Line]) -> None:
    entry = log_of(lines)["inclusions"][0]
    entry["index"] = fullwidth(entry["index"])


def log_not_last(g: Games) -> bytes:
    lines = with_log(g, short=True)
    lines.insert(len(lines) - 2, lines.pop())
    return text(dump(lines))


def log_twice(g: Games) -> bytes:
    lines = with_log(g, short=True)
    return text(dump([*lines, lines[-1]]))


def log_first(g: Games) -> bytes:
    lines = with_log(g, short=True)
    return text(dump([lines[-1], *lines[:-1]]))


def log_in_events_form(g: Games) -> bytes:
    return text([*dump_events(events_form(g)).decode().splitlines(), canonical(g.void_log)])


def arabic_size(g: Games) -> bytes:
    """A head's size of Arabic-Indic digits, as the bare number JSON does not allow."""
    size = g.void_log["log"]["heads"][0]["size"]
    lines = dump(with_log(g, short=True))
    lines[-1] = lines[-1].replace(f'"size":{size}', f'"size":{arabic(size)}', 1)
    return text(lines)


def smaller_head(g: Games) -> bytes:
    """The proofs of the log line (made for its head's size) held against a head the server
    signed of the log one leaf before: a tree size smaller than the proofs'."""
    lines = with_log(g)
    log_of(lines)["heads"] = [copy.deepcopy(g.older_head)]
    return text(dump(lines))


def heads_unsorted(g: Games) -> bytes:
    """A second head, of another log whose id sorts first, after the record's (re-signed)."""
    lines = with_log(g, short=True)
    heads = log_of(lines)["heads"]
    heads.append(resigned_head(g, {**heads[0], "log_id": OTHER_LOG}))
    return text(dump(lines))


def head_twice(g: Games) -> bytes:
    """The same head written twice: not one a log, and no fork (one root)."""
    lines = with_log(g, short=True)
    heads = log_of(lines)["heads"]
    heads.append(copy.deepcopy(heads[0]))
    return text(dump(lines))


def forked_heads(g: Games) -> bytes:
    """A second head of the record's log and size with another root, signed by the server's
    key: two signed heads that contradict each other prove a forked log."""
    lines = with_log(g)
    heads = log_of(lines)["heads"]
    heads.append(resigned_head(g, {**heads[0], "root": "ab" * 32}))
    return text(dump(lines))


def unknown_key_head(g: Games) -> bytes:
    lines = with_log(g)
    resigned_head(g, log_of(lines)["heads"][0], Ed25519PrivateKey.generate())
    return text(dump(lines))


def proof_problem(g: Games, edit: Callable[[list[Line]], None]) -> str:
    """What the first seal's inclusion fails with (domain/translog.py's words, which the
    Node verifier must print too) once ``edit`` changed the log line."""
    lines = with_log(g)
    edit(lines)
    log = log_of(lines)
    entry, head = log["inclusions"][0], log["heads"][0]
    seal = next(x["seal"] for x in lines[:-1] if x["seal"])
    body = records_seal_body(seal)
    leaf = translog.leaf_hash(translog.leaf_data(body, seal.get("key_id", "")))
    path = [bytes.fromhex(p) for p in entry["path"]]
    try:
        translog.verify_inclusion(
            entry["index"], head["size"], leaf, path, bytes.fromhex(head["root"])
        )
    except translog.ProofError as exc:
        return f"the log line: {exc}"
    raise AssertionError("the edit left the proof standing")


def records_seal_body(seal: Line) -> bytes:
    from domain.table import records

    return records.stored_seal_body(seal["game_id"], seal)


def key_id_stripped(lines: list[Line]) -> None:
    """The first seal's key id (not signed) emptied: its signature still verifies with the
    given key, but its leaf is not the one the server logged (the seal's stated key id)."""
    del next(x for x in lines[:-1] if x["seal"])["seal"]["key_id"]


def older(lines: list[Line], g: Games) -> None:
    log_of(lines)["heads"] = [copy.deepcopy(g.older_head)]


def log_mutations(g: Games) -> list[Vector]:
    """The log line's mutations: its grammar, its heads' signatures and its proofs."""
    seals = len(g.void_log["log"]["inclusions"])
    where = f"line {SHORT + 1}"  # the log line of a file cut short
    whole = f"line {len(g.void) + 1}"  # the log line after the whole record
    form = (f"{whole} head 1 has a field of the wrong form",)
    table: list[tuple[str, str, Mutation, tuple[str, ...]]] = [
        (
            "log-line-extra-key",
            "an unsigned key beside `log`",
            logged(log_extra_line_key, short=True),
            (f"{where} is not a log line {{log}}",),
        ),
        (
            "log-extra-key",
            "an unsigned key beside heads and inclusions",
            logged(log_extra_key, short=True),
            ("`log` is not exactly {heads, inclusions}",),
        ),
        (
            "log-missing-key",
            "a log line without its inclusions",
            logged(log_missing_key, short=True),
            ("`log` is not exactly {heads, inclusions}",),
        ),
        (
            "log-head-extra-key",
            "an unsigned key in a tree head",
            logged(head_extra_key),
            (f"{whole} head 1 is not a tree head",),
        ),
        (
            "log-head-missing-key",
            "a tree head without its timestamp",
            logged(head_missing_key, short=True),
            (f"{where} head 1 is not a tree head",),
        ),
        (
            "log-inclusion-extra-key",
            "an unsigned key in an inclusion",
            logged(inclusion_extra_key, short=True),
            (f"{where} inclusion 1 is not an inclusion",),
        ),
        (
            "log-inclusion-missing-key",
            "an inclusion without its leaf index",
            logged(inclusion_missing_key, short=True),
            (f"{where} inclusion 3 is not an inclusion",),
        ),
        (
            "log-head-bad-signature",
            "a tree head's signature with one digit changed",
            logged(head_bad_signature),
            ("is not in the log", "does not verify with key"),
        ),
        (
            "log-head-unknown-key",
            "a tree head signed by a key the verifier was not given",
            unknown_key_head,
            ("is not in the log", "is not signed by a given key"),
        ),
        (
            "log-path-flipped",
            "a hash of the first seal's audit path changed",
            logged(path_flipped),
            ("the seal of versions", proof_problem(g, path_flipped)),
        ),
        (
            "log-wrong-index",
            "the first seal's leaf index one more",
            logged(wrong_index),
            ("the seal of versions", proof_problem(g, wrong_index)),
        ),
        (
            "log-head-smaller",
            "the proofs held against a head (signed) of a smaller tree",
            smaller_head,
            ("the seal of versions", proof_problem(g, lambda ls: older(ls, g))),
        ),
        (
            "log-seal-key-id-stripped",
            "a seal's (unsigned) key id left out: the record verifies, the leaf is not logged",
            logged(key_id_stripped),
            ("the seal of versions", proof_problem(g, key_id_stripped)),
        ),
        (
            "log-seal-missing",
            "the last seal's inclusion left out",
            logged(seal_missing),
            (f"the log line has {seals - 1} inclusions for {seals} seals",),
        ),
        (
            "log-other-versions",
            "an inclusion naming other versions than its seal's",
            logged(other_versions),
            ("the log line's entry 2 names",),
        ),
        (
            "log-other-log",
            "an inclusion against a log the line has no head of",
            logged(other_log),
            (f"the log line has no tree head of log {OTHER_LOG}",),
        ),
        (
            "log-path-upper",
            "an audit path's hash in capitals",
            logged(upper_path, short=True),
            (f"{where} inclusion 1 has a field of the wrong form",),
        ),
        (
            "log-index-fullwidth",
            "a leaf index written in full-width digits, as text",
            logged(fullwidth_index, short=True),
            (f"{where} inclusion 1 has a field of the wrong form",),
        ),
        (
            "log-size-arabic",
            "a tree size of Arabic-Indic digits (bare, not JSON)",
            arabic_size,
            ("JSON",),
        ),
        (
            "log-size-text",
            "a tree size written as text (re-signed by the key holder)",
            head_edit("size", str),
            form,
        ),
        (
            "log-timestamp-offset",
            "a head's time as text ending +00:00 (re-signed)",
            head_edit("timestamp", "2026-02-01T00:00:00.000000+00:00"),
            form,
        ),
        (
            "log-timestamp-arabic",
            "a head's time in Arabic-Indic digits, as text (re-signed)",
            head_edit("timestamp", arabic),
            form,
        ),
        (
            "log-timestamp-huge",
            "a head's time of 2^53 ms (re-signed): beyond the integers both JSON readers agree on",
            head_edit("timestamp", 2**53),
            form,
        ),
        (
            "log-heads-unsorted",
            "a second head, of another log whose id sorts first (re-signed)",
            heads_unsorted,
            ("the heads are not sorted by log_id, one a log",),
        ),
        (
            "log-head-twice",
            "the same head twice (one root: no fork)",
            head_twice,
            ("the heads are not sorted by log_id, one a log",),
        ),
        (
            "log-not-last",
            "the log line before the record's last line",
            log_not_last,
            (f"line {SHORT + 1} follows the log line, which ends an export",),
        ),
        (
            "log-twice",
            "the log line written twice",
            log_twice,
            (f"line {SHORT + 2} follows the log line, which ends an export",),
        ),
        (
            "log-first",
            "the log line first",
            log_first,
            ("line 1: the log line ends the file, after the record",),
        ),
        (
            "log-in-events-form",
            "a log line ending a `tabletop export`",
            log_in_events_form,
            ("has no log line",),
        ),
    ]
    out = [refuse(f"{name}.jsonl", why, make(g), *words) for name, why, make, words in table]
    size = g.void_log["log"]["heads"][0]["size"]
    out.append(
        Vector(
            "log-fork.jsonl",
            "proof",
            ("PROOF: the server signed two different tree heads", f"at size {size}"),
            "two heads of the record's log and size with different roots, both signed by the "
            "server's key: a forked log (exit 3), not a refusal",
            forked_heads(g),
        )
    )
    return out


MUTATIONS: list[tuple[str, str, Mutation, tuple[str, ...]]] = [
    ("changed-fact", "a player renamed, the chain left", changed_fact, ("chain",)),
    (
        "changed-fact-rechained",
        "a player renamed, the chain recomputed (not re-sealed)",
        changed_fact_rechained,
        ("not signed",),
    ),
    (
        "changed-cause-resealed",
        "a seat's play given another request id by the key holder (re-chained, re-sealed)",
        changed_cause_resealed,
        ("version 5", "reveal"),
    ),
    (
        "forged-move-resealed",
        "a move in a seat's name signed with the key holder's own key (re-sealed)",
        forged_move_resealed,
        ("version 5", "seat 0's reveal", "key"),
    ),
    (
        "unsigned-move-resealed",
        "a keyed seat's move without its signature (re-sealed)",
        unsigned_move_resealed,
        ("version 5", "seat 0's reveal", "sign"),
    ),
    (
        "abandon-lied-resealed",
        "the draw said to wait for another seat, by the key holder (re-sealed)",
        abandon_lied_resealed,
        ("DealAbandoned",),
    ),
    ("seal-other-key", "one seal signed by another key", seal_by_another_key, ("names key",)),
    ("dropped-line", "a line dropped", dropped_line, ("version",)),
    (
        "dropped-renumbered",
        "a line dropped, the rest renumbered, re-chained and re-sealed",
        dropped_renumbered,
        ("seal",),
    ),
    ("swapped-lines", "two lines swapped", swapped_lines, ("version",)),
    ("duplicated-line", "a line written twice", duplicated_line, ("version",)),
    ("last-line-dropped", "the last line dropped", last_move_dropped, ("not ended",)),
    ("truncated", "cut in the middle of its last line", truncated_mid_line, ("JSON",)),
    ("duplicated-key", "a line's version written twice", duplicated_key, ("repeat",)),
    ("duplicated-inner-key", "a fact's type written twice", duplicated_inner_key, ("repeat",)),
    ("float", "a version written 4.0", float_version, ("integer",)),
    ("exponent", "a version written 4e0", exponent_version, ("integer",)),
    ("float-in-fact", "a seat count written 3.0", float_in_fact, ("integer",)),
    (
        "time-offset",
        "times written +00:00 (re-sealed)",
        lambda g: retimed(g, "+00:00"),
        ("recorded_at",),
    ),
    (
        "time-no-zone",
        "times without a zone (re-sealed)",
        lambda g: retimed(g, ""),
        ("recorded_at",),
    ),
    ("time-space", "a space for T (re-sealed)", spaced_time, ("recorded_at",)),
    (
        "time-arabic-digits",
        "a year of Arabic-Indic digits (re-sealed)",
        arabic_time,
        ("recorded_at",),
    ),
    ("time-bad-date", "month 13, day 45 (re-sealed)", bad_date, ("recorded_at",)),
    ("hash-upper", "a chain hash in capitals", upper_hash, ("hash",)),
    ("seal-extra-key", "an unsigned key inside a seal", extra_seal_key, ("seal",)),
    ("line-extra-key", "an unsigned key beside the record's", extra_line_key, ("stored event",)),
    ("line-missing-key", "a record without recorded_at", missing_line_key, ("stored event",)),
    ("bad-utf8", "a byte that is not UTF-8", bad_utf8, ("UTF-8",)),
    ("bom", "a byte order mark first", bom, ("JSON",)),
    ("nbsp", "a line indented with U+00A0", nbsp_indent, ("JSON",)),
    ("empty", "an empty file", empty, ("empty",)),
    ("not-object", "a line that is an array", not_object, ("not a JSON object",)),
    ("events-view-first", "the final view line first", view_first, ("view",)),
    ("events-event-and-view", "a line holding both event and view", event_and_view, ("event",)),
    ("events-extra-key", "a key beside event", extra_event_key, ("event",)),
    ("events-fullwidth-version", "a version of full-width digits", fullwidth_version, ("version",)),
    ("events-time-offset", "an event's time written +00:00", offset_event_time, ("recorded_at",)),
    ("events-two-views", "two view lines", two_views, ("view",)),
    ("events-mixed-forms", "both export forms in one file", mixed_forms, ("form",)),
    (
        "match-fact-after-hands",
        "MatchEnded after the hands' events",
        match_fact_after_hands,
        ("match fact",),
    ),
    ("match-no-hand", "a hand's line without its hand number", hand_line_without_hand, ("hand",)),
    ("match-extra-key", "an unsigned key beside a match fact", match_extra_key, ("match fact",)),
    ("match-truncated", "the last hand dropped", match_truncated, ("hand 2",)),
    (
        "match-null-line",
        "a line of JSON null where the log line was",
        match_null_line,
        ("is not a JSON object",),
    ),
    ("match-interleaved", "two hands' lines interleaved", match_hands_interleaved, ("hand",)),
    (
        "match-cut-resealed",
        "cut after hand 1 keeping its length, re-signed by the key holder",
        match_cut_resealed,
        ("cut short",),
    ),
    (
        "seal3-with-receipts",
        "a seal of format 3 (the head alone) given an empty list of viewers' hashes",
        seal3_with_receipts,
        ("does not list",),
    ),
    (
        "seal3-other-head",
        "a seal of format 3 naming another chain head",
        seal3_other_head,
        ("head",),
    ),
    (
        "match-unclosed-resealed",
        "a hand without its HandClosed, re-signed by the key holder",
        match_unclosed_resealed,
        ("HandClosed",),
    ),
]


# --- a rotated key ---------------------------------------------------------------------------

KEYS = "keys.json"  # the rotated server's key set, beside server.pub
KEYSETS = "keysets"  # the key set's mutations


def keys_json(g: Games) -> bytes:
    return (canonical(g.rotated.keys) + "\n").encode("utf-8")


def with_keys(file: str, verdict: str, why: str, data: bytes | None, *words: str) -> Vector:
    reason = ("verified", *words) if verdict == "accept" else words
    return Vector(file, verdict, reason, why, data, KEYS)


def thiefs_game(g: Games) -> list[Line]:
    """The thief's new game: a game played after the rotation (rotated.after), every seal
    signed anew with the old (retired) key, as the thief holding it would."""
    lines = copy.deepcopy(g.rotated.after)
    for x in lines:
        if x["seal"]:
            resign(x["seal"], g.signer)
    return lines


FILLER = b"tabletop-corpus-filler/1\n"  # the leaves before a forged log's own (not seals)


def forged_log(
    lines: list[Line], at: int, log_id: str, signer: Ed25519PrivateKey, timestamp: int
) -> Line:
    """A log line of a log of its own: ``at`` leaves of filler, then the record's seals, in
    a tree head of log ``log_id`` signed by ``signer``, as the holder of that key could make."""
    refs = logaudit.seal_refs([x["seal"] for x in lines if x["seal"]])
    tree = translog.Tree()
    for i in range(at):
        tree.append(translog.leaf_hash(FILLER + str(i).encode()))
    for ref in refs:
        tree.append(ref.leaf)
    size = len(tree)
    head = translog.TreeHead(log_id, size, tree.root().hex(), timestamp, key_id(raw_public(signer)))
    head = translog.TreeHead(**{**head.__dict__, "signature": signer.sign(head.body()).hex()})
    inclusions = tuple(
        logaudit.Inclusion(
            r.first, r.id, at + i, r.last, log_id, tuple(tree.inclusion_proof(at + i, size))
        )
        for i, r in enumerate(refs)
    )
    return logaudit.log_line(logaudit.LogProofs((head,), inclusions))


def retired_vectors(g: Games) -> list[Vector]:
    """Exports verified with the rotated server's key set (--keys keys.json): the old key's
    seals count only at or below the log's size at its retirement."""
    r = g.rotated
    old = key_id(g.key)
    retired = f"is signed by retired key {old}, retired at tree size {r.size}"
    unproven = "no tree head proves it is in the log"
    stamp = r.void_log["log"]["heads"][0]["timestamp"] + 1
    thief = thiefs_game(g)
    seals = sum(1 for x in thief if x["seal"])
    return [
        with_keys(
            "retired-key.jsonl",
            "accept",
            "the void game (sealed by the old key before the rotation) with its log line "
            "exported after it: its seals in a head signed by the new key, below the size "
            "(the base of the key set's mutations)",
            text(dump([*base(g), r.void_log])),
            "void",
            LOGGED,
            f"key {old} retired at tree size {r.size}: its seals are below it",
        ),
        with_keys(
            "rotated-new-key.jsonl",
            "accept",
            "a void game played after the rotation, sealed by the new key, with its log line",
            text(dump([*r.after, r.after_log])),
            "void",
            LOGGED,
        ),
        with_keys(
            "void.jsonl",
            "refuse",
            "the void game without a log line, with the key set: nothing proves the retired "
            "key's seals below the size",
            None,
            retired,
            unproven,
        ),
        with_keys(
            "void-log.jsonl",
            "refuse",
            "the void game with the log line exported before the rotation: its head is signed "
            "by the now retired key",
            None,
            retired,
            f"{unproven} (the tree head of log {r.log_id} is signed by retired key {old}",
        ),
        with_keys(
            "retired-thief.jsonl",
            "refuse",
            "the thief's new game: played after the rotation, re-sealed with the retired key",
            text(dump(thief)),
            retired,
            unproven,
        ),
        with_keys(
            "retired-thief-log.jsonl",
            "refuse",
            "the thief's new game with a log line of its own: its seals above the size, the "
            "head signed by the retired key",
            text(dump([*thief, forged_log(thief, r.size, r.log_id, g.signer, stamp)])),
            retired,
            f"{unproven} (the tree head of log {r.log_id} is signed by retired key {old}",
        ),
        with_keys(
            "retired-above-size.jsonl",
            "refuse",
            "the thief's new game logged above the size in a head signed by the new key (the "
            "holder of both keys): the retired key's seals count only below it",
            text(dump([*thief, forged_log(thief, r.size, r.log_id, r.successor, stamp)])),
            retired,
            f"its leaf is at index {r.size} of log {r.log_id}",
        ),
        with_keys(
            "retired-size-boundary.jsonl",
            "accept",
            "the boundary: the thief's game logged at the last indices below the size, in a "
            "head signed by the new key (only its holder could: a fork of the real log, which "
            "heads seen before would prove)",
            text(dump([*thief, forged_log(thief, r.size - seals, r.log_id, r.successor, stamp)])),
            "void",
            LOGGED,
            f"key {old} retired at tree size {r.size}: its seals are below it",
        ),
        with_keys(
            "retired-other-log.jsonl",
            "refuse",
            "the thief's new game in another log, signed by the new key: the retirement names "
            "the logs its key is retired in",
            text(dump([*thief, forged_log(thief, 0, OTHER_LOG, r.successor, stamp)])),
            retired,
            f"log {OTHER_LOG} is not one of the logs it was retired in",
        ),
    ]


KeysEdit = Callable[[Games, Line], None]


def statement(keys: Line) -> Line:
    s: Line = keys["retirements"][0]
    return s


def resign_statement(
    s: Line, retired: Ed25519PrivateKey | None, successor: Ed25519PrivateKey | None
) -> None:
    """The statement's signatures made anew over what it now says, by the keys given."""
    body = translog.retirement_body(s["logs"], s["retired"], s["successor"], s["timestamp"])
    if retired is not None:
        s["retired_signature"] = retired.sign(body).hex()
    if successor is not None:
        s["successor_signature"] = successor.sign(body).hex()


def size_raised(g: Games, keys: Line) -> None:
    logs = statement(keys)["logs"]
    logs[g.rotated.log_id] += 100


def size_raised_resigned(g: Games, keys: Line) -> None:
    size_raised(g, keys)
    resign_statement(statement(keys), g.signer, None)  # the thief holds the old key only


def signature_removed(g: Games, keys: Line) -> None:
    del statement(keys)["successor_signature"]


def signatures_swapped(g: Games, keys: Line) -> None:
    s = statement(keys)
    s["retired_signature"], s["successor_signature"] = (
        s["successor_signature"],
        s["retired_signature"],
    )


def stranger_successor(g: Games, keys: Line) -> None:
    stranger = Ed25519PrivateKey.generate()
    s = statement(keys)
    s["successor"] = key_id(raw_public(stranger))
    resign_statement(s, g.signer, stranger)


def arabic_statement_size(g: Games, keys: Line) -> None:
    logs = statement(keys)["logs"]
    logs[g.rotated.log_id] = arabic(logs[g.rotated.log_id])


def set_in_statement(field: str, value: Any) -> KeysEdit:
    def edit(g: Games, keys: Line) -> None:
        statement(keys)[field] = value

    return edit


def keys_bytes(edit: KeysEdit) -> Callable[[Games], bytes]:
    def make(g: Games) -> bytes:
        keys = copy.deepcopy(g.rotated.keys)
        edit(g, keys)
        return (json.dumps(keys, ensure_ascii=False) + "\n").encode("utf-8")

    return make


def keys_text(edit: Callable[[str], str]) -> Callable[[Games], bytes]:
    def make(g: Games) -> bytes:
        before = keys_json(g).decode("utf-8")
        after = edit(before)
        assert after != before, "the edit changed nothing"
        return after.encode("utf-8")

    return make


def keyset_vectors(g: Games) -> list[Vector]:
    """The honest export (retired-key.jsonl) verified with mutations of the key set."""
    r = g.rotated
    old, new = key_id(g.key), r.keys["key_id"]
    at = "the key set's retirement 1"
    form = (f"{at} has a field of the wrong form",)
    size = f'"{r.log_id}":{r.size}'
    table: list[tuple[str, str, Callable[[Games], bytes], tuple[str, ...]]] = [
        (
            "retirement-size-raised",
            "the retirement's tree size raised, the signatures left",
            keys_bytes(size_raised),
            (f"{at} of key {old} is not signed by its retired key {old}",),
        ),
        (
            "retirement-size-raised-resigned",
            "the retirement's tree size raised, re-signed by the old key (the thief's): the "
            "new key's signature fails",
            keys_bytes(size_raised_resigned),
            (f"{at} of key {old} is not signed by its successor key {new}",),
        ),
        (
            "retirement-signature-removed",
            "the successor's signature left out",
            keys_bytes(signature_removed),
            (f"{at} is not a key retirement",),
        ),
        (
            "retirement-signature-empty",
            "the retired key's signature empty",
            keys_bytes(set_in_statement("retired_signature", "")),
            form,
        ),
        (
            "retirement-signatures-swapped",
            "the two signatures swapped",
            keys_bytes(signatures_swapped),
            (f"{at} of key {old} is not signed by its retired key {old}",),
        ),
        (
            "retirement-extra-key",
            "an unsigned key in the retirement",
            keys_bytes(set_in_statement("note", "unsigned words")),
            (f"{at} is not a key retirement",),
        ),
        (
            "retirement-time-offset",
            "the retirement's time as text ending +00:00",
            keys_bytes(set_in_statement("timestamp", "2026-02-01T00:00:00.000000+00:00")),
            form,
        ),
        (
            "retirement-time-text",
            "the retirement's time as text ending Z (a time is milliseconds since the epoch)",
            keys_bytes(set_in_statement("timestamp", "2026-02-01T00:00:00.000000Z")),
            form,
        ),
        (
            "retirement-size-arabic",
            "the retirement's tree size in Arabic-Indic digits, as text",
            keys_bytes(arabic_statement_size),
            form,
        ),
        (
            "retirement-size-arabic-bare",
            "the retirement's tree size in Arabic-Indic digits, bare (not JSON)",
            keys_text(lambda t: t.replace(size, size.replace(str(r.size), arabic(r.size)))),
            ("the key set is not JSON",),
        ),
        (
            "retirement-size-float",
            "the retirement's tree size written with a fraction (.0)",
            keys_text(lambda t: t.replace(size, size + ".0")),
            ("the key set is not JSON",),
        ),
        (
            "retirement-key-repeated",
            "the retirement's retired key written twice (two readers, two meanings)",
            keys_text(lambda t: t.replace('"retired":"', f'"retired":"{new}","retired":"', 1)),
            ("the key set is not JSON",),
        ),
        (
            "retirement-stranger-successor",
            "a successor key not in the set (the statement signed by it and the old key)",
            keys_bytes(stranger_successor),
            (f"{at} names successor key", "which is not in the set"),
        ),
        (
            "retirement-own-successor",
            "the old key named its own successor",
            keys_bytes(set_in_statement("successor", old)),
            (f"{at} names key {old} its own successor",),
        ),
        (
            "retirement-of-current-key",
            "the statement retiring the current key",
            keys_bytes(lambda g, k: statement(k).update(retired=new, successor=old)),
            (f"{at} retires key {new}, which is not one of the retired keys",),
        ),
        (
            "retirement-twice",
            "the statement written twice",
            keys_bytes(lambda g, k: k["retirements"].append(copy.deepcopy(statement(k)))),
            (f"the key set has two retirements of key {old}",),
        ),
        (
            "keyset-extra-key",
            "an unsigned key beside the key set's",
            keys_bytes(lambda g, k: k.update(note="unsigned words")),
            ("the key set is not {key_id, public_key, retired, retirements, tree_heads}",),
        ),
        (
            "keyset-retirements-object",
            "the retirements an object, not a list",
            keys_bytes(lambda g, k: k.update(retirements=statement(k))),
            ("the key set's retired, retirements and tree_heads are not lists",),
        ),
        (
            "keyset-retired-extra-key",
            "an unsigned key beside a retired key",
            keys_bytes(lambda g, k: k["retired"][0].update(note="unsigned words")),
            ("the key set's key 2 is not {key_id, public_key}",),
        ),
        (
            "keyset-key-upper",
            "the retired public key in capitals",
            keys_bytes(lambda g, k: k["retired"][0].update(public_key=g.key.hex().upper())),
            ("the key set's key 2 has a public key that is not 64 lowercase hex digits",),
        ),
        (
            "keyset-key-id-other",
            "the current key named by the retired key's id",
            keys_bytes(lambda g, k: k.update(key_id=old)),
            (f"the key set's key 1 has a key_id other than its public key's id {new}",),
        ),
        (
            "keyset-current-retired",
            "the current key listed as retired too",
            keys_bytes(
                lambda g, k: k["retired"].append({"key_id": new, "public_key": k["public_key"]})
            ),
            (f"the key set names key {new} twice",),
        ),
        (
            "keyset-head-extra-key",
            "an unsigned key in the key set's tree head",
            keys_bytes(lambda g, k: k["tree_heads"][0].update(note="unsigned words")),
            ("the key set's tree head 1 is not a tree head",),
        ),
        (
            "keyset-bom",
            "a byte order mark first",
            lambda g: b"\xef\xbb\xbf" + keys_json(g),
            ("the key set is not JSON",),
        ),
        (
            "keyset-nbsp",
            "the key set indented with U+00A0",
            lambda g: "\u00a0".encode() + keys_json(g),
            ("the key set is not JSON",),
        ),
        (
            "keyset-bad-utf8",
            "a byte that is not UTF-8",
            lambda g: keys_json(g).replace(b'"retired"', b'"retir\xffd"', 1),
            ("the key set is not UTF-8",),
        ),
    ]
    return [
        Vector(
            "retired-key.jsonl",
            "refuse",
            words,
            why,
            None,
            f"{KEYSETS}/{name}.json",
            make(g),
        )
        for name, why, make, words in table
    ]


# the grammar's refusals need no whole game (a reader refuses a line before it verifies
# anything): these files keep the first lines only
SHORT = 3
GRAMMAR = {
    "truncated",
    "duplicated-key",
    "duplicated-inner-key",
    "float",
    "exponent",
    "float-in-fact",
    "time-offset",
    "time-no-zone",
    "time-space",
    "time-arabic-digits",
    "time-bad-date",
    "hash-upper",
    "line-extra-key",
    "line-missing-key",
    "bad-utf8",
    "bom",
    "nbsp",
    "not-object",
}


def cut(data: bytes) -> bytes:
    return b"".join(data.splitlines(keepends=True)[:SHORT])


def vectors(g: Games) -> list[Vector]:
    out = honest(g)
    for name, why, make, words in MUTATIONS:
        data = cut(make(g)) if name in GRAMMAR else make(g)
        out.append(refuse(f"{name}.jsonl", why, data, *words))
    return out + log_mutations(g) + retired_vectors(g) + keyset_vectors(g)


def write(g: Games, out: Path) -> None:
    for folder in ("files", KEYSETS):
        if (out / folder).exists():
            shutil.rmtree(out / folder)
        (out / folder).mkdir(parents=True)
    made = vectors(g)
    written = {v.file for v in made if v.data is not None}
    for v in made:
        if v.data is not None:
            (out / "files" / v.file).write_bytes(v.data)
        assert v.file in written, f"{v.file}: no vector writes it"
        if v.keyset is not None:
            (out / (v.keys or "")).write_bytes(v.keyset)
    assert len({(v.file, v.keys) for v in made}) == len(made), "a vector twice"
    (out / "server.pub").write_text(g.key.hex() + "\n")
    (out / KEYS).write_bytes(keys_json(g))
    manifest = [
        {"file": v.file, "verdict": v.verdict, "reason": list(v.reason), "why": v.why}
        | ({"keys": v.keys} if v.keys else {})
        for v in made
    ]
    (out / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    size = sum(len(v.data or b"") + len(v.keyset or b"") for v in made)
    print(f"{len(made)} vectors, {size // 1024} KB, in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE)
    write(play(), parser.parse_args().out)


if __name__ == "__main__":
    main()
