"""Every 花鸟风月 mode and optional rule, and every 川南字牌 seat count and option, is
created, played to the end by bots through gRPC, and replayed version by version."""

from __future__ import annotations

import itertools

import pytest

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from tabletop.huaniao.v1 import huaniao_pb2 as hn
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2 as zp

PRO_RULES = ("continuo", "twin_swallows", "spring_snow", "lofty_tune", "blossoms")


def huaniao_variants() -> list[tuple[str, hn.Options]]:
    out = [
        ("SIMPLE", hn.Options(mode=hn.MODE_SIMPLE)),
        ("BASIC", hn.Options(mode=hn.MODE_BASIC)),
        ("REGULAR", hn.Options(mode=hn.MODE_REGULAR)),
        ("REGULAR+白昼", hn.Options(mode=hn.MODE_REGULAR, daylight=True)),
        (
            "REGULAR+静夜",
            hn.Options(
                mode=hn.MODE_REGULAR,
                silent_night=[hn.COMBO_TIANSHANG_TIANXIA, hn.COMBO_QUE_WU_MAN_SHAN],
            ),
        ),
        ("FULL", hn.Options(mode=hn.MODE_FULL)),
        ("FULL+静夜", hn.Options(mode=hn.MODE_FULL, silent_night=[hn.COMBO_FENG_HUA_XUE_YUE])),
    ]
    for rule in PRO_RULES:  # each optional rule of 专业 alone ...
        out.append((f"PRO+{rule}", hn.Options(mode=hn.MODE_PRO, **{rule: True})))
    for a, b in itertools.combinations(PRO_RULES, 2):  # ... and every pair of them
        out.append((f"PRO+{a}+{b}", hn.Options(mode=hn.MODE_PRO, **{a: True, b: True})))
    out.append(("PRO+all", hn.Options(mode=hn.MODE_PRO, **dict.fromkeys(PRO_RULES, True))))
    return out


def zipai_variants() -> list[tuple[str, int, zp.Options]]:
    out = []
    for seats in (2, 3, 4):
        for variant, dealer, scoring in itertools.product(
            (zp.VARIANT_LUZHOU, zp.VARIANT_HEJIANG),
            (zp.DEALER_RULE_WINNER, zp.DEALER_RULE_ROTATE),
            (zp.SCORING_PROFILE_NONE, zp.SCORING_PROFILE_LUZHOU),
        ):
            out.append(
                (
                    f"{seats}p",
                    seats,
                    zp.Options(variant=variant, dealer_rule=dealer, scoring=scoring),
                )
            )
        out.append((f"{seats}p+过胡", seats, zp.Options(guo_hu=True)))
        out.append(
            (f"{seats}p+过张升番胡", seats, zp.Options(guo_hu=True, guo_zhang_sheng_fan=True))
        )
    return out


def play_and_replay(client: TableClient, options: pb.GameOptions, seats: int, seed: int) -> None:
    created = client.create_game(options, seats, seed=seed)
    players = [client.join(created.game_id, s, contribution="") for s in range(seats)]
    players[0].start()
    play_to_end([RandomBot(p, seed + i) for i, p in enumerate(players)])
    view = client.as_viewer(created.game_id).view()
    assert view.phase == pb.GAME_PHASE_FINISHED, f"seed={seed}"
    steps = [s.view.version for s in players[0].replay()]
    assert steps == list(range(1, view.version + 1)), f"seed={seed}: replay covers every version"


@pytest.mark.parametrize(
    ("label", "options"), huaniao_variants(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_huaniao_variant_plays_and_replays(
    client: TableClient, label: str, options: hn.Options
) -> None:
    play_and_replay(client, pb.GameOptions(huaniao=options), 4, seed=len(label) * 7919)


@pytest.mark.parametrize(
    ("label", "seats", "options"), zipai_variants(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_zipai_variant_plays_and_replays(
    client: TableClient, label: str, seats: int, options: zp.Options
) -> None:
    play_and_replay(client, pb.GameOptions(zipai=options), seats, seed=seats * 101 + len(label))


def test_an_option_the_mode_forbids_is_invalid_argument(client: TableClient) -> None:
    import grpc

    for options in (
        hn.Options(mode=hn.MODE_FULL, daylight=True),  # 白昼 in 完全
        hn.Options(mode=hn.MODE_BASIC, continuo=True),  # 连奏 outside 专业
        hn.Options(mode=hn.MODE_PRO),  # 专业 needs at least one optional rule
    ):
        with pytest.raises(grpc.RpcError) as e:
            client.create_game(pb.GameOptions(huaniao=options), 4)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
