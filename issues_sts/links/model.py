"""The link stage's vocabulary: threads in, duplicate links out, one frozen config.

A `Thread` is everything the crawl store knows about one issue (or pull request): its
row, the issue body as the first post, every comment, and its duplicate events. A
`DuplicateLink` is one (source, target) candidate with the evidence behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from issues_sts.config import Option
from issues_sts.evidence.kinds import TARGET_SIGNALS, Signal
from issues_sts.evidence.vocabulary import DUPLICATE_LABEL_PATTERN

__all__ = [
    "MAINTAINER_ASSOCIATIONS",
    "TARGET_SIGNALS",
    "DuplicateLink",
    "Event",
    "LinkConfig",
    "Post",
    "Signal",
    "Thread",
]

MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


@dataclass(frozen=True)
class Post:
    """The issue body (kind "body") or one comment (kind "comment")."""

    kind: str
    author: str | None
    author_association: str | None
    body: str
    created_at: str
    url: str
    # False: the stage's vectorised cue screen found no cue word in `body`, so the reader need
    # not look again (that screen admits everything `vocabulary.CUE` does, and more)
    may_cue: bool = True


@dataclass(frozen=True)
class Event:
    """A timeline event that bears on duplicates: `marked_as_duplicate` /
    `unmarked_as_duplicate` (only GraphQL names the canonical, and the `duplicate` it is
    about: the same mark shows on the canonical's timeline), `closed` / `reopened` (who, and
    the reason), `labeled` / `unlabeled` (a duplicate label's history)."""

    event: str
    actor: str | None
    created_at: str
    canonical_repo: str | None
    canonical_number: int | None
    source: str
    url: str
    actor_type: str | None = None  # User | Bot
    label: str | None = None
    state_reason: str | None = None
    duplicate_repo: str | None = None
    duplicate_number: int | None = None


@dataclass(frozen=True)
class Thread:
    """One issue or pull request with its posts (body first, then comments by time) and events."""

    repo: str
    number: int
    is_pull_request: bool
    author: str | None
    state: str | None
    state_reason: str | None
    labels: tuple[str, ...]
    created_at: str
    closed_at: str | None
    closed_by: str | None
    html_url: str
    posts: tuple[Post, ...] = ()
    events: tuple[Event, ...] = ()
    # a duplicate label removed together with a reopen: what was said before no longer stands
    withdrawn_at: str | None = None
    title: str = ""  # read by the migration forms that keep the old ticket's id there


@dataclass(frozen=True)
class DuplicateLink:
    """One candidate: `repo#number` duplicates `target_repo#target_number`.

    `excluded_reason` is set by the thread-level reading ("superseded", "retracted",
    "unmarked", "not_canonical", "low_confidence") or later by the stage from store facts
    ("source_is_pull_request", "target_is_pull_request", "target_missing").
    """

    repo: str
    number: int
    target_repo: str
    target_number: int
    target_kind: str  # what the reference itself said: "issue" | "pull" | "unknown"
    signal: str
    signals: tuple[str, ...]
    confidence: float
    evidence_url: str
    evidence_urls: tuple[str, ...]
    author: str | None
    author_association: str | None
    created_at: str
    hedged: bool
    excluded_reason: str | None = None


class LinkConfig(BaseModel):
    """Policy knobs of the link stage (frozen: built once at the CLI boundary; nested in the
    build's `BuildConfig.links`).

    Weights are log-odds added to a link's score; confidence = sigmoid(score). A link below
    `min_confidence` is kept but not usable (no pair is made of it).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_confidence: Annotated[
        float, Field(ge=0.0, le=1.0), Option("--min-confidence", always=True)
    ] = 0.5
    close_window_hours: Annotated[float, Field(ge=0.0)] = 48.0
    # Base score of the strongest target-carrying signal.
    w_keyword: float = 2.5
    w_slash: float = 2.0
    w_bot_close: float = 2.5  # a triage bot's statement it closed the issue on (issue 32)
    w_consolidation: float = 1.5  # a team member's "consolidating to #N" at the close
    w_wording: float = 1.5
    # Who said it and what happened next.
    w_maintainer: float = 1.0
    w_issue_author: float = 1.0
    w_closing_actor: float = 1.0
    w_closed_soon: float = 1.0
    w_event_confirmed: float = 2.0
    w_state_reason: float = 1.5
    w_label: float = 1.5
    w_several_authors: float = 0.5
    w_drive_by: float = -0.25
    w_hedged: float = -0.5
    w_question: float = -0.5  # on top of w_hedged: a question waits for an answer
    w_confirmed_later: float = 1.0
    w_antecedent: float = -0.25
    w_same_as: float = -0.75
    w_fixed_separately: float = -1.0
    w_closed_otherwise: float = -2.5
    w_last_word: float = 1.0  # offsets w_fixed_separately: the merged fix was the shared one
    w_still_open: float = -1.0
    # On top of w_still_open: nobody with standing said it, or it was a question nobody answered by
    # closing.
    w_open_drive_by: float = -1.5
    w_open_question: float = -1.0
    # On top of w_still_open: a hedged suggestion ("likely the same as #N") nobody acted on.
    w_open_hedged: float = -1.5
    # Accounts whose close means "a pull request fixing this was merged" (not "duplicate").
    merge_bots: tuple[str, ...] = ("bors", "bors[bot]")
    # A bot's duplicate statement counts when the bot closes the issue within this long of it
    # (triage bots close within seconds); later, the close was for something else (inactivity).
    bot_close_window_minutes: Annotated[float, Field(ge=0.0)] = 10.0
    # A team member's "consolidating to #N" counts at the close: said at most
    # `close_window_hours` before it or this long after it.
    consolidation_after_close_hours: Annotated[float, Field(ge=0.0)] = 1.0
    # Automation accounts besides `*[bot]` logins (compared case-insensitively). A bot that
    # closes the issue acts for the maintainers; a bot that only comments ("Potential
    # duplicates: #12") suggests.
    bot_accounts: tuple[str, ...] = (
        "bors",
        "msftbot",
        "github-actions",
        "vscode-triage-bot",
        "vscodetriagebot",
        "vscodebot",
        "vs-code-engineering",
        "vscodenpm",
        "stale",
        "rust-highfive",
        "rustbot",
        "rfcbot",
        "k8s-ci-robot",
        "k8s-triage-robot",
    )
    w_earlier_reference: float = -0.5
    w_body: float = -1.0  # a claim in the issue's own body, before anyone looked at it
    graphql_confidence: float = 0.99
    # A migrated issue's old tracker recorded it a duplicate of another (bugs.python.org's
    # superseder, a Bugzilla import's "Duplicates:"): the team's own close, as firm as a
    # maintainer's claim (a later word on GitHub still wins).
    w_tracker_resolution: float = 3.0
    # Labels saying "duplicate": `duplicate`, `*duplicate`, `r: duplicate`, `triage/duplicate`,
    # `Resolution-Duplicate`, `dupe`... (searched case-insensitively in each label name).
    duplicate_label_pattern: str = DUPLICATE_LABEL_PATTERN
    # Renamed repositories, old -> new ("mozilla/rust" -> "rust-lang/rust").
    repo_aliases: Annotated[tuple[tuple[str, str], ...], Option("--alias")] = ()
