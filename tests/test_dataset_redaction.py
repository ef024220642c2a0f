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


def _variants(text: str) -> list[str]:
    """`text`, and copies with non-ASCII word and non-word characters where they move a
    Unicode word boundary: before it, inside it at each space, after it."""
    out = [text]
    for ch in ("é", "\u212a", "\u017f", "’", "😀", "中"):
        out += [ch + text, text + ch, text.replace(" ", ch, 1), text.replace(" ", " " + ch)]
    return out


def test_the_screen_flags_what_the_whole_alternation_does() -> None:
    # The screen searches each pattern on its own: the rows it flags must be exactly those
    # ANY_SECRET flags, whatever non-ASCII characters surround a secret
    from issues_sts.dataset.redact import ANY_SECRET, _flagged

    texts = [v for text, _ in LABELLED for v in _variants(text)]
    texts += [
        "\u017fecret='abcdefgh12345678'",  # long s: a (?i) "s" only under Unicode rules
        "tO\u212aen=3f786850e387550fdab836ed7e6dc881de23001b",  # the Kelvin sign as a "k"
        "étoken=3f786850e387550fdab836ed7e6dc881de23001b",
        "aghp_" + "a" * 36,
        "éghp_" + "a" * 36,
        None,
        "",
    ]
    series = pl.Series("text", texts, dtype=pl.Utf8)
    expected = series.str.contains(ANY_SECRET).fill_null(False)
    assert _flagged(series).to_list() == expected.to_list()
    assert expected.sum() > len(LABELLED)  # the variants keep most secrets findable
