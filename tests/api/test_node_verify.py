"""Two verifiers, one verdict: the Python auditor and the Node verifier on the same exports.

Real games are played through a real server (a 花鸟风月 game whose seat 0 keeps its receipts,
a 川南字牌 game and a two-hand match), exported, and then tampered with in the ways a
record can lie: an edited event, a dropped event, a re-signed seal, a moved game id, a
receipt claiming a payload its seat was not sent, a later hand re-dealt. Several lies are
told by the holder of the server's key itself (the test reads the server's key file and
re-signs), so that the check which catches them is not merely the signature. Both
``tabletop-audit verify --file`` and ``node clients/node/bin/verify.js`` must pass every
honest export and fail every tampered one; a disagreement prints both one-line reasons.

Node.js is required: without it this test fails, it never skips.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import io
import json
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.json_format import MessageToDict

from clients.python import audit
from clients.python.audit_receipts import Replayed
from clients.python.audit_verify import match_export_lines, signing_key
from clients.python.bot import RandomBot, play_match, play_to_end
from clients.python.client import TableClient, commit_and_reveal, reveal_and_start
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog
from clients.python.serverproc import ServerProcess
from domain import match as matches
from domain.codec import canonical
from domain.match import records as match_rec
from domain.table import records as rec
from domain.verify import parse_export
from server.wire.signing import KEY_FILE
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import huaniao_options, resigned
from tests.api.test_justice import report, table_move, vote
from tests.api.test_redeal_draw import dispute, every_seat_agrees
from tests.support.nodejs import ensure_node_modules

NODE_VERIFY = Path(__file__).resolve().parents[2] / "clients" / "node" / "bin" / "verify.js"
# one worker: the module's played games (``played``, about 10 s) are set up once, not on each
pytestmark = pytest.mark.xdist_group("node_verify")

Line = dict[str, Any]


@dataclass
class Played:
    dir: Path
    key: bytes  # the server's public key
    signer: Ed25519PrivateKey  # the server's own signing key: the key holder's lies
    hua: list[Line]
    hua_events: list[str]  # the same game as `tabletop export` writes it
    receipts: list[Line]  # seat 0's saved receipts of the huaniao game
    zipai: list[Line]
    match: list[Line]
    redealt: list[Line]  # a game re-dealt once by its arbiter
    void: list[Line]  # a game whose draw was abandoned: seat 2 never revealed
    incomplete: list[Line]  # a match whose hand 2 was abandoned: seat 1 never committed
    clocked: list[Line]  # two cases timed out (unkeyed seats: its times can be re-told)
    target: list[Line]  # a 2-seat huaniao match played to a target score


ZIPAI = pb.GameOptions(
    zipai=zipai_pb2.Options(
        variant=zipai_pb2.VARIANT_LUZHOU,
        dealer_rule=zipai_pb2.DEALER_RULE_WINNER,
        scoring=zipai_pb2.SCORING_PROFILE_LUZHOU,
    )
)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    assert shutil.which("node"), "node is required for the Node verifier (install Node.js 18+)"
    ensure_node_modules()  # the verifier decodes signed commands with protobufjs
    base = tmp_path_factory.mktemp("node-verify")
    # a short case limit is allowed (the clocked game's cases time out in about a second);
    # receipts of format 2, whose seals these tamperings edit (format 3's: the corpus's
    # hua-format3 vectors and tests/api/test_receipts_v3.py)
    flags = ["--min-turn-time", "0.5", "--receipt-format", "2"]
    server_process = ServerProcess(base / "server", extra=flags)
    with server_process as server, TableClient(server.target) as client:
        key = signing_key(client)
        pem = (server.data_dir / KEY_FILE).read_bytes()
        signer = serialization.load_pem_private_key(pem, password=None)
        assert isinstance(signer, Ed25519PrivateKey)

        log = ReceiptLog()
        gid = client.create_game(huaniao_options("BASIC"), 4).game_id
        seats = [client.join(gid, s, f"花{s}", receipts=log if s == 0 else None) for s in range(4)]
        reveal_and_start(seats)
        play_to_end([RandomBot(s, 70 + i) for i, s in enumerate(seats)])
        seats[0].view()  # the final view's receipt too
        viewer = client.as_viewer(gid)
        history = list(viewer.history())
        hua = [json.loads(x) for x in export_lines(history)]
        hua_events = [
            json.dumps(
                {"event": MessageToDict(e, preserving_proto_field_name=True)}, ensure_ascii=False
            )
            for e in history
        ]
        hua_events.append(
            json.dumps(
                {"view": MessageToDict(viewer.view(), preserving_proto_field_name=True)},
                ensure_ascii=False,
            )
        )

        zid = client.create_game(ZIPAI, 3).game_id
        zseats = [client.join(zid, s, f"z{s}") for s in range(3)]
        reveal_and_start(zseats)
        play_to_end([RandomBot(s, 80 + i) for i, s in enumerate(zseats)])
        zipai = [json.loads(x) for x in export_lines(client.as_viewer(zid).history())]

        redealt = redealt_game(client)

        created = client.create_game(huaniao_options("BASIC"), 2, match=pb.MatchSettings(hands=2))
        mseats = [client.join(created.game_id, s, f"m{s}") for s in range(2)]
        reveal_and_start(mseats)
        play_match([RandomBot(s, 90 + i) for i, s in enumerate(mseats)])
        match = [json.loads(x) for x in match_export_lines(client, created.match_id, None)]
        void, incomplete = abandoned_game_and_match(client)
        clocked = clocked_game(client)
        settings = pb.MatchSettings(target_score=1)
        created = client.create_game(huaniao_options("BASIC"), 2, match=settings)
        tseats = [client.join(created.game_id, s, f"t{s}") for s in range(2)]
        reveal_and_start(tseats)
        play_match([RandomBot(s, 30 + i) for i, s in enumerate(tseats)])
        target = [json.loads(x) for x in match_export_lines(client, created.match_id, None)]
    receipts = [json.loads(x) for x in log.lines()]
    return Played(
        base,
        key,
        signer,
        hua,
        hua_events,
        receipts,
        zipai,
        match,
        redealt,
        void,
        incomplete,
        clocked,
        target,
    )


CASE_MS = 1000  # the clocked game's case limit
BUDGET_MS = 8000  # its justice budget (its first case spends about a seventh of it)


def clocked_game(client: TableClient) -> list[Line]:
    """A 川南字牌 game of unkeyed seats (no seat's signature names a chain hash, so the key
    holder can re-time any record) with two cases the server times out: seat 0 reports
    seat 1, seat 2 confirms after a while (the clock moves), seat 1 never votes; then seat 2
    reports seat 1 and nobody votes. Both close UNRESOLVED at their deadlines."""
    created = client.create_game(
        ZIPAI,
        3,
        case_time_limit_ms=CASE_MS,
        justice_budget_ms=BUDGET_MS,
        allow_unkeyed_seats=True,
    )
    gid = created.game_id
    seats = [client.join(gid, s, f"c{s}", sign=False) for s in range(3)]
    reveal_and_start(seats)
    viewer = client.as_viewer(gid)
    case = report(seats[0], 1, viewer.view().version)
    time.sleep(0.2)  # so that the vote's clock is visibly later than the opening's
    vote(seats[2], case, True, case)
    closed(viewer)
    report(seats[2], 1, viewer.view().version)
    closed(viewer)
    play_to_end([RandomBot(s, 60 + i) for i, s in enumerate(seats)])
    lines = [json.loads(x) for x in export_lines(viewer.history())]
    assert [x["cause"]["action"] for x in lines if x["fact"]["type"] == "CaseTimedOut"] == [
        "timeout",
        "timeout",
    ]
    return lines


def closed(viewer: Any) -> None:
    """Wait (well past the case limit, never for a window) until the server timed out the
    open case."""
    until = time.monotonic() + CASE_MS / 1000 + 30
    while viewer.view().cases[-1].status == pb.CASE_STATUS_OPEN:
        assert time.monotonic() < until, "the server never timed the case out"
        time.sleep(0.1)


ABANDON_MS = 3000  # the abandonment limit of the void game and the incomplete match


def abandoned_game_and_match(client: TableClient) -> tuple[list[Line], list[Line]]:
    """A 川南字牌 game whose seat 2 never reveals (void once the limit passed), and a
    2-seat huaniao match of 3 hands whose seat 1 never commits to hand 2 (the hand void,
    the match incomplete)."""
    created = client.create_game(ZIPAI, 3, abandon_after_ms=ABANDON_MS)
    seats = [client.join(created.game_id, s, f"v{s}") for s in range(3)]
    for seat in seats[:2]:
        seat.reveal()
    settings = pb.MatchSettings(hands=3)
    opened = client.create_game(
        huaniao_options("BASIC"), 2, match=settings, abandon_after_ms=ABANDON_MS
    )
    mseats = [client.join(opened.game_id, s, f"i{s}") for s in range(2)]
    reveal_and_start(mseats)
    play_to_end([RandomBot(s, 40 + i) for i, s in enumerate(mseats)])
    mseats[0].ready_next_hand()  # seat 1 never commits to hand 2
    until = time.monotonic() + ABANDON_MS / 1000 + 20
    while time.monotonic() < until:
        if (
            client.match(opened.match_id).match.finished
            and client.as_viewer(created.game_id).view().void
        ):
            break
        time.sleep(0.25)
    void = [json.loads(x) for x in export_lines(client.as_viewer(created.game_id).history())]
    assert [x["fact"]["data"] for x in void if x["fact"]["type"] == "DealAbandoned"] == [
        {"waiting_for": [2], "round": 0}
    ]
    incomplete = [json.loads(x) for x in match_export_lines(client, opened.match_id, None)]
    return void, incomplete


def redealt_game(client: TableClient) -> list[Line]:
    """A 川南字牌 game every seat re-deals once (a disputed report), drawn by a fresh
    commit–reveal; then a second dispute the keyed arbiter rules on (signed), and the game
    played to its end."""
    created = client.create_game(ZIPAI, 3, arbitrated=True)
    seats = [client.join(created.game_id, s, f"r{s}") for s in range(3)]
    reveal_and_start(seats)
    arbiter = client.as_viewer(created.game_id, created.arbiter_token)
    v = dispute(seats, arbiter.view().version)
    every_seat_agrees(seats, arbiter.view().cases[-1].id, v)  # the arbiter cannot order it
    commit_and_reveal(seats)
    v = dispute(seats, arbiter.view().version)
    ruling = table_move(rule=pb.Rule(case_id=arbiter.view().cases[-1].id, uphold=False))
    arbiter.play(ruling, v)  # signed with the arbiter key the client made at CreateGame
    play_to_end([RandomBot(s, 50 + i) for i, s in enumerate(seats)])
    lines = [json.loads(x) for x in export_lines(arbiter.history())]
    assert any(x["fact"]["type"] == "GameRedealt" for x in lines)
    return lines


# --- the two verifiers --------------------------------------------------------------------


def python_verdict(export: Path, key: str, receipts: Path | None) -> tuple[bool, str]:
    argv = ["-q", "verify", "--file", str(export), "--public-key", key]
    if receipts:
        argv += ["--receipts", str(receipts)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = audit.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    text = (out.getvalue() + err.getvalue()).strip()
    return code == 0, (text.splitlines() or ["(nothing printed)"])[0]


def node_verdict(export: Path, keys: list[str], receipts: Path | None) -> tuple[bool, str]:
    cmd = ["node", str(NODE_VERIFY), str(export)]
    for k in keys:
        cmd += ["--public-key", k]
    if receipts:
        cmd += ["--receipts", str(receipts)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    lines = (run.stdout + run.stderr).strip().splitlines()
    assert run.returncode in (0, 1, 3), (run.returncode, lines)
    if run.returncode == 3:  # a proof that the server lied: each proof on its lines
        assert lines[0].startswith("PROOF: the server signed "), lines
    else:
        assert len(lines) == 1, f"node printed {len(lines)} lines: {run.stdout}{run.stderr}"
    return run.returncode == 0, lines[0]


# --- tampering tools ----------------------------------------------------------------------


def rechain(lines: list[Line], signer: Ed25519PrivateKey | None = None) -> list[Line]:
    """Recompute a game's chain (anyone can once the secret and salt are revealed) and point
    each seal at the new heads; with ``signer`` (the key holder), re-sign every seal too."""
    shown = [x["fact"]["data"] for x in lines if x["fact"]["type"] == "ShuffleRevealed"][-1]
    key = rec.chain_key(shown["secret"], shown["salt"])
    prev = ""
    for x in lines:
        x["hash"] = rec.chain_hash(key, prev, x["version"], x["fact"], x["cause"], x["recorded_at"])
        prev = x["hash"]
        if x["seal"] is not None:
            x["seal"]["head"] = x["hash"]
            if signer is not None:
                resign(x["seal"], signer)
    return lines


def resign(seal: Line, signer: Ed25519PrivateKey) -> None:
    s = seal
    body = rec.seal_body(s["game_id"], s["first"], s["last"], s["head"], s["receipts"])
    s["signature"] = signer.sign(body).hex()
    if "key_id" in s:
        s["key_id"] = rec.key_id(raw_public(signer))


def raw_public(signer: Ed25519PrivateKey) -> bytes:
    return signer.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )


def rechain_match(lines: list[Line], signer: Ed25519PrivateKey | None = None) -> None:
    """Recompute a match's own chain (anyone can once MatchEnded reveals its secret) and
    point each match seal at the new heads; with ``signer`` (the key holder), re-sign every
    match seal too, each covering the versions after the seal before it."""
    facts = [x for x in lines if "match" in x]
    secret = facts[-1]["fact"]["data"].get("secret", "")
    prev = ""
    first = 1
    for x in facts:
        x["hash"] = match_rec.fact_hash(x["match"], secret, prev, x["version"], x["fact"])
        prev = x["hash"]
        if x.get("seal"):
            x["seal"]["head"] = x["hash"]
            if signer is not None:
                x["seal"].update(first=first, last=x["version"])
                body = match_rec.seal_body(x["match"], first, x["version"], x["hash"])
                x["seal"]["signature"] = signer.sign(body).hex()
            first = x["version"] + 1


def recompute_end(lines: list[Line]) -> None:
    """MatchEnded recomputed from the match's facts before it (as a forger would), its
    revealed secret kept."""
    facts = [x for x in lines if "match" in x]
    state = None
    for x in facts[:-1]:
        state = matches.evolve(state, matches.decode_fact(x["fact"]))
    assert state is not None
    top = tuple(s.seat for s in state.standings if s.rank == 1)
    secret = facts[-1]["fact"]["data"]["secret"]
    end = matches.MatchEnded(state.standings, top, secret=secret)
    facts[-1]["fact"] = matches.encode_fact(end)


def hand_lines(match: list[Line], hand: int) -> list[Line]:
    return [x for x in match if x.get("hand") == hand]


def as_game(lines: list[Line]) -> list[Line]:
    """A match's hand lines as a game's records (for the chain tools), same objects."""
    return [{k: v for k, v in x.items() if k not in ("hand", "game_id")} for x in lines]


def write_back(hand: list[Line], game: list[Line]) -> None:
    for h, g in zip(hand, game, strict=True):
        h.update(g)


# --- the cases ----------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    honest: bool
    make: Callable[[Played], list[str]]  # the export's lines
    receipts: Callable[[Played], list[str]] | None = None
    wrong_key: bool = False


def dump(lines: list[Line]) -> list[str]:
    return [canonical(x) for x in lines]


def edited_event(p: Played) -> list[str]:
    """A player renamed in the record, the chain recomputed: only the seals can tell."""
    lines = copy.deepcopy(p.hua)
    taken = next(x for x in lines if x["fact"]["type"] == "SeatTaken")
    taken["fact"]["data"]["player_name"] = "mallory"
    return dump(rechain(lines))


def edited_event_key_holder(p: Played) -> list[str]:
    """A card played changed and everything re-signed by the key holder: the deal and the
    replay must tell (zipai: the first deck's order changed instead)."""
    lines = copy.deepcopy(p.zipai)
    started = next(x for x in lines if x["fact"]["type"] == "GameStarted")
    deck = started["fact"]["data"]["deck"]
    deck[0], deck[-1] = deck[-1], deck[0]
    return dump(rechain(lines, p.signer))


def dropped_event(p: Played) -> list[str]:
    """A move dropped from the middle, the versions renumbered and the chain recomputed."""
    lines = copy.deepcopy(p.hua)
    i = len(lines) // 2
    del lines[i]
    for x in lines[i:]:
        x["version"] -= 1
    return dump(rechain(lines))


def resigned_seal(p: Played) -> list[str]:
    """One seal signed by another key."""
    lines = copy.deepcopy(p.hua)
    sealed = [x for x in lines if x["seal"]]
    resign(sealed[len(sealed) // 2]["seal"], Ed25519PrivateKey.generate())
    return dump(lines)


def moved_game_id(p: Played) -> list[str]:
    """A match's second hand claimed for another game id (the match record rewritten and
    rechained to agree): its seals still name the real game."""
    lines = copy.deepcopy(p.match)
    real = hand_lines(lines, 2)[0]["game_id"]
    moved = str(uuid.uuid4())
    for x in lines:
        if x.get("game_id") == real:
            x["game_id"] = moved
        if "match" in x and x["fact"]["data"].get("game_id") == real:
            x["fact"]["data"]["game_id"] = moved
    rechain_match(lines)
    return dump(lines)


def moved_seal_key_holder(p: Played) -> list[str]:
    """The key holder re-binds the last move of a game to another game id."""
    lines = copy.deepcopy(p.hua)
    lines[-1]["seal"]["game_id"] = str(uuid.uuid4())
    resign(lines[-1]["seal"], p.signer)
    return dump(lines)


def later_hand_redealt(p: Played) -> list[str]:
    """The key holder deals the match's second hand anew: another order of its deck, the
    hand's chain recomputed and every seal re-signed, the match's HandEnded and chain
    rewritten to name the new head."""
    lines = copy.deepcopy(p.match)
    hand = hand_lines(lines, 2)
    game = as_game(hand)
    started = next(x for x in game if x["fact"]["type"] == "GameStarted")
    deck = started["fact"]["data"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    rechain(game, p.signer)
    write_back(hand, game)
    gid = hand[0]["game_id"]
    for x in lines:
        if (
            "match" in x
            and x["fact"]["type"] == "HandEnded"
            and x["fact"]["data"]["game_id"] == gid
        ):
            x["fact"]["data"]["head_hash"] = hand[-1]["hash"]
    rechain_match(lines, p.signer)
    return dump(lines)


def redeal_reordered(p: Played) -> list[str]:
    """The key holder re-deals a 重新洗牌发牌 its own way: two cards of the redeal's deck
    swapped, the chain recomputed and every seal re-signed."""
    lines = copy.deepcopy(p.redealt)
    redealt = next(x for x in lines if x["fact"]["type"] == "GameRedealt")
    deck = redealt["fact"]["data"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    return dump(rechain(lines, p.signer))


def receipt_payload_swapped(p: Played) -> list[str]:
    """A saved receipt with another move's events as its payload."""
    out = copy.deepcopy(p.receipts)
    events = [i for i, r in enumerate(out) if part_of(r) == "events"]
    a, b = events[0], events[-1]
    out[a]["payload"] = out[b]["payload"]
    return [json.dumps(r, sort_keys=True) for r in out]


def receipt_claimed_key_holder(p: Played) -> list[str]:
    """The key holder signs seat 0 a receipt for events it was not sent (a payload of its
    own making, hashed with seat 0's real nonce): the record's seal disagrees."""
    out = copy.deepcopy(p.receipts)
    i = next(i for i, r in enumerate(out) if part_of(r) == "events")
    receipt = pb.Receipt.FromString(base64.b64decode(out[i]["receipt"]))
    fake = pb.ReceiptPayload(
        events=[pb.GameEvent(version=receipt.last_version, text="nothing happened")]
    )
    payload = fake.SerializeToString(deterministic=True)
    lied = hashlib.sha256(bytes(receipt.nonce) + payload).hexdigest()
    receipt = resigned(receipt, lambda body: p.signer.sign(body).hex(), "events", lied)
    out[i] = {
        "payload": base64.b64encode(payload).decode(),
        "receipt": base64.b64encode(receipt.SerializeToString(deterministic=True)).decode(),
    }
    return [json.dumps(r, sort_keys=True) for r in out]


def view_signature_moved(p: Played) -> list[str]:
    """Two genuine view receipts with their views' signatures swapped: each signature is the
    server's, but over another version's view."""
    out = copy.deepcopy(p.receipts)
    a, b = [i for i, r in enumerate(out) if part_of(r) == "view"][1:3]
    ra, rb = (pb.Receipt.FromString(base64.b64decode(out[i]["receipt"])) for i in (a, b))
    assert ra.view_signature and rb.view_signature and ra.last_version != rb.last_version
    ra.view_signature, rb.view_signature = rb.view_signature, ra.view_signature
    for i, r in ((a, ra), (b, rb)):
        out[i]["receipt"] = base64.b64encode(r.SerializeToString(deterministic=True)).decode()
    return [json.dumps(r, sort_keys=True) for r in out]


def old_seals(p: Played, alter: bool = False) -> list[str]:
    """The game as a server before issue 26 sealed it ("tabletop-seal/1": every viewer's
    events and view hashed at every move), signed with the server's key; ``alter``: one
    view hash changed afterwards (not re-signed)."""
    lines = copy.deepcopy(p.hua)
    replayed = Replayed(parse_export(dump(lines)))
    for x in lines:
        if x["seal"] is not None:
            s = x["seal"]
            s["receipts"] = replayed.hashes(s["first"], s["last"], views=True)
            resign(s, p.signer)
    if alter:
        sealed = [x for x in lines if x["seal"] is not None]
        sealed[len(sealed) // 2]["seal"]["receipts"][0][1] = "0" * 64
    return dump(lines)


def part_of(saved: Line) -> str:
    return (
        "view"
        if pb.ReceiptPayload.FromString(base64.b64decode(saved["payload"])).HasField("view")
        else "events"
    )


def honest_receipts(p: Played) -> list[str]:
    return [json.dumps(r, sort_keys=True) for r in p.receipts]


# --- a match's own record: sealed like a hand (issue 36) ----------------------------------


def match_facts(lines: list[Line]) -> list[Line]:
    return [x for x in lines if "match" in x]


def truncated_match(
    p: Played, signer: Ed25519PrivateKey | None = None, keep_length: bool = False
) -> list[str]:
    """The attack of issue 36: keep hand 1 of the 2-hand match, rewrite MatchCreated.hands
    to 1, drop the later facts and hand 2, recompute MatchEnded (another standing, perhaps
    another winner) and re-chain with the revealed secret; the last seal moved onto the new
    MatchEnded. With ``signer`` the key holder re-signs every match seal: then hand 1's own
    signed opening (naming 2 hands) refuses it. ``keep_length``: MatchCreated still says 2
    hands (the openings agree): then hand 1's own signed HandClosed, naming hand 2 as
    what follows, refuses it."""
    lines = copy.deepcopy(p.match)
    facts = match_facts(lines)
    ended1 = next(i for i, x in enumerate(facts) if x["fact"]["type"] == "HandEnded")
    end = facts[-1]
    kept = facts[: ended1 + 1]
    end["version"] = len(kept) + 1
    if not keep_length:
        kept[0]["fact"]["data"]["hands"] = 1
    if kept[-1]["seal"] is None:  # the end of hand 1 sealed alone, as the server does it
        kept[-1]["seal"] = copy.deepcopy(end["seal"])
    out = [*kept, end, *hand_lines(lines, 1)]
    recompute_end(out)
    rechain_match(out, signer)
    return dump(out)


def truncated_match_unsealed(p: Played) -> list[str]:
    """The truncation with every match seal dropped: a record made before issue 36."""
    lines = [json.loads(x) for x in truncated_match(p)]
    for x in match_facts(lines):
        x["seal"] = None
    return dump(lines)


def extended_match(p: Played, signer: Ed25519PrivateKey | None = None) -> list[str]:
    """A hand appended: MatchCreated.hands 3, hand 1 of the incomplete match (another
    table of the same kind and seats) opened and ended as hand 3, MatchEnded recomputed,
    re-chained (re-signed by ``signer`` if given)."""
    lines = copy.deepcopy(p.match)
    facts = match_facts(lines)
    mid = facts[0]["match"]
    end = facts.pop()
    facts[0]["fact"]["data"]["hands"] = 3
    extra = hand_lines(copy.deepcopy(p.incomplete), 1)
    gid = extra[0]["game_id"]
    final = [x["fact"]["data"] for x in extra if x["fact"]["type"] == "GameEnded"]
    scores = final[-1].get("scores", [0, 0]) if final else [0, 0]
    winners = final[-1].get("winners", []) if final else []
    v = len(facts)
    opened = {"type": "HandOpened", "data": {"hand": 3, "game_id": gid}}
    ended = {"type": "HandEnded", "data": {"hand": 3, "game_id": gid, "winners": winners,
             "scores": scores, "reason": "WIN", "head_hash": extra[-1]["hash"]}}  # fmt: skip
    more = [
        {"match": mid, "version": v + 1, "fact": opened, "hash": "", "seal": None},
        {"match": mid, "version": v + 2, "fact": ended, "hash": "", "seal": None},
    ]
    end["version"] = v + 3
    for x in extra:
        x["hand"] = 3
    out = [*facts, *more, end, *[x for x in lines if "match" not in x], *extra]
    recompute_end(out)
    rechain_match(out, signer)
    return dump(out)


def fact_after_end(p: Played) -> list[str]:
    """An unsealed fact appended after MatchEnded (re-chained)."""
    lines = copy.deepcopy(p.match)
    facts = match_facts(lines)
    extra = copy.deepcopy(facts[-1])
    extra.update(version=len(facts) + 1, seal=None)
    out = [*facts, extra, *[x for x in lines if "match" not in x]]
    rechain_match(out)
    return dump(out)


def reordered_match(p: Played) -> list[str]:
    """Hands 1 and 2 swapped: the match's links and each hand's lines renumbered."""
    lines = copy.deepcopy(p.match)
    first, second = hand_lines(lines, 1), hand_lines(lines, 2)
    swap = {first[0]["game_id"]: 2, second[0]["game_id"]: 1}
    for x in match_facts(lines):
        data = x["fact"]["data"]
        if data.get("game_id") in swap:
            data["hand"] = swap[data["game_id"]]
    facts = match_facts(lines)
    opened = [x for x in facts if x["fact"]["type"] == "HandOpened"]
    ended = [x for x in facts if x["fact"]["type"] == "HandEnded"]
    for pair in (opened, ended):
        pair[0]["fact"], pair[1]["fact"] = pair[1]["fact"], pair[0]["fact"]
    for x in second:
        x["hand"] = 1
    for x in first:
        x["hand"] = 2
    out = [*facts, *second, *first]
    recompute_end(out)
    rechain_match(out)
    return dump(out)


def rebound_hand(p: Played, signer: Ed25519PrivateKey | None = None) -> list[str]:
    """Hand 2 replaced by hand 1 of another match (the incomplete one: same kind and
    seats), the match's HandOpened/HandEnded rewritten to name it, MatchEnded recomputed,
    re-chained (re-signed by ``signer`` if given: then the hand's own opening, naming its
    match and number, refuses it)."""
    lines = copy.deepcopy(p.match)
    extra = hand_lines(copy.deepcopy(p.incomplete), 1)
    real = hand_lines(lines, 2)[0]["game_id"]
    gid = extra[0]["game_id"]
    for x in match_facts(lines):
        data = x["fact"]["data"]
        if data.get("game_id") == real:
            data["game_id"] = gid
            if x["fact"]["type"] == "HandEnded":
                data["head_hash"] = extra[-1]["hash"]
    for x in extra:
        x["hand"] = 2
    out = [*match_facts(lines), *hand_lines(lines, 1), *extra]
    recompute_end(out)
    rechain_match(out, signer)
    return dump(out)


def forged_match_seal(p: Played) -> list[str]:
    """One match seal signed by another key."""
    lines = copy.deepcopy(p.match)
    x = next(x for x in match_facts(lines) if x["seal"])
    body = match_rec.seal_body(x["match"], x["seal"]["first"], x["seal"]["last"], x["hash"])
    x["seal"]["signature"] = Ed25519PrivateKey.generate().sign(body).hex()
    return dump(lines)


def unclosed_match(p: Played) -> list[str]:
    """Hand 2's HandClosed dropped (as in a record made before issue 36): hand 2's lines
    stay sealed (HandClosed is a move of its own) and the match's HandEnded is pointed at
    the new head, re-chained and re-signed by the key holder."""
    lines = copy.deepcopy(p.match)
    second = hand_lines(lines, 2)
    assert second[-1]["fact"]["type"] == "HandClosed"
    lines.remove(second[-1])
    ended = [x for x in match_facts(lines) if x["fact"]["type"] == "HandEnded"]
    ended[-1]["fact"]["data"]["head_hash"] = second[-2]["hash"]
    rechain_match(lines, p.signer)
    return dump(lines)


def in_progress(p: Played) -> list[str]:
    """The match's record up to its last hand's end, without MatchEnded."""
    lines = copy.deepcopy(p.match)
    return dump([x for x in lines if not ("match" in x and x["fact"]["type"] == "MatchEnded")])


MATCH_LIES = [
    ("truncated (the issue's attack)", truncated_match, "not signed|another chain head"),
    ("truncated, seals dropped", truncated_match_unsealed, "unsealed match record"),
    (
        "truncated, re-signed by the key holder",
        lambda p: truncated_match(p, p.signer),
        "other match settings",
    ),  # fmt: skip
    (
        "truncated keeping its length, re-signed by the key holder",
        lambda p: truncated_match(p, p.signer, keep_length=True),
        "ends at hand 1 .*says hand 2 follows.*cut short",
    ),  # fmt: skip
    ("extended by a hand", extended_match, "not signed|another chain head|covers versions"),
    (
        "extended, re-signed by the key holder",
        lambda p: extended_match(p, p.signer),
        "names match|other match settings|says it is the last",
    ),  # fmt: skip
    ("hand 2 without its HandClosed", unclosed_match, "does not close with HandClosed"),
    ("a fact after MatchEnded", fact_after_end, "stops before its MatchEnded|not sealed"),
    ("hands reordered", reordered_match, "not signed|another chain head"),
    ("a hand re-bound from another match", rebound_hand, "not signed|another chain head"),
    (
        "re-bound, re-signed by the key holder",
        lambda p: rebound_hand(p, p.signer),
        "names match|this match",
    ),  # fmt: skip
    ("a match seal by another key", forged_match_seal, "not signed"),
    ("in progress (no MatchEnded)", in_progress, "stops before its MatchEnded"),
]


def test_a_bent_match_fails_in_both_verifiers(played: Played) -> None:
    """Issue 36: a match's record is sealed; cut short, extended, reordered, re-bound or
    signed by another key, it fails in Python and Node with a named reason, and no failing
    verdict names a winner."""
    key = played.key.hex()
    problems = []
    for n, (name, make, words) in enumerate(MATCH_LIES):
        export = played.dir / f"match-lie{n}.jsonl"
        export.write_text("".join(line + "\n" for line in make(played)), encoding="utf-8")
        py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
        print(f"{name}\n    python: {py[1]}\n    node:   {js[1]}")
        for who, (ok, line) in (("python", py), ("node", js)):
            if ok or not re.search(words, line) or re.search(r"winners \[|won by", line):
                problems.append(f"{name}: {who} {'PASS' if ok else 'FAIL'}: {line}")
    assert not problems, "\n".join(problems)


def test_honest_matches_verify_in_both(played: Played) -> None:
    """A match to a target score, a 2-hand match and an incomplete one verify in both, with
    the same winners."""
    key = played.key.hex()
    for name, lines in (("target", played.target), ("hands", played.match)):
        export = played.dir / f"honest-{name}.jsonl"
        export.write_text("".join(line + "\n" for line in dump(lines)), encoding="utf-8")
        py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
        assert py[0] and js[0], (name, py, js)
        end = match_facts(lines)[-1]["fact"]["data"]
        assert f"winners {end['winners']}" in py[1], py
        assert f"winners [{', '.join(map(str, end['winners']))}]" in js[1], js
    created = match_facts(played.target)[0]["fact"]["data"]
    assert created["target_score"] == 1 and created["secret"] == ""
    assert all(x["seal"] for x in match_facts(played.target) if x["fact"]["type"] == "MatchEnded")


def test_a_match_hand_alone_says_what_follows_it_in_both(played: Played) -> None:
    """Issue 36: each hand of a match, exported and verified alone, says in its verify
    line what its own signed stream says follows it, in both verifiers."""
    key = played.key.hex()
    mid = match_facts(played.match)[0]["match"]
    second = hand_lines(played.match, 2)[0]["game_id"]
    for n, follows in ((1, f"hand 2 follows: {second}"), (2, "the last")):
        export = played.dir / f"hand{n}-alone.jsonl"
        game = as_game(hand_lines(copy.deepcopy(played.match), n))
        export.write_text("".join(line + "\n" for line in dump(game)), encoding="utf-8")
        py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
        words = f"hand {n} of match {mid} ({follows})"
        assert py[0] and js[0] and words in py[1] and words in js[1], (py, js)


CASES = [
    Case("honest huaniao game", True, lambda p: dump(p.hua)),
    Case("honest huaniao game, `tabletop export` form", True, lambda p: p.hua_events),
    Case("honest zipai game", True, lambda p: dump(p.zipai)),
    Case("honest match", True, lambda p: dump(p.match)),
    Case("honest re-dealt game", True, lambda p: dump(p.redealt)),
    Case("honest seat 0 receipts", True, lambda p: dump(p.hua), honest_receipts),
    Case("signed by another key than the one given", False, lambda p: dump(p.hua), wrong_key=True),
    Case("old seals: every view hashed (tabletop-seal/1)", True, old_seals),
    Case("old seals, a view hash altered", False, lambda p: old_seals(p, alter=True)),
    Case(
        "a view's signature moved to another view",
        False,
        lambda p: dump(p.hua),
        view_signature_moved,
    ),
    Case("edited event (chain recomputed)", False, edited_event),
    Case("edited deck, re-signed by the key holder", False, edited_event_key_holder),
    Case("dropped event (renumbered, rechained)", False, dropped_event),
    Case("re-signed seal (another key)", False, resigned_seal),
    Case("moved game id (a match's hand)", False, moved_game_id),
    Case("moved game id (a seal, re-signed by the key holder)", False, moved_seal_key_holder),
    Case(
        "receipt payload the seat was not sent",
        False,
        lambda p: dump(p.hua),
        receipt_payload_swapped,
    ),
    Case(
        "receipt the key holder signed for events not sent",
        False,
        lambda p: dump(p.hua),
        receipt_claimed_key_holder,
    ),
    Case("later hand re-dealt (re-signed by the key holder)", False, later_hand_redealt),
    Case("a redeal dealt otherwise (re-signed by the key holder)", False, redeal_reordered),
]


def test_both_verifiers_agree_on_honest_and_tampered_exports(played: Played) -> None:
    key = played.key.hex()
    other = raw_public(Ed25519PrivateKey.generate()).hex()
    verdicts = []
    for n, case in enumerate(CASES):
        export = played.dir / f"case{n}.jsonl"
        export.write_text("".join(line + "\n" for line in case.make(played)), encoding="utf-8")
        receipts = None
        if case.receipts:
            receipts = played.dir / f"case{n}.receipts"
            receipts.write_text("".join(line + "\n" for line in case.receipts(played)))
        given = other if case.wrong_key else key
        py = python_verdict(export, given, receipts)
        js = node_verdict(export, [given], receipts)
        verdicts.append((case, py, js))
    problems = [
        f"{case.name}: expected {'pass' if case.honest else 'fail'}\n"
        f"    python {'PASS' if py[0] else 'FAIL'}: {py[1]}\n"
        f"    node   {'PASS' if js[0] else 'FAIL'}: {js[1]}"
        for case, py, js in verdicts
        if not (py[0] == js[0] == case.honest)
    ]
    for case, py, js in verdicts:  # shown with -s
        print(f"{case.name}\n    python: {py[1]}\n    node:   {js[1]}")
    assert not problems, "the verifiers disagree or miss a lie:\n" + "\n".join(problems)
    for case, _py, js in verdicts:  # Node names the key that signed
        if case.honest:
            assert f"signed by key {rec.key_id(played.key)}" in js[1], js[1]


def test_both_verifiers_say_void_and_incomplete_alike(played: Played) -> None:
    """A void game and an incomplete match verify in both languages, in the same words; a
    void game whose DealAbandoned names another seat, or an incomplete match claiming a
    winner, fails in both (the key holder re-signs, so only the rule can tell)."""
    key = played.key.hex()
    export = played.dir / "void.jsonl"
    export.write_text("".join(line + "\n" for line in dump(played.void)))
    py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
    assert py[0] and js[0], (py, js)
    words = "void: no deal, waiting for seat(s) 2"
    assert words in py[1] and words in js[1], (py, js)
    export = played.dir / "incomplete.jsonl"
    export.write_text("".join(line + "\n" for line in dump(played.incomplete)))
    py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
    assert py[0] and js[0], (py, js)
    words = "match INCOMPLETE: hand 2 void (no deal, waiting for seat(s) 1)"
    assert words in py[1] and words in js[1], (py, js)

    lied = copy.deepcopy(played.void)
    abandoned = next(x for x in lied if x["fact"]["type"] == "DealAbandoned")
    abandoned["fact"]["data"]["waiting_for"] = [1]
    export = played.dir / "void-lied.jsonl"
    export.write_text("".join(line + "\n" for line in dump(rechain(lied, played.signer))))
    py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
    assert not py[0] and not js[0], (py, js)

    lied = copy.deepcopy(played.incomplete)
    ended = next(x for x in lied if "match" in x and x["fact"]["type"] == "MatchEnded")
    ended["fact"]["data"]["winners"] = [0]
    rechain_match(lied, played.signer)
    export = played.dir / "incomplete-lied.jsonl"
    export.write_text("".join(line + "\n" for line in dump(lied)))
    py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
    assert not py[0] and not js[0], (py, js)


def test_node_picks_the_key_a_seal_names_among_several(played: Played) -> None:
    """Several --public-key: a seal is checked with the key its key_id names (any given
    key when it names none); a key_id matching no given key fails naming that id."""
    export = played.dir / "keys.jsonl"
    export.write_text("".join(line + "\n" for line in dump(played.hua)))
    key = played.key.hex()
    other = raw_public(Ed25519PrivateKey.generate()).hex()
    ok, line = node_verdict(export, [other, key], None)
    assert ok, line
    ok, line = node_verdict(export, [other], None)
    assert not ok and ("not signed" in line or "names key" in line), line
    # every seal naming the real key's id: fine; naming an unknown id: fails with the id
    lines = copy.deepcopy(played.hua)
    for x in lines:
        if x["seal"]:
            x["seal"]["key_id"] = rec.key_id(played.key)
    export.write_text("".join(line + "\n" for line in dump(lines)))
    ok, line = node_verdict(export, [other, key], None)
    assert ok and f"signed by key {rec.key_id(played.key)}" in line, line
    lines[-1]["seal"]["key_id"] = "0123456789abcdef"
    export.write_text("".join(line + "\n" for line in dump(lines)))
    ok, line = node_verdict(export, [other, key], None)
    assert not ok and "0123456789abcdef" in line, line


def test_the_records_test_vectors_in_the_docs_are_the_servers() -> None:
    """docs/api.md's record test vectors (which clients/node/test/verify.test.js checks the
    Node verifier against) are what the server's own code computes."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- record-test-vectors -->\n```json\n(.*?)\n```", doc, re.S)
    assert found, "docs/api.md lost its record test vectors"
    v = json.loads(found.group(1))
    key = rec.chain_key(v["secret"], v["salt"])
    assert key.hex() == v["chain_key"]
    e = v["event"]
    chained = f"{e['prev_hash']}|{e['version']}|{canonical(e['fact'])}|{canonical(e['cause'])}|{e['recorded_at']}"
    assert chained == v["event_chained_text"]
    assert (
        rec.chain_hash(key, e["prev_hash"], e["version"], e["fact"], e["cause"], e["recorded_at"])
        == v["event_hash"]
    )
    m = v["match"]  # a match record made before issue 36: keyed by its id alone
    assert match_rec.legacy_chain_key(m["match_id"]).hex() == m["chain_key"]
    legacy = match_rec.legacy_fact_hash(m["match_id"], m["prev_hash"], m["version"], m["fact"])
    assert legacy == m["hash"]
    m2 = v["match_v2"]  # today's: keyed by the match's secret, each move sealed
    assert match_rec.chain_key(m2["match_id"], m2["secret"]).hex() == m2["chain_key"]
    digest = match_rec.fact_hash(
        m2["match_id"], m2["secret"], m2["prev_hash"], m2["version"], m2["fact"]
    )
    assert digest == m2["hash"]
    s = v["seal"]
    body = rec.seal_body(s["game_id"], s["first"], s["last"], s["head"], s["receipts"])
    assert body.decode() == v["seal_signed_bytes"]
    signer = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_key_seed"]))
    assert raw_public(signer).hex() == v["public_key"]
    assert rec.key_id(bytes.fromhex(v["public_key"])) == v["key_id"]
    assert signer.sign(body).hex() == v["signature"]
    s2 = v["seal_v2"]  # today's seals: each viewer's events hash; views signed on their own
    body2 = rec.seal_body(s2["game_id"], s2["first"], s2["last"], s2["head"], s2["receipts"])
    assert body2.decode() == v["seal_v2_signed_bytes"]
    assert signer.sign(body2).hex() == v["seal_v2_signature"]
    ms = m2["seal"]
    match_body = match_rec.seal_body(ms["match_id"], ms["first"], ms["last"], ms["head"])
    assert match_body.decode() == m2["seal_signed_bytes"]
    assert signer.sign(match_body).hex() == m2["seal_signature"]
    w = v["view"]
    view = rec.view_body(w["game_id"], w["version"], w["head"], w["viewer"], w["view"])
    assert view.decode() == v["view_signed_bytes"]
    assert signer.sign(view).hex() == v["view_signature"]
    r = v["receipt"]
    nonce = rec.receipt_nonce(v["secret"], v["salt"], r["last"], r["index"])
    assert nonce.hex() == r["nonce"]
    assert rec.receipt_hash(nonce, bytes.fromhex(r["payload"])) == r["hash"]


# --- seat signatures (docs/api.md, "Seat signatures") -------------------------------------


def _seat_plays(lines: list[Line]) -> list[Line]:
    """The signed plays of the seat that played most (a seat's own moves)."""
    plays = [
        x for x in lines if (x["cause"] or {}).get("action") == "play" and x["cause"].get("signed")
    ]
    seats = {x["cause"]["seat"] for x in plays}
    best = max(seats, key=lambda s: sum(x["cause"]["seat"] == s for x in plays))
    return [x for x in plays if x["cause"]["seat"] == best]


def unsigned_play_key_holder(p: Played) -> list[str]:
    """The key holder writes a keyed seat's move without its signature (rechained, every
    seal re-signed): only the seat's signature can tell."""
    lines = copy.deepcopy(p.hua)
    play = _seat_plays(lines)[0]
    del play["cause"]["signed"]
    return dump(rechain(lines, p.signer))


def moved_signature_key_holder(p: Played) -> list[str]:
    """The key holder moves a seat's signed reveal onto one of its moves."""
    lines = copy.deepcopy(p.hua)
    play = _seat_plays(lines)[0]
    seat = play["cause"]["seat"]
    reveal = next(
        x
        for x in lines
        if (x["cause"] or {}).get("action") == "reveal" and x["cause"]["seat"] == seat
    )
    play["cause"]["signed"] = copy.deepcopy(reveal["cause"]["signed"])
    return dump(rechain(lines, p.signer))


def forged_key_key_holder(p: Played) -> list[str]:
    """The key holder seats a player under a key of its own and signs the player's commands
    with it: the join's own signature (made by the seat's device) no longer checks."""
    lines = copy.deepcopy(p.hua)
    taken = next(x for x in lines if x["fact"]["type"] == "SeatTaken")
    taken["fact"]["data"]["public_key"] = raw_public(Ed25519PrivateKey.generate()).hex()
    return dump(rechain(lines, p.signer))


def carried_key_swapped_key_holder(p: Played) -> list[str]:
    """The key holder seats a match's later hand under another key than the seat ended the
    hand before with (the hand's joins are the server's own, unsigned)."""
    lines = copy.deepcopy(p.match)
    hand = hand_lines(lines, 2)
    game = as_game(hand)
    taken = next(x for x in game if x["fact"]["type"] == "SeatTaken")
    taken["fact"]["data"]["public_key"] = raw_public(Ed25519PrivateKey.generate()).hex()
    rechain(game, p.signer)
    write_back(hand, game)
    gid = hand[0]["game_id"]
    for x in lines:
        if (
            "match" in x
            and x["fact"]["type"] == "HandEnded"
            and x["fact"]["data"]["game_id"] == gid
        ):
            x["fact"]["data"]["head_hash"] = hand[-1]["hash"]
    rechain_match(lines, p.signer)
    return dump(lines)


SEAT_LIES = [
    ("a keyed seat's move without its signature", unsigned_play_key_holder, "not signed"),
    ("a seat's signed reveal moved onto its move", moved_signature_key_holder, "Play"),
    ("a seat's key replaced by the key holder's", forged_key_key_holder, "does not check"),
    # the seat signs in hand 2 with its own key (caught there first), or the carried key
    # differs from the one it ended hand 1 with
    (
        "a later hand's carried key replaced",
        carried_key_swapped_key_holder,
        "does not check|sits down with key",
    ),
]


def test_node_checks_every_seat_signature(played: Played) -> None:
    """The honest exports name their keyed seats; every lie about a seat's signature, told
    by the holder of the server's key (so every seal and chain hash checks), fails in Node
    naming what is wrong, and the Python verifier refuses it too (both verdicts printed, -s)."""
    key = played.key.hex()
    for name, lines in (("game", dump(played.hua)), ("match", dump(played.match))):
        export = played.dir / f"keyed-{name}.jsonl"
        export.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        ok, line = node_verdict(export, [key], None)
        assert ok and re.search(r"seat keys: seat\(s\) 0, 1(, 2, 3)? keyed: [1-9]", line), line
        assert "UNKEYED" not in line and "RE-KEYED" not in line, line
    for n, (name, make, words) in enumerate(SEAT_LIES):
        export = played.dir / f"seat-lie{n}.jsonl"
        export.write_text("".join(line + "\n" for line in make(played)), encoding="utf-8")
        ok, line = node_verdict(export, [key], None)
        py_ok, py_line = python_verdict(export, key, None)
        print(f"{name}\n    python: {py_line}\n    node:   {line}")
        assert not ok and re.search(words, line), f"{name}: {line}"
        assert not py_ok, f"{name}: the Python verifier accepts what Node refuses: {py_line}"


# --- the recorded clock (docs/api.md, "Justice"; "Every hand, every redeal") --------------


def when(line: Line) -> datetime:
    return datetime.fromisoformat(line["recorded_at"])


def retimed(lines: list[Line], first: int, at: Callable[[datetime], datetime]) -> None:
    """The move that starts at index ``first`` recorded at ``at(its time)``."""
    end = first + 1
    while end < len(lines) and lines[end]["cause"] is None:
        end += 1
    for x in lines[first:end]:
        x["recorded_at"] = rec.timestamp_text(at(when(x)))


def first_index(lines: list[Line], fact_type: str) -> int:
    return next(i for i, x in enumerate(lines) if x["fact"]["type"] == fact_type)


def case_cut_short_key_holder(p: Played) -> list[str]:
    """The key holder times the first case out one case limit after its opening (plus a
    millisecond), though the confirming vote moved its clock later: due one limit after
    the vote."""
    lines = copy.deepcopy(p.clocked)
    opened = when(lines[first_index(lines, "ViolationReported")])
    voted = when(lines[first_index(lines, "VoteCast")])
    cut = opened + timedelta(milliseconds=CASE_MS + 1)
    assert voted + timedelta(milliseconds=CASE_MS) > cut, "the vote moved the clock"
    timeout = first_index(lines, "CaseTimedOut")
    assert lines[timeout]["cause"]["action"] == "timeout" and when(lines[timeout - 1]) < cut
    retimed(lines, timeout, lambda _at: cut)
    return dump(rechain(lines, p.signer))


def report_past_budget_key_holder(p: Played) -> list[str]:
    """The key holder records the first case's timeout, and everything after it, one whole
    justice budget later: the second report is then filed with the budget spent."""
    lines = copy.deepcopy(p.clocked)
    later = timedelta(milliseconds=BUDGET_MS)
    for i in range(first_index(lines, "CaseTimedOut"), len(lines)):
        lines[i]["recorded_at"] = rec.timestamp_text(when(lines[i]) + later)
    return dump(rechain(lines, p.signer))


def abandoned_early_key_holder(p: Played) -> list[str]:
    """The key holder records the void game's abandonment at its latest reveal's time,
    before the table's abandonment limit (seat signatures name earlier hashes only)."""
    lines = copy.deepcopy(p.void)
    i = first_index(lines, "DealAbandoned")
    assert lines[i]["cause"]["action"] == "abandon"
    latest = when(lines[i - 1])
    retimed(lines, i, lambda _at: latest)
    return dump(rechain(lines, p.signer))


CLOCK_LIES = [
    (
        "a case timed out before its vote's deadline",
        case_cut_short_key_holder,
        "the case was timed out before its deadline",
    ),
    (
        "a report filed once the hand's justice budget was spent",
        report_past_budget_key_holder,
        "JUSTICE_BUDGET_SPENT [仲裁 time budget]: this hand's cases have paused it for its "
        f"whole budget ({BUDGET_MS} ms)",
    ),
    (
        "a draw abandoned before its limit",
        abandoned_early_key_holder,
        "the draw was abandoned before the table's abandonment limit passed",
    ),
]


def test_both_verifiers_check_the_recorded_clock(played: Played) -> None:
    """The game with two timed-out cases verifies in both languages; each lie about its
    clock (or the void game's), told by the holder of the server's key so that every chain
    hash and seal checks, fails in both, naming the same version and rule."""
    key = played.key.hex()
    export = played.dir / "clocked.jsonl"
    export.write_text("".join(line + "\n" for line in dump(played.clocked)), encoding="utf-8")
    py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
    assert py[0] and js[0], (py, js)
    for n, (name, make, words) in enumerate(CLOCK_LIES):
        export = played.dir / f"clock-lie{n}.jsonl"
        export.write_text("".join(line + "\n" for line in make(played)), encoding="utf-8")
        py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
        print(f"{name}\n    python: {py[1]}\n    node:   {js[1]}")
        assert not py[0] and words in py[1], f"{name}: python: {py[1]}"
        assert not js[0] and words in js[1], f"{name}: node: {js[1]}"
        version = re.search(r"version \d+", py[1])
        assert version and version.group() in js[1], f"{name}: {py[1]} / {js[1]}"


# --- the arbiter's signature (issue 35: nobody but the table's named arbiter rules) ----------


def _ruling(lines: list[Line]) -> Line:
    return next(
        x
        for x in lines
        if (x["cause"] or {}).get("action") == "play" and x["cause"]["command"]["type"] == "Rule"
    )


def unsigned_ruling_key_holder(p: Played) -> list[str]:
    """The key holder writes the ruling without the arbiter's signature (rechained, every
    seal re-signed): the operator ruling in the arbiter's place."""
    lines = copy.deepcopy(p.redealt)
    del _ruling(lines)["cause"]["signed"]
    return dump(rechain(lines, p.signer))


def own_key_ruling_key_holder(p: Played) -> list[str]:
    """The key holder signs the arbiter's ruling with a key of its own."""
    lines = copy.deepcopy(p.redealt)
    signed = _ruling(lines)["cause"]["signed"]
    command = base64.b64decode(signed["command"])
    forged = Ed25519PrivateKey.generate().sign(b"tabletop-seat-command/1\n" + command)
    signed["signature"] = base64.b64encode(forged).decode("ascii")
    return dump(rechain(lines, p.signer))


def test_both_verifiers_check_the_arbiters_signature(played: Played) -> None:
    """The honest export of an arbitrated game names its keyed arbiter in both verifiers;
    a ruling the arbiter did not sign, written by the holder of the server's key, fails in
    both."""
    key = played.key.hex()
    export = played.dir / "arbiter-honest.jsonl"
    export.write_text("".join(line + "\n" for line in dump(played.redealt)), encoding="utf-8")
    ok, line = node_verdict(export, [key], None)
    assert ok and "the arbiter keyed: 1 arbiter signature(s) checked" in line, line
    ok, line = python_verdict(export, key, None)
    assert ok, line
    lies = [
        ("an unsigned ruling", unsigned_ruling_key_holder, "not signed|no arbiter signature"),
        (
            "a ruling in the key holder's key",
            own_key_ruling_key_holder,
            "does not check|not signed by",
        ),
    ]
    for n, (name, make, words) in enumerate(lies):
        export = played.dir / f"arbiter-lie{n}.jsonl"
        export.write_text("".join(line + "\n" for line in make(played)), encoding="utf-8")
        node_ok, node_line = node_verdict(export, [key], None)
        py_ok, py_line = python_verdict(export, key, None)
        print(f"{name}\n    python: {py_line}\n    node:   {node_line}")
        assert not node_ok and re.search(words, node_line), f"{name}: {node_line}"
        assert not py_ok and re.search(words, py_line), f"{name}: {py_line}"


# --- seats the lobby reserved (issue 40: a seat goes to the player it was kept for) ---------


def reserved(p: Played, seat_player: str, kept_for: str) -> list[str]:
    """The clocked game (unkeyed seats: no signed head hash pins its chain) as if the lobby
    had formed it, told by the key holder (rechained, every seal re-signed): GameCreated
    reserves seat 1 for ``kept_for``, and seat 1's SeatTaken names ``seat_player`` as the
    login that took it."""
    lines = copy.deepcopy(p.clocked)
    created = lines[0]["fact"]["data"]
    created["reserved_players"] = ["" if s != 1 else kept_for for s in range(created["seat_count"])]
    taken = next(
        x for x in lines if x["fact"]["type"] == "SeatTaken" and x["fact"]["data"]["seat"] == 1
    )
    taken["fact"]["data"]["player"] = seat_player
    return dump(rechain(lines, p.signer))


def test_both_verifiers_re_decide_a_reserved_seat(played: Played) -> None:
    """A seat kept for one player and taken by that player verifies in both languages; the
    same seat taken by another login, or by a seat token alone, fails in both (the key
    holder re-signs, so only the rule can tell)."""
    key = played.key.hex()
    cases = {
        "taken by its player": (reserved(played, "d" * 64, "d" * 64), True),
        "taken by another login": (reserved(played, "e" * 64, "d" * 64), False),
        "taken without the login": (reserved(played, "", "d" * 64), False),
    }
    for n, (name, (lines, honest)) in enumerate(cases.items()):
        export = played.dir / f"reserved{n}.jsonl"
        export.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        py, js = python_verdict(export, key, None), node_verdict(export, [key], None)
        print(f"{name}\n    python: {py[1]}\n    node:   {js[1]}")
        assert py[0] == js[0] == honest, (name, py, js)
        if not honest:
            assert "SEAT_RESERVED" in py[1] and "SEAT_RESERVED" in js[1], (name, py, js)
