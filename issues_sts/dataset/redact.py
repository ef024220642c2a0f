"""Credential redaction: applied to every issue text before anything is written.

Issues are public, but people paste tokens, keys and `Authorization:` headers into bug
reports. A dataset should not republish them. Each pattern below replaces the secret with
``[REDACTED:<kind>]`` (keeping any harmless prefix such as ``Authorization: Bearer ``) and
is counted per kind, so the dataset card can say how many were removed.

The patterns are written in the common subset of Rust's `regex` (used by polars, for the
vectorised pass) and Python's `re` (used by `redact_text`, for single strings and tests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import polars as pl


@dataclass(frozen=True)
class SecretPattern:
    kind: str
    # Group 1 is a prefix kept verbatim (may be empty); the rest of the match is the secret.
    pattern: str


# Order matters: multi-line key blocks first, specific token formats next, generic headers last
# (a header whose token was already redacted no longer matches the generic pattern).
PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern("private_key", r"()-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----"),
    SecretPattern("github_token", r"()\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
    SecretPattern("github_token", r"()\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    SecretPattern("aws_access_key_id", r"()\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    SecretPattern("aws_secret_access_key", r"(?i)(\baws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}"),
    SecretPattern("google_api_key", r"()\bAIza[0-9A-Za-z_-]{35}"),
    SecretPattern("slack_token", r"()\bxox[abposr]-[0-9A-Za-z-]{10,}"),
    SecretPattern("stripe_key", r"()\b[sr]k_live_[0-9A-Za-z]{16,}"),
    SecretPattern("openai_key", r"()\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}"),
    SecretPattern("huggingface_token", r"()\bhf_[A-Za-z0-9]{34,}\b"),
    SecretPattern("npm_token", r"()\bnpm_[A-Za-z0-9]{36}\b"),
    SecretPattern("gitlab_token", r"()\bglpat-[0-9A-Za-z_-]{20,}"),
    SecretPattern("azure_account_key", r"(?i)(\bAccountKey=)[A-Za-z0-9+/=]{40,}"),
    SecretPattern("authorization_header", r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|token|basic)\s+)[A-Za-z0-9._~+/=-]{8,}"),
    SecretPattern("bearer_token", r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{20,}=*"),
)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def redact_text(text: str) -> tuple[str, dict[str, int]]:
    """Redact one string with Python's `re`; returns the text and counts per kind."""
    counts: dict[str, int] = {}
    for secret in PATTERNS:
        replacement = marker(secret.kind)
        text, n = re.subn(secret.pattern, lambda m, r=replacement: m.group(1) + r, text)  # type: ignore[misc]
        if n:
            counts[secret.kind] = counts.get(secret.kind, 0) + n
    return text, counts


def _scoped(pattern: str) -> str:
    """A pattern whose leading inline flags apply to it alone, so it can join an alternation."""
    return f"(?i:{pattern[4:]})" if pattern.startswith("(?i)") else f"(?:{pattern})"


ANY_SECRET = "|".join(_scoped(secret.pattern) for secret in PATTERNS)


def redact_column(frame: pl.DataFrame, column: str = "text") -> tuple[pl.DataFrame, dict[str, int]]:
    """Redact `column` of `frame` (vectorised); returns the new frame and counts per kind.

    One pass with all patterns finds the few rows holding anything; only those rows go
    through the per-kind passes. Counts list every kind (zeros too) so stats are stable.
    """
    counts = {f"redacted:{secret.kind}": 0 for secret in PATTERNS}
    flagged = frame.select(pl.col(column).str.contains(ANY_SECRET).fill_null(False)).to_series()
    rows = frame.filter(flagged)
    for secret in PATTERNS:
        n = int(rows.select(pl.col(column).str.count_matches(secret.pattern).sum()).item() or 0)
        if n:
            counts[f"redacted:{secret.kind}"] += n
            rows = rows.with_columns(pl.col(column).str.replace_all(secret.pattern, "${1}" + marker(secret.kind)))
    counts["redacted_total"] = sum(counts.values())
    counts["texts_with_secrets"] = rows.height
    if rows.height:
        redacted = frame[column].scatter(np.flatnonzero(flagged.to_numpy()), rows[column])
        frame = frame.with_columns(redacted)
    return frame, counts
