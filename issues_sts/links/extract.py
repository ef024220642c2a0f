"""One thread in, its duplicate links out: `extract_thread_links(thread)` (pure).

Every post (body, comments) is cleaned and read into claims; GraphQL duplicate events
become statements of their own. Comments without a claim still count: "Reopening",
"No, different bug" retract earlier claims, "Yes"/"closing as dup" confirm them, a fix
report lowers them. Then the close itself: the closer's own comment giving another reason
("Moved to ...", "not a bug") lowers someone else's hedged suggestion, and a lone hedged
suggestion that was the last word before a merge closed the issue keeps its standing.
Statements are then resolved per target, in time order: the last statement about a target
decides whether it stands ("not a duplicate of #N" retracts,
`unmarked_as_duplicate` cancels; a drive-by cannot overrule a maintainer), an author who
retargets keeps only their latest target, and among the targets left above
`min_confidence` the canonical is an event's, else the one established last by a firm
(unhedged or confirmed) claim. Nothing is thrown away silently: every dropped candidate
bumps a counter.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from issues_sts.evidence import text as text_mod
from issues_sts.evidence.claim import Reading
from issues_sts.evidence.refs import find_refs
from issues_sts.links.migration import copied_view
from issues_sts.links.model import DuplicateLink, LinkConfig, Post, Thread
from issues_sts.links.read.canonical import thread_links
from issues_sts.links.read.pointers import (
    closer_pointer,
    copied_from_pointer,
    event_statements,
    label_pointer,
    link_only_issue,
    only_named_pointer,
    record_statements,
    reporter_pointer,
    title_pointer,
    title_statement,
    tracked_statements,
)
from issues_sts.links.read.posts import read_post
from issues_sts.links.read.replies import after_outcome, after_untargeted
from issues_sts.links.read.settle import (
    after_closing_comment,
    after_withdrawal,
    last_word_before_merge,
)
from issues_sts.links.read.statement import MARKED, Statement
from issues_sts.links.scoring import closed_soon_after, is_bot, thread_says_duplicate

__all__ = ["ThreadReading", "extract_thread", "extract_thread_links", "is_bot"]


@dataclass
class ThreadReading:
    links: list[DuplicateLink] = field(default_factory=list)
    counters: Counter[str] = field(default_factory=Counter)


def _closer_says_duplicate(post: Post, said: Reading, thread: Thread, cfg: LinkConfig) -> bool:
    """A firm, untargeted "closing as duplicate" by the person (not a bot) who then closed the
    issue, at the close, in a comment that names no issue ("Closing as a duplicate. Related
    discussion in the forum: #12" names something else; the pointer is another comment)."""
    return (
        said.affirms
        and not said.claims
        and post.kind == "comment"
        and bool(post.author)
        and post.author == thread.closed_by
        and not is_bot(post.author, cfg)
        and closed_soon_after(thread, post.created_at, cfg)
        and not find_refs(text_mod.clean(post.body), thread.repo)
    )


def extract_thread(thread: Thread, cfg: LinkConfig | None = None) -> ThreadReading:
    """Links of one thread plus counters of every candidate it dropped."""
    cfg = cfg or LinkConfig()
    reading = ThreadReading()
    # the old tracker's own record is read from the header as the migration wrote it
    records = record_statements(thread, cfg, reading.counters)
    thread = copied_view(thread, reading.counters)  # a migrated thread's old ticket numbers
    rest_marks = [
        e for e in thread.events if e.event.lower() in MARKED and e.canonical_number is None
    ]
    # 1. the posts, in order: each one's claims, and what it says of the claims before it
    statements: list[Statement] = []
    closer_post: Post | None = None  # the closer's untargeted "closing as duplicate", if any
    for i, post in enumerate(thread.posts):
        found, said = read_post(post, i, thread, cfg, reading.counters, rest_marks)
        if _closer_says_duplicate(post, said, thread, cfg):
            closer_post = post
        if not found and not said.denies and not said.affirms and not said.affirms_hedged:
            statements = after_outcome(statements, post, i, thread, cfg, reading.counters)
        statements = (
            after_untargeted(statements, post, i, said, thread, cfg, reading.counters) + found
        )
    # what the close says of the posts' claims (before the events: they are no posts' claims)
    statements = after_closing_comment(statements, thread, cfg, reading.counters)
    statements = last_word_before_merge(statements, thread, cfg, reading.counters)
    # 2. pointers and events: targets no claim in words named
    statements += records
    statements += event_statements(thread, cfg, reading.counters)
    # GitHub's record says duplicate (a label, the state reason, a mark), not only someone's words
    recorded = bool(thread_says_duplicate(thread, cfg) or rest_marks)
    says_duplicate = recorded
    if not any(st.positive for st in statements):
        if closer_post is not None and not recorded:
            # the closer's own untargeted "This is a duplicate issue, so I am closing it." says
            # what a duplicate label says: their pointer ("#253" right after) is the target
            reading.counters["evidence:closer_says_duplicate"] += 1
            says_duplicate = True
        if says_duplicate:
            statements += label_pointer(thread, cfg, reading.counters)
        if says_duplicate and not any(st.positive for st in statements):
            statements += copied_from_pointer(thread, cfg, reading.counters)
        if recorded and not any(st.positive for st in statements):
            # the reporter's own pointer answers only the team's record, not a closer's words
            statements += reporter_pointer(thread, cfg, reading.counters)
        if recorded and not any(st.positive for st in statements):
            # nor anyone's: the one issue the whole thread names, when it names one
            statements += only_named_pointer(thread, cfg, reading.counters)
    if not any(st.positive for st in statements):
        statements += tracked_statements(thread, cfg, reading.counters)
    if not any(st.positive for st in statements):
        statements += title_statement(thread, cfg, reading.counters)
    if not any(st.positive for st in statements) and not says_duplicate:
        statements += closer_pointer(thread, cfg, reading.counters)
    if not any(st.positive for st in statements) and closer_post is not None:
        # the closer said "duplicate" and pointed nowhere: the one issue the title names
        statements += title_pointer(thread, closer_post, cfg, reading.counters)
    if not any(st.positive for st in statements):
        # the issue is nothing but an earlier one's link, or a request to reopen it
        statements += link_only_issue(thread, cfg, reading.counters)
    # 3. settle: in time order, what the issue's state withdrew
    statements.sort(key=lambda st: (st.time, st.order))
    statements = after_withdrawal(statements, thread, cfg, reading.counters)
    # 4. the canonical, among the targets that still stand
    reading.links = thread_links(thread, statements, cfg)
    if says_duplicate and not any(lk.excluded_reason is None for lk in reading.links):
        reading.counters["duplicate_unknown_target"] += 1
    return reading


def extract_thread_links(thread: Thread, cfg: LinkConfig | None = None) -> list[DuplicateLink]:
    """The duplicate links of one thread (see module docstring)."""
    return extract_thread(thread, cfg).links
