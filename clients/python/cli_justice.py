"""Justice at the table: `tabletop retract`, `report`, `vote`, `rule`, `appeal` and `redeal`
(docs/api.md#justice)."""

from __future__ import annotations

import click

from clients.python.cli_common import as_dict, client, colours, command, console, game_argument
from clients.python.clibase import CliError, emit_json, option, shared
from clients.python.render import event_text
from tabletop.v1 import tabletop_pb2 as pb

VIOLATIONS = [n.removeprefix("VIOLATION_KIND_") for n in pb.ViolationKind.keys()[1:]]
PENALTIES = [n.removeprefix("PENALTY_KIND_") for n in pb.PenaltyKind.keys()[1:]]


def send_table_command(game_id: str, token: str | None, command: pb.TableCommand) -> None:
    """Send one table command against the game's current version; print what it caused."""
    colours()
    with client() as c:
        actor = c.as_viewer(game_id, token)
        reply = actor.play(pb.Move(table=command), actor.view().version)
    if shared().json:
        emit_json([as_dict(e) for e in reply.events])
    else:
        for event in reply.events:
            console.print(event_text(event))


@command("retract")
@game_argument
@option("--phrase", default="風過無痕，月照無意", help="the phrase; 且慢 in simplified play")
def cmd_retract(game_id: str, token: str | None, phrase: str) -> None:
    """误操作 (retract a misplay): take back your last move, once per game."""
    send_table_command(game_id, token, pb.TableCommand(retract=pb.Retract(phrase=phrase)))


def _versions(values: tuple[str, ...]) -> list[int]:
    out = []
    for v in values:
        for part in v.replace(",", " ").split():
            if not part.isdigit():
                raise click.BadParameter(
                    f"{part!r} is not a version number", param_hint="'--evidence'"
                )
            out.append(int(part))
    return out


@command("report")
@game_argument
@option("--accused", type=click.IntRange(0), required=True, help="the seat reported")
@option("--violation", type=click.Choice(VIOLATIONS), required=True, help="what it did")
@option(
    "--evidence", multiple=True, required=True, help="event versions (repeat, or comma-separated)"
)
@option("--penalty", type=click.Choice(PENALTIES), help="the graded penalty (for OTHER)")
@option("--count", type=click.IntRange(0), default=0, help="cards for the penalty")
@option("--note", default="", help="a note for the record")
def cmd_report(
    game_id: str,
    token: str | None,
    accused: int,
    violation: str,
    evidence: tuple[str, ...],
    penalty: str | None,
    count: int,
    note: str,
) -> None:
    """Report a violation; the game pauses for the vote."""
    report = pb.Report(
        accused=accused,
        violation=pb.ViolationKind.Value(f"VIOLATION_KIND_{violation}"),
        evidence=_versions(evidence),
        note=note,
    )
    if penalty:
        report.penalty.kind = pb.PenaltyKind.Value(f"PENALTY_KIND_{penalty}")
        report.penalty.count = count
    send_table_command(game_id, token, pb.TableCommand(report=report))


CASE_HELP = "the case id (CaseView.id) [default: the open case]"


def open_case(game_id: str, token: str | None) -> int:
    """The case a vote or a ruling is on when --case is left out: the open one."""
    with client() as c:
        view = c.as_viewer(game_id, token).view()
    open_ids = [case.id for case in view.cases if case.status == pb.CASE_STATUS_OPEN]
    if not open_ids:
        raise CliError(f"game {game_id} has no open case (a report or an appeal) to decide")
    return open_ids[-1]


def appealable_case(game_id: str, token: str | None) -> int:
    """The case an appeal is against when --case is left out: the seat's penalty it may
    still appeal."""
    with client() as c:
        view = c.as_viewer(game_id, token).view()
    mine = [p.case_id for p in view.penalties if p.appealable and p.seat == view.seat]
    if not view.HasField("seat") or not mine:
        raise CliError(f"your seat has no penalty it may still appeal in game {game_id}")
    return mine[-1]


@command("vote")
@game_argument
@option("--case", type=click.IntRange(0), help=CASE_HELP)
@option("--uphold/--reject", default=None, required=True, help="成立 (uphold) or 不成立 (reject)")
def cmd_vote(game_id: str, token: str | None, case: int | None, uphold: bool) -> None:
    """投票 (vote) on the open case."""
    case = open_case(game_id, token) if case is None else case
    send_table_command(
        game_id, token, pb.TableCommand(cast_vote=pb.CastVote(case_id=case, uphold=uphold))
    )


@command("rule")
@game_argument
@option("--case", type=click.IntRange(0), help=CASE_HELP)
@option("--uphold/--reject", default=None, required=True, help="成立 (uphold) or 不成立 (reject)")
def cmd_rule(game_id: str, token: str | None, case: int | None, uphold: bool) -> None:
    """The arbiter's ruling on the open case."""
    case = open_case(game_id, token) if case is None else case
    send_table_command(game_id, token, pb.TableCommand(rule=pb.Rule(case_id=case, uphold=uphold)))


@command("appeal")
@game_argument
@option(
    "--case",
    type=click.IntRange(0),
    help="the case whose penalty you appeal [default: your penalty still open to appeal]",
)
@option("--reason", required=True, help="why the penalty is wrong")
def cmd_appeal(game_id: str, token: str | None, case: int | None, reason: str) -> None:
    """申诉 (appeal) a penalty you received, right after it."""
    case = appealable_case(game_id, token) if case is None else case
    send_table_command(
        game_id, token, pb.TableCommand(appeal=pb.Appeal(case_id=case, reason=reason))
    )


@command("redeal")
@game_argument
@option("--case", type=click.IntRange(0), help=CASE_HELP)
def cmd_redeal(game_id: str, token: str | None, case: int | None) -> None:
    """Agree to 重新洗牌发牌 (shuffle and deal again) on the open case, with your seat's
    token: it happens once every seat has agreed (the arbiter cannot order it)."""
    case = open_case(game_id, token) if case is None else case
    send_table_command(game_id, token, pb.TableCommand(agree_redeal=pb.AgreeRedeal(case_id=case)))
