"""Phase 1, the replies: a post without a claim of its own still bears on the claims before it
(an untargeted "not a dup" retracts them, "closing as dup" or "Yes" confirms them, a fix report
lowers them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from issues_sts.evidence import text as text_mod
from issues_sts.evidence.patterns import (
    WORDING,
    Claim,
    Reading,
    Ref,
    find_claims,
    find_refs,
    is_hedged_reply,
    names_a_fix,
)
from issues_sts.evidence.replies import Outcome, find_outcome
from issues_sts.links.model import (
    LinkConfig,
    Post,
    Signal,
    Thread,
)
from issues_sts.links.read.statement import (
    Key,
    Statement,
    after_final_close,
    last_about,
    last_positive,
    normalise,
    own_claims,
    withdrawals,
)
from issues_sts.links.scoring import (
    closed_soon_after,
    confirmed_later,
    fixed_later,
    is_bot,
    score_claim,
    standing,
)


def after_untargeted(
    statements: list[Statement],
    post: Post,
    index: int,
    reading: Reading,
    thread: Thread,
    cfg: LinkConfig,
    counters: Counter[str],
) -> list[Statement]:
    """Apply an untargeted "not a dup" (retracts every earlier claim) or an untargeted
    "closing as dup" by someone with standing (confirms them) to earlier statements."""
    earlier = list(dict.fromkeys(st.key for st in statements if st.positive))
    if reading.denies and earlier:
        if after_final_close(thread, post):
            earlier = own_claims(statements, post)  # after the close only a self-correction counts
            counters[
                "ignored:dispute_after_close" if not earlier else "retracted_by_own_correction"
            ] += 1
        counters["retracted_by_untargeted_denial"] += len(earlier)
        who = bool(standing(post, thread, cfg))
        return statements + withdrawals(post, index, earlier, who)
    affirms = reading.affirms or (reading.affirms_hedged and _closes_right_after(post, thread, cfg))
    if affirms and earlier and standing(post, thread, cfg):
        confirmed = [
            replace(st, scored=confirmed_later(st.scored, cfg)) if st.scored else st
            for st in statements
        ]
        # "No, that's the opposite issue." then "Actually it can still count as a duplicate.":
        # the affirmation takes back the withdrawal, so the claim is made again, now
        withdrawn = [key for key in earlier if last_about(statements, key).positive is False]
        counters["reaffirmed_after_withdrawal"] += len(withdrawn)
        return confirmed + [
            replace(
                last_positive(confirmed, key),
                time=post.created_at,
                order=(index, -1),
                author=post.author or "",
                url=post.url,
                association=post.author_association,
                standing=True,
            )
            for key in withdrawn
        ]
    if affirms and not earlier and standing(post, thread, cfg):
        ref = _earlier_reference(thread, index, cfg, first=reading.plural, before=reading.affirm_at)
        if ref is not None:
            counters["target_from_earlier_comment"] += 1
            claim = Claim(ref, WORDING, False, False, -1, antecedent=True, earlier_post=True)
            key = normalise(ref, thread, cfg)
            scored = score_claim(claim, post, thread, cfg)
            return [
                *statements,
                Statement.said(post, key, ref.kind, (index, -1), scored=scored, standing=True),
            ]
    return statements


def _closes_right_after(post: Post, thread: Thread, cfg: LinkConfig) -> bool:
    """ "This does seem like a duplicate. Closing.": the author acted on it by closing."""
    return (
        bool(post.author)
        and post.author == thread.closed_by
        and closed_soon_after(thread, post.created_at, cfg)
    )


def _answered_claims(post: Post, thread: Thread, earlier: list[Key], cfg: LinkConfig) -> set[Key]:
    """Earlier targets whose claim this reply quotes ("> likely a dup of #4" + "Fixed, thanks.")."""
    quoted = "\n".join(
        line.lstrip()[1:] for line in post.body.splitlines() if line.lstrip().startswith(">")
    )
    if not quoted:
        return set()
    claims = find_claims(text_mod.clean(quoted), thread.repo, thread.number).claims
    return {normalise(c.target, thread, cfg) for c in claims if not c.negated} & set(earlier)


def _confirm(
    statements: list[Statement], which: Callable[[Statement], bool], cfg: LinkConfig
) -> list[Statement]:
    return [
        replace(st, scored=confirmed_later(st.scored, cfg)) if st.scored and which(st) else st
        for st in statements
    ]


def after_outcome(
    statements: list[Statement],
    post: Post,
    index: int,
    thread: Thread,
    cfg: LinkConfig,
    counters: Counter[str],
) -> list[Statement]:
    """A later comment without a claim: reopening or disagreeing retracts earlier claims
    (reopening needs write access; a drive-by's "no" cannot overrule a maintainer);
    a "yes" right after a suggestion confirms it; a fix report lowers earlier claims,
    except for a target it names itself ("#12 is fixed now" says nothing against "dup of #12")."""
    if not any(st.positive for st in statements):
        return statements
    text = text_mod.clean(post.body)
    said = find_outcome(text)
    earlier = list(dict.fromkeys(st.key for st in statements if st.positive))
    answers_question = False
    if (
        said.answers_no
        and not said.disagrees
        and _answers_claim(statements, post, index, thread, earlier, cfg)
    ):
        said = replace(said, disagrees=True)  # "No." right under "dup of #N?", or quoting it
        # "Is this a dupe of #N?" asked, "No." answered: whoever answers, the asker asserted
        # nothing a "no" would have to overrule (old archives show core developers as plain
        # contributors, so standing cannot decide here)
        answers_question = any(
            st.positive
            and st.order[0] == index - 1
            and st.scored is not None
            and Signal.QUESTION in st.scored.signals
            for st in statements
        )
    if said.takes_back and not (said.disagrees or said.reopens):
        # "This is #N." then "I take it back": only the poster's own word is withdrawn
        own = own_claims(statements, post)
        if own:
            counters["retracted_by_own_correction"] += len(own)
            return statements + withdrawals(post, index, own, True)
    if said.disagrees and not said.reopens and after_final_close(thread, post):
        earlier = own_claims(statements, post)  # nobody reopened: only the claimer can take it back
        counters[
            "ignored:dispute_after_close" if not earlier else "retracted_by_own_correction"
        ] += 1
        said = replace(said, disagrees=bool(earlier))
    if said.reopens or said.disagrees:
        counters["retracted_by_reopen" if said.reopens else "retracted_by_disagreement"] += len(
            earlier
        )
        who = said.reopens or answers_question or bool(standing(post, thread, cfg))
        return statements + withdrawals(post, index, earlier, who)
    # a hedged reply ("Could be due to the same cause.") takes nothing up
    answered = (
        set()
        if said.disagrees or is_hedged_reply(text)
        else _answered_claims(post, thread, earlier, cfg)
    )
    if answered:  # a reply quoting the claim, neither reopening nor disagreeing: it takes it up
        counters["confirmed_by_quoting_reply"] += 1
        return _confirm(statements, lambda st: st.key in answered, cfg)
    if _agrees(said, post, thread):
        counters["confirmed_by_reply"] += 1
        return _confirm(statements, lambda st: st.order[0] == index - 1, cfg)
    if said.reports_fix:
        named = {normalise(r, thread, cfg) for r in find_refs(text, thread.repo)}
        counters["lowered_by_fix_report"] += 1
        return [
            replace(st, scored=fixed_later(st.scored, cfg))
            if st.scored and st.key not in named and not st.target_fixed
            else st
            for st in statements
        ]
    return statements


def _answers_claim(
    statements: list[Statement],
    post: Post,
    index: int,
    thread: Thread,
    earlier: list[Key],
    cfg: LinkConfig,
) -> bool:
    """Is this reply an answer to a duplicate claim: the comment just before made one, or it quotes
    one?"""
    return any(st.positive and st.order[0] == index - 1 for st in statements) or bool(
        _answered_claims(post, thread, earlier, cfg)
    )


def _agrees(said: Outcome, post: Post, thread: Thread) -> bool:
    """ "Yes." from anyone; "Great, thanks!" from the issue's author (the pointer answered them)."""
    return said.agrees or (said.acknowledges and bool(post.author) and post.author == thread.author)


def _earlier_reference(
    thread: Thread, index: int, cfg: LinkConfig, *, first: bool = False, before: int = 0
) -> Ref | None:
    """The one issue this post (before its cue at `before`) or the nearest earlier one (up to
    three back) names, if it names exactly one; with `first` ("a dupe of those"), the first of
    the several it names. Bots' posts ("upstream changes (presumably #N) made this
    unmergeable") are skipped. An issue's body ("looks similar to #N") is the last resort
    however far back it is; a pull request's body names what the change fixes, not what it
    duplicates ("See #N. Also removes a duplicate test."), so it never counts."""
    for i in dict.fromkeys((*range(index, max(0, index - 3) - 1, -1), 0)):  # the body last, once
        if i == 0 and thread.is_pull_request:
            continue
        post = thread.posts[i]
        if (post.author or "") in cfg.merge_bots:
            continue
        if is_bot(post.author, cfg) and not (i == index - 1 and _suggests(post, thread)):
            # a bot's reference counts only as the suggestion the very next comment takes up
            continue
        text = text_mod.clean(post.body)
        if i == 0 and text_mod.copied_from_pull_request(text):
            # a reviewer's note on a pull request made an issue (conv-41's hapi-fhir close):
            # neither the note nor its signature's pull request is what this one duplicates
            text = text_mod.strip_copied_comment(text)
        refs = [
            r
            for r in find_refs(text, thread.repo)
            if normalise(r, thread, cfg) != (thread.repo, thread.number)
            and (i < index or r.end <= before)
            and not names_a_fix(text, r)
            # the body's issues of other repositories are its context (the plugin's own report)
            and (i > 0 or normalise(r, thread, cfg)[0] == thread.repo)
        ]
        if refs:
            distinct = {normalise(r, thread, cfg) for r in refs}
            return refs[0] if first else refs[-1] if len(distinct) == 1 else None
    return None


def _suggests(post: Post, thread: Thread) -> bool:
    """Does this (bot's) comment suggest a duplicate ("Potential duplicates: #12")?"""
    reading = find_claims(text_mod.clean(post.body), thread.repo, thread.number)
    return any(not cl.negated for cl in reading.claims)
