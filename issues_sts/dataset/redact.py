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
    # Group 1 is a prefix kept verbatim (may be empty); the rest of the match is the secret,
    # except group 2 when `suffix` is set (kept too: the `@` after a password in a URL).
    pattern: str
    suffix: bool = False


# Values that sit after a token-like key: a classic GitHub token is 40 hex characters, like a
# commit SHA, so only its context tells them apart (`token=`, `oauth_token:`, `-u user:`...).
# A key may carry a prefix (`_authToken`, `db_password`), hence `\w*` before the name.
_TOKEN_KEY = r"\w*(?:token|password|passwd|secret)"
_URL_PART = r"[^:/?#\[\]@!$&'()*+,;=\s\"<>`]"

# Order matters: multi-line key blocks first, specific token formats next, generic headers last
# (a header whose token was already redacted no longer matches the generic pattern).
PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private_key",
        r"()-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
    ),
    SecretPattern("github_token", r"()\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
    SecretPattern("github_token", r"()\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    # Classic (2013-2021) GitHub tokens: 40 lowercase hex, redacted only where a token goes.
    SecretPattern(
        "github_classic_token", rf"(?i)(\b{_TOKEN_KEY}[\"']?\s*[:=]\s*[\"']?)[0-9a-f]{{40}}\b"
    ),
    SecretPattern(
        "github_classic_token", r"(?i)(\bgithub\.(?:token|oauth-token)\s+[\"']?)[0-9a-f]{40}\b"
    ),
    SecretPattern("github_classic_token", r"(?i)(\bx-access-token:)[0-9a-f]{40}\b"),
    SecretPattern("github_classic_token", r"(\s-u\s+[\"']?[\w.-]+:)[0-9a-f]{40}\b"),
    SecretPattern("github_classic_token", r"(://)[0-9a-f]{40}(@)", suffix=True),
    SecretPattern("url_password", rf"(://{_URL_PART}+:){_URL_PART}+(@)", suffix=True),
    SecretPattern("jwt", r"()\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    SecretPattern("sendgrid_key", r"()\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    SecretPattern("twilio_key", r"()\b(?:AC|SK)[0-9a-f]{32}\b"),
    SecretPattern("mailchimp_key", r"()\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
    SecretPattern("pypi_token", r"()\bpypi-AgE[A-Za-z0-9_-]{70,}"),
    SecretPattern("square_secret", r"()\bsq0csp-[0-9A-Za-z_-]{43}"),
    SecretPattern("telegram_bot_token", r"()\b[0-9]{8,10}:[0-9A-Za-z_-]{35}\b"),
    SecretPattern(
        "discord_bot_token", r"()\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}\b"
    ),
    SecretPattern("artifactory_key", r"()\bAKC[a-zA-Z0-9]{10,}"),
    SecretPattern("aws_access_key_id", r"()\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    SecretPattern(
        "aws_secret_access_key",
        r"(?i)(\baws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}",
    ),
    SecretPattern("google_api_key", r"()\bAIza[0-9A-Za-z_-]{35}"),
    SecretPattern("slack_token", r"()\bxox[abposr]-[0-9A-Za-z-]{10,}"),
    SecretPattern("stripe_key", r"()\b[sr]k_live_[0-9A-Za-z]{16,}"),
    SecretPattern("openai_key", r"()\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}"),
    SecretPattern("huggingface_token", r"()\bhf_[A-Za-z0-9]{34,}\b"),
    SecretPattern("npm_token", r"()\bnpm_[A-Za-z0-9]{36}\b"),
    SecretPattern("gitlab_token", r"()\bglpat-[0-9A-Za-z_-]{20,}"),
    SecretPattern("azure_account_key", r"(?i)(\bAccountKey=)[A-Za-z0-9+/=]{40,}"),
    # Docker's config.json: {"auths": {"registry": {"auth": "<base64 of user:password>"}}}, the
    # first registry's and every later one's (an "auth" key inside the next object of the map)
    SecretPattern(
        "docker_auth",
        r'("auths"\s*:\s*\{\s*"[^"]*"\s*:\s*\{[^{}]*?"auth"\s*:\s*")[A-Za-z0-9+/]{8,}={0,2}(")',
        suffix=True,
    ),
    SecretPattern(
        "docker_auth",
        r'(\}\s*,\s*"[^"]*"\s*:\s*\{[^{}]*?"auth"\s*:\s*")[A-Za-z0-9+/]{8,}={0,2}(")',
        suffix=True,
    ),
    # npm's .npmrc: `_auth=<base64 of user:password>` (also `//registry/:_auth=`)
    SecretPattern("npm_auth", r"(\b_auth\s*=\s*)[A-Za-z0-9+/]{8,}={0,2}"),
    SecretPattern(
        "authorization_header",
        r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|token|basic)\s+)[A-Za-z0-9._~+/=-]{8,}",
    ),
    SecretPattern("bearer_token", r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{20,}=*"),
    # A quoted value of a secret-named key (detect-secrets' keyword rule): quotes make it a value,
    # not prose; placeholders such as "<token>" or "${TOKEN}" (and a value redacted above, "[...")
    # hold characters a secret does not.
    SecretPattern(
        "secret_keyword",
        r"(?i)(\b\w*(?:password|passwd|secret|client_?secret|api_?key|apikey|secret_?key|"
        r"access_?key|auth_?token|access_?token|private_?key)[\"']?\s*[:=]\s*[\"'])[^\"'\s<>${}*\[]{8,}([\"'])",
        suffix=True,
    ),
)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def redact_text(text: str) -> tuple[str, dict[str, int]]:
    """Redact one string with Python's `re`; returns the text and counts per kind."""
    counts: dict[str, int] = {}
    for secret in PATTERNS:
        replacement = marker(secret.kind)
        text, n = re.subn(
            secret.pattern,
            lambda m, r=replacement, s=secret.suffix: m.group(1) + r + (m.group(2) if s else ""),  # type: ignore[misc]
            text,
        )
        if n:
            counts[secret.kind] = counts.get(secret.kind, 0) + n
    return text, counts


def _scoped(pattern: str) -> str:
    """A pattern whose leading inline flags apply to it alone, so it can join an alternation."""
    return f"(?i:{pattern[4:]})" if pattern.startswith("(?i)") else f"(?:{pattern})"


# every pattern at once: what the screen answers (one search per pattern, see `_flagged`)
ANY_SECRET = "|".join(_scoped(secret.pattern) for secret in PATTERNS)


def _flagged(texts: pl.Series) -> pl.Series:
    """`texts.str.contains(ANY_SECRET)` (nulls False), as one search per pattern: the same
    rows, since an alternation matches where one of its alternatives does. Over a text with
    any non-ASCII character, Rust's fast engines give up on the alternation's Unicode `\b`,
    and its slow one took 5-9x the time of all the patterns searched one by one over the real
    archives' bodies and comments (`python -m benchmarks.redaction` compares the two)."""
    frame = texts.to_frame("t")
    found = frame.select(
        pl.any_horizontal(
            pl.col("t").str.contains(secret.pattern).fill_null(False) for secret in PATTERNS
        )
    )
    return found.to_series()


def redact_column(frame: pl.DataFrame, column: str = "text") -> tuple[pl.DataFrame, dict[str, int]]:
    """Redact `column` of `frame` (vectorised); returns the new frame and counts per kind.

    A screen (`_flagged`: the rows ANY_SECRET matches) finds the few rows holding anything;
    only those rows go through the per-kind passes. Counts list every kind (zeros too) so
    stats are stable.
    """
    counts = {f"redacted:{secret.kind}": 0 for secret in PATTERNS}
    flagged = _flagged(frame[column])
    rows = frame.filter(flagged)
    for secret in PATTERNS:
        n = int(rows.select(pl.col(column).str.count_matches(secret.pattern).sum()).item() or 0)
        if n:
            counts[f"redacted:{secret.kind}"] += n
            replacement = "${1}" + marker(secret.kind) + ("${2}" if secret.suffix else "")
            rows = rows.with_columns(pl.col(column).str.replace_all(secret.pattern, replacement))
    counts["redacted_total"] = sum(counts.values())
    counts["texts_with_secrets"] = rows.height
    if rows.height:
        redacted = frame[column].scatter(np.flatnonzero(flagged.to_numpy()), rows[column])
        frame = frame.with_columns(redacted)
    return frame, counts
