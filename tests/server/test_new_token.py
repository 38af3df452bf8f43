"""Seat and arbiter tokens never start with "-": a command line reads ``--token -x...`` as
two options (argparse, Node's parseArgs), which failed a Node CLI test when a random token
began with one (1 token in 64)."""

from __future__ import annotations

import secrets

import pytest

from server.usecases import seats


def test_a_token_that_would_start_with_a_dash_is_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = iter(["-starts-with-a-dash", "_then-another", "x"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert seats.new_token() == "_then-another"


def test_tokens_are_192_random_bits_and_never_start_with_a_dash() -> None:
    tokens = [seats.new_token() for _ in range(4000)]  # about 62 would start with "-"
    assert not any(t.startswith("-") for t in tokens)
    assert all(len(t) == 32 for t in tokens) and len(set(tokens)) == len(tokens)
    assert sum(t.startswith("_") for t in tokens) > 20  # the rest of the alphabet still comes
