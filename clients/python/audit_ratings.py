"""`tabletop-audit ratings --file EXPORT...`: the ratings recomputed from exported records
alone. Each export (a game's or a whole match's, as `tabletop-audit export` writes them) is
verified first (domain/verify.py, against the server's public key), then turned into its
rated result and folded with the function the server folds its own with
(domain/ratings.py): the same records give the same ratings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from clients.python.audit_verify import (
    is_match_export,
    parse_match_lines,
    read_lines,
    verify_records,
)
from domain import ratings
from domain.verify import PublicKeys, parse_export, verify_match
from server.wire.signedcommands import read_signed_command


def result_of_export(path: str, keys: PublicKeys) -> ratings.RatedResult | None:
    """The verified export's rated result (None: it rates nobody). Raises AuditFailure when
    the export does not verify."""
    with open(path, encoding="utf-8", newline="\n") as f:  # lines end in LF only
        lines = list(read_lines(f))
    if is_match_export(path):
        match_id, records, hands = parse_match_lines(lines)
        verify_match(match_id, records, hands, keys, command_reader=read_signed_command)
        return ratings.match_result_from_records(records, hands)
    game = parse_export(lines)
    verified = verify_records(game, keys)
    return ratings.game_result_from_records(verified.report.game_id, game)


def recompute(paths: Iterable[str], keys: PublicKeys) -> tuple[ratings.Ratings, int]:
    """The ratings of every verified export, and how many of them were rated."""
    results = [r for r in (result_of_export(p, keys) for p in paths) if r is not None]
    return ratings.rate(results), len({r.result_id for r in results})


def board_json(folded: ratings.Ratings) -> dict[str, Any]:
    return {
        kind: [
            {
                "place": place,
                "player": r.player,
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.ordinal,
                "results": r.results,
            }
            for place, r in enumerate(folded.board(kind), start=1)
        ]
        for kind in sorted(folded.by_kind)
    }
