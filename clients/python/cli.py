"""`tabletop`: play, run bots, create tables, watch, inspect, export and replay games.

Options work before or after the command (`tabletop --target H:P replay ID` and
`tabletop replay ID --target H:P` are the same), and each has an environment variable
(TABLETOP_TARGET, TABLETOP_TOKEN, ...: `tabletop COMMAND --help` shows them). --json gives
machine-readable output: one JSON document, or JSON lines for streams and exports; progress
bars go to stderr and never mix with it. A token (seat or arbiter) shows what that seat may
see; without one you are a spectator.
"""

from __future__ import annotations

import threading

import click

from clients.python import cli_justice, cli_play, cli_read, cli_tables
from clients.python.cli_common import console, errors
from clients.python.clibase import CONTEXT, run, shared, shared_options

# The commands, by family: tables and bots (cli_tables), a seat's play and a match's
# inputs (cli_play), reading a game (cli_read), justice at the table (cli_justice).
COMMANDS = [
    cli_tables.cmd_create,
    cli_tables.cmd_bots,
    cli_play.cmd_play,
    cli_play.cmd_match,
    cli_play.cmd_ready,
    cli_play.cmd_commit,
    cli_play.cmd_reveal,
    cli_read.cmd_watch,
    cli_read.cmd_view,
    cli_read.cmd_history,
    cli_read.cmd_export,
    cli_read.cmd_replay,
    cli_read.cmd_health,
    cli_justice.cmd_retract,
    cli_justice.cmd_report,
    cli_justice.cmd_vote,
    cli_justice.cmd_rule,
    cli_justice.cmd_appeal,
    cli_justice.cmd_redeal,
]


@click.group(context_settings=CONTEXT, help=__doc__)
@shared_options
@click.pass_context
def tabletop(ctx: click.Context) -> None:
    settings = shared(ctx)
    if settings.no_color:
        console.no_color = errors.no_color = True


for _command in COMMANDS:
    tabletop.add_command(_command)


def main(argv: list[str] | None = None) -> int:
    return run(tabletop, argv, "tabletop")


if __name__ == "__main__":
    threading.current_thread().name = "tabletop"
    main()
