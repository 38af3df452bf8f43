"""The CLI's rough edges of issue 29, each against what a person sees: ids never cut, cards
and counts in the game's words, the open case found for a vote, a running game's verify, a
watched game's last line, the help texts."""

from __future__ import annotations

import io
import json
import re
import stat
from pathlib import Path

import pytest
from rich.console import Console

from clients.python import audit, cli, cli_common, cli_play, cli_tables, play_panels
from clients.python import play as playing
from clients.python import replay as replaying
from clients.python.bot import make_bot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.render import Narration
from clients.python.serverproc import ServerProcess
from clients.python.vocab import card_from_word
from tabletop.huaniao.v1 import huaniao_pb2 as hn
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2 as zp
from tests.api.helpers import seated_game

GAME_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def rendered(renderable: object, width: int = 120) -> str:
    out = io.StringIO()
    Console(file=out, width=width, highlight=False, color_system=None).print(renderable)
    return out.getvalue()


def finished_game(client: TableClient, kind: str = "huaniao", seed: int = 3) -> str:
    seats_n = 4 if kind == "huaniao" else 3
    game_id = client.create_game(playing.game_options(kind), seats_n, seed=seed).game_id
    seats = [client.join(game_id, s, f"p{s}", "") for s in range(seats_n)]
    reveal_and_start(seats)
    play_to_end([make_bot(s, "heuristic", seed) for s in seats])
    return game_id


# --- ids, at any width ------------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 50])
def test_the_bots_table_never_cuts_a_game_id(width: int) -> None:
    ids = ["dacfc134-0ff6-4f4e-9a51-2f1e0c7d9b11", "0b6c7d2e-5f41-4c7a-8e0d-93a1b2c3d4e5"]
    results = [
        {
            "game_id": g,
            "seed": None,
            "moves": 12,
            "version": 40,
            "winners": [1],
            "reason": "EMPTIED_HAND",
            "seconds": 0.25,
        }
        for g in ids
    ]
    text = rendered(
        cli_tables.bots_table("2 huaniao game(s), heuristic bots", results, False), width
    )
    assert GAME_ID.findall(text) == ids, text
    if width == 80:
        assert "率先打完手牌" in text and "EMPTIED_HAND" not in text


def test_bots_piped_print_whole_ids(
    server: ServerProcess, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_common.console, "width", 80)  # what a pipe gets
    cli.main(["--target", server.target, "-q", "bots", "--games", "2", "--seed", "21"])
    out = capsys.readouterr().out
    assert len(set(GAME_ID.findall(out))) == 2, out


# --- `tabletop view` at 80 columns ------------------------------------------------------------


