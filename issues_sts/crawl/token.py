"""Where the crawl's GitHub token comes from, and what shape it must have.

Sources, first found wins: `--token`, `$GITHUB_TOKEN`, `$GH_TOKEN`, then the token the GitHub
CLI saved (`gh auth login`: `hosts.yml` in `$GH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gh`, else
`~/.config/gh`) for the API's host. Whatever the source, surrounding whitespace is dropped
(`--token "$(cat tokfile)"` keeps the file's newline) and a token with whitespace or control
characters inside is refused before any request: sent, it would fail as an illegal header that
quotes it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from issues_sts.errors import BadCredentials

ENV_NAMES = ("GITHUB_TOKEN", "GH_TOKEN")
HOW_TO_PASS = "pass --token, set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login`"


MIN_TOKEN = 8  # GitHub's own are 40 characters or more; a fake GitHub's may be shorter


@dataclass(frozen=True)
class Token:
    value: str
    source: str  # "--token", "GITHUB_TOKEN", "gh's hosts.yml (~/.config/gh/hosts.yml)", ...


def clean_token(raw: str, source: str) -> str:
    """`raw` without surrounding whitespace; BadCredentials (exit 5) naming `source`, never the
    token, when what is left is empty or has whitespace or control characters inside."""
    value = raw.strip()
    if not value:
        raise BadCredentials(f"the token from {source} is empty", hint=HOW_TO_PASS)
    if any(not ch.isprintable() or ch.isspace() for ch in value):
        raise BadCredentials(
            f"the token from {source} has a space, tab, line break or control character inside "
            "it; a GitHub token is one word",
            hint="check how it was pasted or read, e.g. --token \"$(tr -d '[:space:]' < FILE)\"",
        )
    if not value.isascii():  # an HTTP header cannot carry it; GitHub's tokens are ASCII
        raise BadCredentials(
            f"the token from {source} has a character that is not ASCII; a GitHub token is "
            "ASCII letters, digits and underscores",
            hint="check how it was pasted or read",
        )
    if len(value) < MIN_TOKEN:
        raise BadCredentials(
            f"the token from {source} has fewer than {MIN_TOKEN} characters, too few for a token "
            "(GitHub's have 40 or more)",
            hint=HOW_TO_PASS,
        )
    return value


def api_host(api_url: str) -> str:
    """The host `gh` files the token under: github.com for api.github.com, else the host."""
    host = (urlsplit(api_url).hostname or "").lower()
    return "github.com" if host == "api.github.com" else host


def gh_hosts_file(env: Mapping[str, str]) -> Path:
    if env.get("GH_CONFIG_DIR"):
        return Path(env["GH_CONFIG_DIR"]) / "hosts.yml"
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "gh" / "hosts.yml"


def gh_token(host: str, path: Path) -> str | None:
    """The token `gh` saved for `host` in `path` (None when it keeps it in a keyring, or none)."""
    try:
        hosts = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return None
    entry = hosts.get(host) if isinstance(hosts, dict) else None
    if not isinstance(entry, dict):
        return None
    token = entry.get("oauth_token")
    if not token:  # gh >= 2.40 files it under the active user
        users = entry.get("users")
        user = users.get(entry.get("user")) if isinstance(users, dict) else None
        token = user.get("oauth_token") if isinstance(user, dict) else None
    return str(token) if token else None


def find_token(
    flag: str | None, api_url: str, env: Mapping[str, str] | None = None
) -> Token | None:
    """The token to crawl with and where it came from; None crawls anonymously."""
    env = os.environ if env is None else env
    if flag is not None:
        return Token(clean_token(flag, "--token"), "--token")
    for name in ENV_NAMES:
        raw = env.get(name, "")
        if raw.strip():
            return Token(clean_token(raw, name), name)
    path = gh_hosts_file(env)
    raw_gh = gh_token(api_host(api_url), path)
    if raw_gh is not None and raw_gh.strip():
        source = f"gh's hosts.yml ({path})"
        return Token(clean_token(raw_gh, source), source)
    return None


def raw_token_shapes(
    flag: str | None, api_url: str, env: Mapping[str, str] | None = None
) -> list[str]:
    """Every token this process was given, as given: registered with the scrubber before any
    of them is checked, so that nothing said while refusing one can quote it."""
    env = os.environ if env is None else env
    shapes = [flag or "", *(env.get(name, "") for name in ENV_NAMES)]
    shapes.append(gh_token(api_host(api_url), gh_hosts_file(env)) or "")
    return [s for s in shapes if s.strip()]
