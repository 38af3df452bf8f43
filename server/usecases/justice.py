"""Justice commands (report, vote, appeal, 误操作, the arbiter's rulings) travel as Play moves;
this file says who may send each and what deciding one needs. The rules themselves are the
domain's (domain/table/justice/)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from domain import table as tables
from domain.engine import Role, Viewer
from domain.table.justice import facts as J
from server.usecases.games import PermissionDenied


def check_sender(command: Any, viewer: Viewer) -> None:
    """The arbiter rules on cases; a seat plays (and reports, votes, appeals) for itself."""
    if isinstance(command, tables.ARBITER_COMMANDS):
        if viewer.role is not Role.ARBITER:
            raise PermissionDenied("only the table's arbiter rules on a case")
    elif viewer.role is not Role.SEAT:
        raise PermissionDenied("only a seated player plays moves")
    elif command.seat != viewer.seat:
        raise PermissionDenied(f"the token is for seat {viewer.seat}, not {command.seat}")


def sender_seat(command: Any) -> int | None:
    """The seat a command is recorded and indexed under: none for the arbiter's."""
    return None if isinstance(command, tables.ARBITER_COMMANDS) else command.seat


def needs_last_move(command: Any) -> bool:
    """误操作 retracts the last move, and a report may name it: both need it decided."""
    return isinstance(command, J.Retract | J.Report)


def check_budget(
    command: Any, table: tables.Table, times: Mapping[int, datetime], now: datetime
) -> None:
    """A report or an appeal opens a case only while the hand's justice budget lasts
    (``JUSTICE_BUDGET_SPENT``, nothing appended): the server's clock says how much the
    hand's cases used, from their recorded times, as the auditor checks them."""
    if isinstance(command, J.Report | J.Appeal):
        tables.check_justice_budget(table, times, now)