def zipai_table_view() -> pb.GameView:
    """Three 川南字牌 seats with full hands, melds of every shape and long rows of discards."""

    def card(i: int) -> zp.Card:
        return zp.Card(id=i, rank=i % 10 + 1, big=(i // 10) % 2 == 1)

    seats = []
    for s in range(3):
        hand = [card(40 * s + i) for i in range(14)]
        melds = [
            zp.MeldView(
                kind=zp.MELD_KIND_PENG,
                group=zp.GROUP_KIND_TRIPLE,
                cards=[card(5)] * 3,
                taken=card(5),
                from_seat=(s + 1) % 3,
            ),
            zp.MeldView(
                kind=zp.MELD_KIND_CHI, group=zp.GROUP_KIND_DA_DA_XIAO, cards=[card(8), card(18)]
            ),
            zp.MeldView(kind=zp.MELD_KIND_LONG, group=zp.GROUP_KIND_FOUR, hidden_size=3),
        ]
        seats.append(
            zp.SeatView(
                seat=s,
                hand=hand,
                hand_size=14,
                melds=melds,
                discards=[card(i) for i in range(12)],
                played=list(range(0, 20, 2)),
            )
        )
    return pb.GameView(
        game_id="dacfc134-0ff6-4f4e-9a51-2f1e0c7d9b11",
        seats=[pb.SeatInfo(seat=s, taken=True, player_name=f"p{s}") for s in range(3)],
        zipai=zp.View(seats=seats, phase=zp.PHASE_DISCARD),
    )


@pytest.mark.parametrize("width", [80, 60])
def test_the_view_cuts_no_card_and_says_its_shapes_in_the_games_words(width: int) -> None:
    """`tabletop view` at 80 columns (and piped): every seat's hand and discards whole, no
    ellipsis; melds by their shapes' Chinese names, never "triple" or "da da xiao"."""
    from clients.python.render import card_text, view_renderable

    view = zipai_table_view()
    text = rendered(view_renderable(view), width)
    assert "…" not in text, text
    lines = [line.strip() for line in text.splitlines()]
    for seat in view.zipai.seats:
        for row in (seat.hand, seat.discards):
            assert any(card_text(row).plain in line for line in lines), (card_text(row).plain, text)
    words = re.sub(r"\([a-z ]+\)", "", text)  # the vocabulary's glosses: 碰 (pong)
    for english in ("triple", "four", "da da xiao", "run", "long", "peng", "chi"):
        assert not re.search(rf"\b{english}\b", words), english
    assert "大大小" in text and "碰" in text and "拢" in text
    assert "三张" not in text and "四张" not in text, "a 碰 or 拢 says its own shape"
    assert GAME_ID.search(text)
    # a wide terminal still gets the one table, a row a seat
    wide = rendered(view_renderable(view), 240)
    assert "seat 0\n" not in wide and re.search(r"seat +player +hand", wide), wide


# --- the play menu and prompt -----------------------------------------------------------


def zipai_view(hand: list[zp.Card]) -> pb.GameView:
    return pb.GameView(zipai=zp.View(seats=[zp.SeatView(seat=0, hand=hand)]))


def discard(card: int) -> pb.Move:
    return pb.Move(zipai=zp.Command(discard=zp.Discard(seat=0, card=card)))


def test_a_zipai_pair_is_one_menu_row() -> None:
    view = zipai_view(
        [zp.Card(id=7, rank=1, big=True), zp.Card(id=8, rank=1, big=True), zp.Card(id=3, rank=5)]
    )
    legal = pb.LegalMovesResponse(
        moves=[discard(7), discard(8), discard(3)], labels=["打 壹", "打 壹", "打 五"]
    )
    rows = play_panels.menu_rows(legal, view)
    assert [r.label for r in rows] == ["打 五", "打 壹"]
    assert rendered(play_panels.menu_table(rows, view)).count("壹") == 1


def test_the_huaniao_menu_is_sorted_by_kind_then_count() -> None:
    cards = [hn.Card(id=i, kind=k) for i, k in enumerate([1, 1, 1, 5, 8], start=1)]
    view = pb.GameView(huaniao=hn.View(seats=[hn.SeatView(seat=0, cards=cards)]))

    def play(*ids: int) -> pb.Move:
        return pb.Move(huaniao=hn.Command(play=hn.Play(seat=0, cards=ids)))

    legal = pb.LegalMovesResponse(
        moves=[play(1, 2, 3), play(5), play(1, 4), play(1)],
        labels=["诵 3", "舞 月 → seat 1", "诵 5", "吟 1"],
    )
    assert [r.label for r in play_panels.menu_rows(legal, view)] == [
        "吟 1",
        "诵 3",
        "诵 5",
        "舞 月 → seat 1",
    ]


def test_one_card_is_not_one_cards() -> None:
    g = hn.View(
        seats=[
            hn.SeatView(seat=0, cards=[hn.Card(id=1, kind=1)]),
            hn.SeatView(seat=1, hand_count=1),
            hn.SeatView(seat=2, hand_count=2),
        ],
        deck_size=1,
        phase=hn.PHASE_DISCARDING,
    )
    g.seats[0].owes_discard = 1
    text = rendered(play_panels.huaniao_panel(pb.GameView(huaniao=g), 0))
    assert "seat 1: 1 card " in text and "seat 2: 2 cards" in text
    assert "1 card left" in text and "1 cards" not in text


@pytest.mark.parametrize(
    ("word", "kind", "card"),
    [
        ("niao", "huaniao", "鸟"),
        ("Bird", "huaniao", "鸟"),
        ("wan", "huaniao", "万"),
        ("moon", "huaniao", "月"),
        ("鸟", "huaniao", "鸟"),
        ("wu", "zipai", "五"),
        ("five", "zipai", "五"),
        ("5", "zipai", "五"),
        ("big5", "zipai", "伍"),
        ("da-wu", "zipai", "伍"),
        ("大五", "zipai", "伍"),
        ("shi", "zipai", "十"),
        ("dashi", "zipai", "拾"),
        ("owl", "huaniao", None),
        ("big", "zipai", None),
    ],
)
def test_cards_are_typed_by_name_pinyin_or_english(word: str, kind: str, card: str | None) -> None:
    assert card_from_word(word, kind) == card


def test_a_typed_move_takes_pinyin_and_english() -> None:
    cards = [hn.Card(id=4, kind=1), hn.Card(id=9, kind=5)]
    view = pb.GameView(huaniao=hn.View(seats=[hn.SeatView(seat=0, cards=cards)]))
    move = play_panels.entry_move("play niao ten-thousand", view, 0)
    assert move is not None and list(move.huaniao.play.cards) == [4, 9]
    z = zipai_view([zp.Card(id=7, rank=5, big=True), zp.Card(id=3, rank=5)])
    for typed, card in (("discard big5", 7), ("da wu", 3), ("打 伍", 7)):
        move = play_panels.entry_move(typed, z, 0)
        assert move is not None and move.zipai.discard.card == card, typed
    with pytest.raises(play_panels.EntryError, match="names no card"):
        play_panels.entry_move("play owl", view, 0)


def test_an_automatic_peng_says_so() -> None:
    def opened(optional: bool) -> pb.GameEvent:
        options = pb.GameOptions(zipai=zp.Options(optional_peng_long=optional))
        return pb.GameEvent(
            version=1, table=pb.TableEvent(game_created=pb.GameCreated(options=options))
        )

    ponged = pb.GameEvent(version=30, text="seat 1 ponged 五")
    automatic = Narration()
    automatic.line(opened(False))
    assert "automatic" in automatic.line(ponged).plain
    assert "碰 (pong)" in automatic.line(ponged).plain
    claimed = Narration()
    claimed.line(opened(True))  # the table made 碰 a claim: the seat chose it
    assert "automatic" not in claimed.line(ponged).plain


def test_the_replay_keys_help_shows_enter(server: ServerProcess, client: TableClient) -> None:
    game_id = finished_game(client)
    viewer = client.as_viewer(game_id)
    out = io.StringIO()
    console = Console(file=out, width=160, highlight=False, color_system=None)
    keys = iter(["?", "zz", "q"])
    latest = viewer.view().version
    replaying.interactive(
        console,
        viewer,
        replaying.check_range(latest, 1, 2),
        None,
        False,
        ask=lambda _prompt: next(keys),
    )
    text = out.getvalue()
    assert text.count("[enter]/n next") == 2, text[-600:]


def test_the_default_player_name_is_none(server: ServerProcess, client: TableClient) -> None:
    ctx = cli_play.cmd_play.make_context("play", ["--seed", "4"])
    settings = cli_play.play_settings(ctx.params)
    sitting = playing.start_table(client, settings, Console(file=io.StringIO()))
    seats = client.as_viewer(sitting.me.game_id).view().seats
    assert seats[0].player_name == "" and seats[1].player_name == "bot-1"


# --- justice: the open case ---------------------------------------------------------------


def test_vote_and_rule_find_the_open_case(
    server: ServerProcess, client: TableClient, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, seats, arbiter = seated_game(client, seed=60, arbitrated=True)
    t = ["--target", server.target, "--json"]
    with pytest.raises(SystemExit) as none_open:
        cli.main([*t, "vote", game_id, "--token", seats[2].credential, "--uphold"])
    assert none_open.value.code == 1 and "no open case" in capsys.readouterr().err
    v = client.as_viewer(game_id).view().version
    cli.main(
        [
            *t,
            "report",
            game_id,
            "--token",
            seats[0].credential,
            "--accused",
            "1",
            "--violation",
            "OTHER",
            "--evidence",
            str(v),
            "--penalty",
            "WARNING",
        ]
    )
    case = int(json.loads(capsys.readouterr().out)[0]["version"])
    cli.main([*t, "vote", game_id, "--token", seats[2].credential, "--uphold"])
    capsys.readouterr()
    (opened,) = [c for c in client.as_viewer(game_id).view().cases if c.id == case]
    assert list(opened.upheld_by) == [2]
    arbiter = client.arbiter_credential(arbiter)  # TOKEN:KEYHEX: the arbiter signs its ruling
    cli.main([*t, "rule", game_id, "--token", arbiter, "--reject"])
    capsys.readouterr()
    (ruled,) = [c for c in client.as_viewer(game_id).view().cases if c.id == case]
    assert ruled.status != pb.CASE_STATUS_OPEN


# --- watch, verify, help ----------------------------------------------------------------


def test_a_watched_game_ends_with_a_game_over_line(
    server: ServerProcess, client: TableClient, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id = finished_game(client, "zipai", seed=11)
    cli.main(["--target", server.target, "watch", game_id])
    lines = capsys.readouterr().out.strip().splitlines()
    assert "shuffle secret" in "\n".join(lines[-4:])
    assert lines[-1].startswith("game over: won by seat"), lines[-3:]
    assert "胡 (win)" in lines[-1]


def test_verify_of_a_running_game_says_it_is_running(
    server: ServerProcess, client: TableClient, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, _seats, _arbiter = seated_game(client, seed=8)
    with pytest.raises(SystemExit) as e:
        audit.main(["verify", game_id, "--target", server.target])
    err = capsys.readouterr().err
    assert e.value.code == 1
    assert "is still running" in err and "--receipts" in err and "redacted" not in err


def test_verify_counts_seals_not_moves(
    server: ServerProcess, client: TableClient, capsys: pytest.CaptureFixture[str]
) -> None:
    audit.main(["verify", finished_game(client, seed=5), "--target", server.target])
    out = capsys.readouterr().out
    assert re.search(r"all \d+ seals", out) and "moves signed" not in out


def test_the_audit_help_keeps_its_command_table(capsys: pytest.CaptureFixture[str]) -> None:
    audit.main(["--help"])
    lines = capsys.readouterr().out.splitlines()
    starts = [ln.strip().split("  ")[0] for ln in lines if ln.strip().startswith("tabletop-audit ")]
    assert starts[:3] == [
        "tabletop-audit key",
        "tabletop-audit export GAME_ID [-o FILE]",
        "tabletop-audit verify GAME_ID",
    ], lines[:12]


def test_bots_join_refuses_a_finished_game_in_one_line(
    server: ServerProcess, client: TableClient, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["--target", server.target, "bots", "--join", finished_game(client)])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 1 and len(err) == 1 and "has ended" in err[0]


def test_a_tokens_file_is_its_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{}")
    path.chmod(0o644)  # a file that was there before, readable by others
    playing.Tokens("127.0.0.1:1", "g", "arbiter", {0: "seat"}, you=0, bot="heuristic").save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    back = playing.Tokens.load(path)
    assert (back.you, back.bot, back.seats) == (0, "heuristic", {0: "seat"})


@pytest.mark.parametrize(
    ("data", "source", "prepared"),
    [
        ({"deal_source": "SHUFFLED", "prepared_deck": []}, "DEAL_SOURCE_SHUFFLED", False),
        ({"deal_source": "PREPARED_SEED", "prepared_deck": []}, "DEAL_SOURCE_PREPARED_SEED", True),
        (
            {"deal_source": "PREPARED_DECK", "prepared_deck": [3, 1]},
            "DEAL_SOURCE_PREPARED_DECK",
            True,
        ),
        ({"prepared_deck": []}, "DEAL_SOURCE_SHUFFLED", False),  # a record from before sources
    ],
)
def test_the_replay_page_says_a_seeded_deal_is_prepared(
    data: dict[str, object], source: str, prepared: bool
) -> None:
    """The HTML replay's deal badge: a seeded table's deal is prepared, not "shuffled"."""
    from clients.python import replay_html
    from domain.verify import Record

    records = [Record(1, {"type": "GameCreated", "data": data}, None, "h")]
    assert replay_html._deal_source(records) == source
    assert replay_html._prepared(records) is prepared
    assert replay_html._prepared(None) is None and replay_html._deal_source([]) is None
