"""What `tabletop` and `tabletop-audit` share: options that work before or after the
command, an environment variable for every option, and errors as one line.

Every option is also read from the environment: the shared ones from ``TABLETOP_TARGET``,
``TABLETOP_TOKEN``, ``TABLETOP_JSON``, ``TABLETOP_QUIET``, ``TABLETOP_NO_COLOR``; the others
from ``TABLETOP_<COMMAND>_<OPTION>`` (e.g. ``TABLETOP_PLAY_KIND``). ``--help`` shows each.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click
import grpc

from clients.python.rpcerrors import error_line

DEFAULT_TARGET = "127.0.0.1:50051"
CONTEXT = {
    "auto_envvar_prefix": "TABLETOP",
    "help_option_names": ["-h", "--help"],
    "max_content_width": 100,
    "show_default": True,
}
F = TypeVar("F", bound=Callable[..., Any])


class Option(click.Option):
    """An option whose help always names its environment variable."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("show_envvar", True)
        super().__init__(*args, **kwargs)


def option(*names: str, **kwargs: Any) -> Callable[[F], F]:
    return click.option(*names, cls=Option, **kwargs)  # type: ignore[return-value]


class CliError(click.ClickException):
    """A refusal of the command line itself (bad file, out-of-range version): one line."""


@dataclass
class Shared:
    """The options every command takes, before or after its name."""

    target: str = DEFAULT_TARGET
    json: bool = False
    quiet: bool = False
    no_color: bool = False


SHARED_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (
        ("--target",),
        {
            "envvar": "TABLETOP_TARGET",
            "metavar": "HOST:PORT",
            "help": f"server address [default: {DEFAULT_TARGET}]",
        },
    ),
    (
        ("--json",),
        {
            "envvar": "TABLETOP_JSON",
            "is_flag": True,
            "default": None,
            "help": "machine-readable JSON output",
        },
    ),
    (
        ("--quiet", "-q"),
        {"envvar": "TABLETOP_QUIET", "is_flag": True, "default": None, "help": "no progress bars"},
    ),
    (
        ("--no-color",),
        {
            "envvar": "TABLETOP_NO_COLOR",
            "is_flag": True,
            "default": None,
            "help": "plain text, no colours",
        },
    ),
]


def shared_options(f: F) -> F:
    """Add the shared options; on a command their value overrides the group's."""
    for names, kwargs in reversed(SHARED_OPTIONS):
        f = option(*names, expose_value=False, callback=_remember, **kwargs)(f)
    return f


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    if value is None:
        return
    root = ctx.find_root()
    if ctx is not root and ctx.get_parameter_source(param.name or "") is not (
        click.core.ParameterSource.COMMANDLINE
    ):
        return  # only an option written after the command overrides the group's
    shared = root.ensure_object(Shared)
    setattr(shared, param.name or "", value)
    _last[:] = [shared]


def shared(ctx: click.Context | None = None) -> Shared:
    ctx = ctx or click.get_current_context()
    return ctx.find_root().ensure_object(Shared)


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def run(group: click.Group, argv: list[str] | None, prog: str) -> int:
    """Run a Click group: usage errors and refused calls as one line, never a traceback.

    Returns 0 on success; raises SystemExit with 1 (refused), 2 (usage) or 130 (interrupted).
    """
    _last.clear()
    try:
        group.main(args=argv, prog_name=prog, standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        raise SystemExit(0) from None
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else prog
        click.echo(f"{where}: {exc.format_message()} (see `{where} --help`)", err=True)
        raise SystemExit(2) from None
    except click.ClickException as exc:
        click.echo(f"{prog}: {exc.format_message()}", err=True)
        raise SystemExit(1) from None
    except click.exceptions.Exit as exc:
        if exc.exit_code:
            raise SystemExit(exc.exit_code) from None
    except (click.Abort, KeyboardInterrupt, EOFError):
        click.echo("", err=True)
        raise SystemExit(130) from None
    except grpc.RpcError as err:
        settings = shared_or_default()
        if settings.json:
            emit_json({"error": err.code().name, "message": err.details()})
        else:
            click.secho(error_line(err, settings.target), err=True, fg="red")
        raise SystemExit(1) from None
    return 0


_last: list[Shared] = []  # the shared options of the current run, for its error line


def shared_or_default() -> Shared:
    return _last[-1] if _last else Shared()
