"""The one enum of evidence kinds: what a duplicate link, a claim or a vocabulary rule rests on.

A link's `signals` are these values (in this order); a vocabulary rule (`vocabulary.Rule`) names
the kind its claims rest on. A kind a link can carry is only ever added after the others, before
the wording rules' own kinds (which no link holds): every link's `signals` keep their order.
"""

from __future__ import annotations

from enum import Enum


class Signal(str, Enum):
    """Evidence kinds. `TARGET_SIGNALS` can carry a target (a link's `signal` is its strongest
    one, in this order); the rest only support or qualify a link, or count duplicates whose
    canonical is unknown."""

    GRAPHQL_EVENT = "graphql_event"  # MarkedAsDuplicateEvent.canonical
    DUPLICATE_KEYWORD = "duplicate_keyword"  # a comment line "Duplicate of #N" (GitHub's keyword)
    SLASH_COMMAND = "slash_command"  # "/duplicate #N", "/dup #N" (bots, triage tooling)
    MAINTAINER_WORDING = (
        "maintainer_wording"  # wording by a maintainer, the closer or the issue author
    )
    COMMENT_WORDING = "comment_wording"  # the same wording by anyone else (drive-by)
    # supporting / qualifying
    CONFIRMED_LATER = (
        "confirmed_later"  # a later untargeted "closing as dup" by someone with standing
    )
    EVENT_CONFIRMED = (
        "event_confirmed"  # a marked_as_duplicate event (no canonical) by the commenter
    )
    STATE_REASON = "state_reason_duplicate"
    LABEL = "duplicate_label"
    MAINTAINER = "author_maintainer"
    ISSUE_AUTHOR = "author_is_issue_author"
    CLOSING_ACTOR = "author_closed_issue"
    CLOSED_SOON = "closed_soon_after"
    SEVERAL_AUTHORS = "several_authors"
    SAME_AS = "same_as_wording"  # "this is the same bug as #N": weaker than "duplicate of"
    ANTECEDENT = "target_named_before_cue"
    EARLIER_REFERENCE = (
        "target_from_earlier_comment"  # "closing as dup." after a comment naming one issue
    )
    STILL_OPEN = "issue_still_open"  # nobody closed it: the suggestion was not acted on
    FIXED_SEPARATELY = "fixed_separately"  # a later comment reports a fix, or a merge bot closed it
    # the closer's own closing comment gives another reason ("No longer reproduces", "Moved to
    # other/repo#6") after someone else's hedged suggestion
    CLOSED_OTHERWISE = "closed_otherwise"
    # a merge closed the issue and a single hedged suggestion was the last thing anyone said
    LAST_WORD = "last_word_before_merge"
    HEDGED = "hedged"
    QUESTION = "question"  # the claim is asked ("Maybe a dup of #4?"), not stated
    DRIVE_BY = "drive_by"
    LABEL_POINTER = (
        "label_pointer"  # the target is a maintainer's pointer in a thread labelled duplicate
    )
    BOT_SUGGESTION = "bot_suggestion"  # a bot's claim, acted on by nobody
    # issue 32's conventions (last, so the signals of every older link keep their order)
    # a triage bot states the duplicate and closes the issue right after (it acts for the team)
    BOT_CLOSE = "bot_close"
    # a team member's "consolidating to #N" / "tracked in #N" at the close
    CONSOLIDATION = "consolidation"
    # the target was an old tracker's ticket number, mapped through the migration headers
    OLD_TICKET = "old_tracker_number"
    # the old tracker's own record, copied by the migration: bugs.python.org's superseder, a
    # Bugzilla import's "Duplicates:" field (the original's old number, mapped like OLD_TICKET)
    TRACKER_RESOLUTION = "tracker_resolution"
    # the closer's last word before the close is nothing but one issue of this repository
    # ("#4205", a bare link): the pointer a duplicate label would have answered
    CLOSER_POINTER = "closer_bare_pointer"
    # the wording rules' own kinds (`vocabulary.RULES`): what a claim rests on before its author
    # and the close make it maintainer or comment wording (last: no link's signals hold them)
    DUP_WORDING = "dup_wording"  # "dup of #N", "duplicate with #N", "dups with #N"
    IN_FAVOUR = "in_favour"  # "closing in favour of #N"
    SUPERSEDED = "superseded"  # "superseded by #N", "subsumed by #N", "replaced with #N"
    SUCCESSOR = "successor"  # "continued in #N", "reopened as #N", "new PR #N"
    REPORTED_BEFORE = "reported_before"  # "already reported in #N"


TARGET_SIGNALS = (
    Signal.GRAPHQL_EVENT,
    Signal.TRACKER_RESOLUTION,
    Signal.DUPLICATE_KEYWORD,
    Signal.SLASH_COMMAND,
    Signal.BOT_CLOSE,
    Signal.CONSOLIDATION,
    Signal.MAINTAINER_WORDING,
    Signal.COMMENT_WORDING,
)
