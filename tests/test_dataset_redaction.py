"""Redaction on the labelled set of benchmarks/redaction.py: every secret redacted as its
kind, every near-secret (commit SHAs above all: 40 hex, like a classic token) untouched, and
the vectorised pass identical to the per-string one."""

from __future__ import annotations

import polars as pl
import pytest

from benchmarks.redaction import LABELLED
from issues_sts.dataset.redact import redact_column, redact_text


@pytest.mark.parametrize(("text", "kind"), LABELLED)
def test_labelled_string(text: str, kind: str | None) -> None:
    redacted, counts = redact_text(text)
    if kind is None:
        assert redacted == text and not counts
    else:
        assert f"[REDACTED:{kind}]" in redacted and counts.get(kind, 0) >= 1
    frame, _ = redact_column(pl.DataFrame({"text": [text]}))
    assert frame["text"][0] == redacted


def test_classic_token_context_keeps_the_surroundings() -> None:
    token = "3f786850e387550fdab836ed7e6dc881de23001b"
    text, _ = redact_text(f"git clone https://{token}@github.com/me/r.git; git checkout {token}")
    assert text == (
        "git clone https://[REDACTED:github_classic_token]@github.com/me/r.git; git "
        f"checkout {token}"
    )
