"""Which issues deserve a timeline request: those with some sign of being a duplicate.

Timelines cost one request per issue, so they are fetched only for candidates, strongest
evidence first, and only again when the issue changed since its timeline was stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from issues_sts.evidence import (
    DUPLICATE_STATE_REASON,
    KEYWORD_LINE,
    labels_say_duplicate,
    says_duplicate,
)
from issues_sts.evidence.refs import find_refs

_ISSUE_REF = re.compile(r"(?<![\w/])#(\d+)\b")
_URL_REF = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)")


def has_duplicate_wording(text: str | None) -> bool:
    """A comment the link stage would read as duplicate evidence (the one vocabulary,
    `issues_sts/evidence`: its cheap screen first, then the claim reader)."""
    return says_duplicate(text)


def mentions_issue(text: str | None) -> bool:
    """Does `text` point at any issue (#N, owner/repo#N or an issue URL)?"""
    return bool(text) and bool(_ISSUE_REF.search(text or "") or _URL_REF.search(text or ""))


def says_duplicate_itself(labels: Iterable[object], state_reason: str | None) -> bool:
    """GitHub's own word that an issue is a duplicate: `state_reason` or a duplicate label."""
    names = [lab.get("name", "") if isinstance(lab, dict) else str(lab) for lab in labels]
    return (state_reason or "").lower() == DUPLICATE_STATE_REASON or labels_say_duplicate(names)


def referenced_numbers(text: str | None, repo: str) -> set[int]:
    """Issue numbers of `repo` that `text` points at (#N, or a full github.com URL)."""
    if not text:
        return set()
    found = {int(n) for n in _ISSUE_REF.findall(text)}
    found |= {int(n) for r, n in _URL_REF.findall(text) if r.lower() == repo.lower()}
    return found


def maybe_old_names(text: str | None, names: tuple[str, str]) -> set[str]:
    """`owner/name` references in `text` that may be `names` (this repository as asked, and
    where it lives now) under an earlier name: the same name under another owner
    ("quicktype/quicktype#1347" in glideapps/quicktype, an owner transfer) or another name
    under the same owner ("pixijs/pixi.js#N" in pixijs/pixijs, a rename). Only GitHub can tell
    an old name from a fork, a namesake or a sibling repository."""
    if not text:
        return set()
    known = {n.lower() for n in names}
    owners = {n.split("/", 1)[0] for n in known}
    repo_names = {n.split("/", 1)[1] for n in known}
    found = set()
    for ref in find_refs(text, names[0]):
        owner, name = ref.repo.lower().split("/", 1)
        if ref.repo.lower() not in known and (name in repo_names or owner in owners):
            found.add(ref.repo)
    return found


def keyword_closes(comments: list[dict[str, Any]]) -> set[int]:
    """Issue numbers of REST comments that use the "Duplicate of" keyword."""
    found = set()
    for comment in comments:
        tail = str(comment.get("issue_url", "")).rstrip("/").rsplit("/", 1)[-1]
        if tail.isdigit() and KEYWORD_LINE.search(str(comment.get("body") or "")):
            found.add(int(tail))
    return found


@dataclass(frozen=True)
class Candidate:
    number: int
    updated_at: str | None
    strength: int  # 0: state_reason duplicate, 1: duplicate label, 2: wording only


def rank_candidates(
    issues: Iterable[tuple[int, str | None, str | None, str]],
    worded: set[int],
    limit: int,
) -> list[Candidate]:
    """Candidates from (number, state_reason, updated_at, labels JSON) rows of non-PR issues and
    the numbers whose comments use duplicate wording; strongest first, at most `limit`."""
    chosen: list[Candidate] = []
    for number, state_reason, updated_at, labels in issues:
        if (state_reason or "").lower() == DUPLICATE_STATE_REASON:
            strength = 0
        elif labels_say_duplicate(labels):
            strength = 1
        elif number in worded:
            strength = 2
        else:
            continue
        chosen.append(Candidate(number, updated_at, strength))
    chosen.sort(key=lambda c: (c.strength, c.number))
    return chosen[:limit]
