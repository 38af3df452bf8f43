"""Proto hygiene: `buf lint` is clean, nothing breaks the last released contract, and every
error reason the server can send is documented in docs/api.md. All offline."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tabletop.v1 import lobby_pb2
from tabletop.v1 import tabletop_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
RELEASED = ROOT / "protos" / "released" / "tabletop-v1.binpb"
API_DOC = ROOT / "docs" / "api.md"


def buf() -> str:
    local = Path(sys.executable).parent / "buf"
    found = str(local) if local.exists() else shutil.which("buf")
    assert found, "buf is required: pip install buf-bin (it is in the dev extras)"
    return found


def run_buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [buf(), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_buf_lint_is_clean() -> None:
    result = run_buf("lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_nothing_breaks_the_released_contract() -> None:
    assert RELEASED.exists(), f"no released contract at {RELEASED.relative_to(ROOT)}"
    result = run_buf("breaking", "--against", str(RELEASED))
    assert result.returncode == 0, (
        result.stdout
        + result.stderr
        + "\nA released field, message or RPC changed. Add instead of changing; only a "
        "contract that was never released may be re-recorded, with "
        "`buf build -o protos/released/tabletop-v1.binpb`."
    )


def test_the_breaking_check_catches_a_breaking_change(tmp_path: Path) -> None:
    """Renaming a released field is reported, so the check above is not vacuous."""
    shutil.copytree(ROOT / "protos", tmp_path / "protos", ignore=shutil.ignore_patterns("released"))
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    proto = tmp_path / "protos" / "tabletop" / "v1" / "tabletop.proto"
    text = proto.read_text()
    assert "int64 expected_version = 2;" in text
    proto.write_text(text.replace("int64 expected_version = 2;", "int64 based_on = 2;"))
    result = run_buf("breaking", "--against", str(RELEASED), cwd=tmp_path)
    assert result.returncode != 0
    assert "expected_version" in result.stdout + result.stderr


# --- error reasons --------------------------------------------------------------------------

REASON_PATTERNS = (
    # RuleViolation("REASON", "rule", ...) across lines, in the domain and the table
    re.compile(r"RuleViolation\(\s*\"([A-Z][A-Z0-9_]+)\",\s*([^,]*)"),
    # Exhausted("REASON", ...): server/transport/limits.py
    re.compile(r"Exhausted\(\s*\"([A-Z][A-Z0-9_]+)\"()"),
    # ErrorInfo(reason="REASON", ...) built by the server
    re.compile(r"reason=\"([A-Z][A-Z0-9_]+)\"()"),
)


def error_reasons() -> dict[str, str]:
    """Every error reason in domain/ and server/, with where it is raised and its rule."""
    reasons = {"NOT_YOUR_TURN": "domain/engine.py: turn order"}
    for folder in ("domain", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for pattern in REASON_PATTERNS:
                for reason, rule in pattern.findall(text):
                    where = f"{path.relative_to(ROOT)}: {rule.strip()}".rstrip(": ")
                    reasons.setdefault(reason, where)
    return reasons


def test_every_error_reason_is_documented() -> None:
    doc = API_DOC.read_text(encoding="utf-8")
    missing = {r: w for r, w in sorted(error_reasons().items()) if f"`{r}`" not in doc}
    assert not missing, "add these error reasons to the tables in docs/api.md:\n" + "\n".join(
        f"  {r}  ({w})" for r, w in missing.items()
    )


def test_every_rpc_is_in_the_integration_guide() -> None:
    doc = API_DOC.read_text(encoding="utf-8")
    methods = [
        *pb.DESCRIPTOR.services_by_name["TableService"].methods,
        *lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].methods,
    ]
    missing = [m.name for m in methods if f"`{m.name}`" not in doc]
    assert not missing, f"RPCs missing from docs/api.md: {missing}"


# --- names that generated code in other languages would mangle ------------------------------


def _messages(descriptors):  # type: ignore[no-untyped-def]
    for message in descriptors:
        yield message
        yield from _messages(message.nested_types)


def test_generated_accessors_do_not_collide() -> None:
    """Java and Kotlin derive accessors from field names: a repeated field `deck` makes
    getDeckCount() and getDeckList(), so a sibling field `deck_count` or `deck_list` would
    collide and protoc would rename both to numbered accessors. C# properties may not share
    their message's name."""
    files = [pb.DESCRIPTOR, *pb.DESCRIPTOR.dependencies, lobby_pb2.DESCRIPTOR]
    problems = []
    for file in files:
        if file.name.startswith("google/"):
            continue
        for message in _messages(file.message_types_by_name.values()):
            names = {f.name for f in message.fields}
            for field in message.fields:
                suffixes = ("_count", "_list", "_or_builder_list") if field.is_repeated else ()
                if field.enum_type is not None:
                    suffixes += ("_value",)
                for suffix in suffixes:
                    if field.name + suffix in names:
                        problems.append(
                            f"{file.name}: {message.full_name}.{field.name} and "
                            f"{field.name + suffix} (Java/Kotlin accessors collide)"
                        )
                pascal = "".join(part.capitalize() for part in field.name.split("_"))
                if pascal == message.name:
                    problems.append(f"{file.name}: {message.full_name}.{field.name} (C# property)")
    assert not problems, "rename these fields:\n" + "\n".join(problems)
