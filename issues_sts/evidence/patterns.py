"""Reading duplicate claims out of one cleaned comment: `find_claims(text, repo, number)`.

A duplicate cue ("duplicate of", "dupe of", "closing in favor of", the native "Duplicate of #N"
keyword, `/duplicate` slash commands: `cues.py`, the wording rules' own regexes joined) is bound
to the references that follow it (`refs.find_refs`), with negation ("not a duplicate of #N"),
hedges ("probably", "looks like", a question) and conditionals ("if you think it is not a
duplicate") recorded (`context.py`). Text that has no claim still reports why a cue was skipped
(`Reading.skips`), so the stage can count every dropped candidate. `tracked_elsewhere` finds
"tracked in #N", which is a claim only when its author closes the issue.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from issues_sts.evidence.claim import Claim, Reading
from issues_sts.evidence.context import (
    ALSO_BEFORE,
    EITHER_WAY,
    NEGATION,
    OPEN_ALTERNATIVE,
    TARGET_FIXED,
    UNCERTAIN,
    about_this,
    antecedent_of,
    classify,
    denies_untargeted,
    governed_refs,
    in_first_person,
    is_hedged_reply,
    keeps_this_one,
    names_a_fix,
    one_of_several,
    polarity,
    read_untargeted,
    retract_on_second_thoughts,
    sentence_bounds,
    subsumed_by,
)
from issues_sts.evidence.cues import (
    CUES,
    GATES,
    KEYWORD,
    PR_CUES,
    REPORTED_BEFORE,
    ROLLED_UP,
    SAME_AS,
    SLASH,
    SUBJECT_SUBSUMES,
    SUCCESSOR,
    TRACKED_GATE,
    UNGATED,
    WORDING,
)
from issues_sts.evidence.gated import lowered
from issues_sts.evidence.refs import Ref, find_refs
from issues_sts.evidence.vocabulary import rule_of, speaks_of_own_report

__all__ = [
    "KEYWORD",
    "SAME_AS",
    "SLASH",
    "WORDING",
    "Claim",
    "Reading",
    "Ref",
    "find_claims",
    "find_refs",
    "is_hedged_reply",
    "names_a_fix",
    "tracked_elsewhere",
]


class _Comment(NamedTuple):
    """The comment being read: its text, every reference in it, and the thread's own number (a
    tuple: made for every comment read, and a frozen dataclass costs more to make)."""

    text: str
    refs: list[Ref]
    self_number: int


def find_claims(text: str, repo: str, self_number: int, *, pull_request: bool = False) -> Reading:
    """Every duplicate claim in one cleaned comment (see module docstring)."""
    reading = Reading()
    low = lowered(text)
    cues = [
        (pattern, cue, strict, _found(pattern, text, low))
        for pattern, cue, strict in CUES + (PR_CUES if pull_request else ())
    ]
    # references matter only around a cue or a "#N supersedes": most texts have neither
    wanted = any(found for *_, found in cues) or GATES[SUBJECT_SUBSUMES].may_match(low)
    comment = _Comment(
        text, find_refs(text, repo, bare=True, low=low) if wanted else [], self_number
    )
    used: set[int] = set()
    for pattern, cue, strict, found in cues:
        for m in found:
            _read_cue(comment, pattern, cue, strict, m, reading, used)
    _read_subsumes(comment, reading)
    _settle(comment, low, reading)
    return reading


def _found(pattern: re.Pattern[str], text: str, low: str | None) -> list[re.Match[str]]:
    """The cue's matches (behind its gate, see gated.py, unless its word is in most texts)."""
    return list(
        pattern.finditer(text) if pattern in UNGATED else GATES[pattern].finditer(text, low)
    )


def _read_cue(
    comment: _Comment,
    pattern: re.Pattern[str],
    cue: str,
    strict: bool,
    m: re.Match[str],
    reading: Reading,
    used: set[int],
) -> None:
    """The claims (or the skips) of one cue's match `m`."""
    text, refs, self_number = comment.text, comment.refs, comment.self_number
    # "I have the same problem as #N", "Sorry, I missed #N before": the speaker's own report
    first_person = (cue == SAME_AS and in_first_person(text, m)) or (
        cue == WORDING and speaks_of_own_report(text, m.start())
    )
    if m.start() in used or (cue == SAME_AS and not first_person and not about_this(text, m)):
        return
    targets = governed_refs(text, refs, m.end(), strict, m.group(0))
    if cue == SLASH and not targets:
        targets = _command_target(text, refs, m, self_number)
        if not targets and not refs:
            # "/duplicate - thanks, triggering the bot" under someone's pointer: the team's
            # unhedged "closing as dup", which the thread's earlier claims and pointers answer
            reading.affirms = True
            reading.affirm_at = m.start() if reading.affirm_at < 0 else reading.affirm_at
    if cue in (KEYWORD, SLASH, SAME_AS) and not targets:
        return  # "Duplicate of" then prose: let the wording pass look at it
    used.update(range(m.start(), m.end()))
    reason = classify(text, refs, m, self_number)
    antecedent = (
        antecedent_of(text, refs, m, self_number) if not targets and reason is None else None
    )
    if antecedent is not None and denies_untargeted(text, m):
        # "After updating with #4 this still occurs. I no longer think it is a duplicate.":
        # #4 was not what it duplicated; the sentence takes the thread's claims back
        reading.skips.append("wording_without_target")
        read_untargeted(text, m, reading)
        return
    stated = [c.target for c in reading.claims if not c.negated and c.target.end <= m.start()]
    if antecedent is not None and stated and antecedent.number not in {t.number for t in stated}:
        # "definitely a dup of #4, not so sure about #5. Regardless, closing as a duplicate":
        # the comment's own claim, not the last number before the cue
        antecedent = stated[-1]
    if antecedent is not None:
        targets = [antecedent]
    elif not targets:
        reading.skips.append(reason or "wording_without_target")
        if reason is None:
            read_untargeted(text, m, reading)
        return
    if reason is None and _split_into_several(cue, m, targets, self_number):
        reason = "consolidated_into_several"
    if reason is None and cue == SAME_AS and _VARIANT_AFTER.match(text, targets[-1].end):
        reason = "variant_of_target"
    if reason is not None:
        reading.skips.extend([reason] * len(targets))
        return
    _claim_targets(comment, pattern, cue, m, targets, antecedent is not None, first_person, reading)


# "the same issue as #150 but for jellyfin" (conv-25's Tracearr): the same bug elsewhere, a
# report of its own
_VARIANT_AFTER = re.compile(r"[)\]]*\s*,?\s*but\s+(?:for|in|on|with|when|under)\b", re.I)


def _split_into_several(cue: str, m: re.Match[str], targets: list[Ref], self_number: int) -> bool:
    """ "Consolidated into #68 and #69": the issue's work was split among several, so it
    duplicates none of them (conv-24's agent-business close; a hard negative). A duplicate of
    several ("dup of #4 and #5") still names one report each time and stays a claim."""
    named = {(r.repo.lower(), r.number) for r in targets if r.number != self_number}
    return cue == WORDING and len(named) > 1 and rule_of(m.group(0), cue).name == "consolidated"


def _command_target(text: str, refs: list[Ref], m: re.Match[str], self_number: int) -> list[Ref]:
    """A bare "/duplicate" line whose comment names one issue elsewhere ("the root cause of this
    is #N" over it): that issue is the command's target, as the team member who typed both
    meant. Several issues named, or only a fix, leave the command without one."""
    if text[m.end() :].split("\n", 1)[0].strip():
        return []  # "/duplicate" then words: not a bare command
    named = [r for r in refs if r.number != self_number and not names_a_fix(text, r)]
    if len({(r.repo.lower(), r.number) for r in named}) != 1:
        return []
    return [named[0]]


def _claim_targets(
    comment: _Comment,
    pattern: re.Pattern[str],
    cue: str,
    m: re.Match[str],
    targets: list[Ref],
    antecedent: bool,
    first_person: bool,
    reading: Reading,
) -> None:
    """A claim per target of the cue `m`, unless the sentence makes it no claim at all."""
    text = comment.text
    end = max(targets[-1].end, m.end())
    negated, conditional, hedged = polarity(text, m, end)
    begins, e = sentence_bounds(text, m.start(), end)
    skip = _no_claim(text, m, end, begins, e, negated=negated, conditional=conditional)
    question = (
        "?" in text[end : e + 1]
        or text[:end].endswith("?")  # a URL swallows its "?"
        or bool(UNCERTAIN.search(text[max(begins, m.start() - 60) : m.start()]))
    )
    successor = pattern is ROLLED_UP or bool(SUCCESSOR.search(m.group(0)))
    if skip is None and successor and len(targets) > 1:
        skip = "split_into_several"  # "continued in #4 and #5"
    if skip is not None:
        reading.skips.extend([skip] * len(targets))
        return
    for ref in targets:
        reading.claims.append(
            Claim(
                ref,
                cue,
                negated,
                hedged,
                m.start(),
                antecedent,
                question=question,
                target_fixed=bool(TARGET_FIXED.match(text[ref.end :])),
                successor=successor,
                cue_text=m.group(0),
                first_person=first_person,
                also=bool(ALSO_BEFORE.search(text[max(0, m.start() - 30) : m.start()])),
            )
        )


def _no_claim(
    text: str, m: re.Match[str], end: int, begins: int, e: int, *, negated: bool, conditional: bool
) -> str | None:
    """Why the cue's sentence makes no claim of it (its skip), or None."""
    if conditional and negated:
        # "reopen if you think this is not a duplicate of #N": neither a link nor a retraction
        return "conditional_negation"
    if OPEN_ALTERNATIVE.match(text[end:]):
        return "open_question"
    if one_of_several(text[begins : m.start()], text[end:e]):
        return "one_of_several"
    if EITHER_WAY.search(text):
        # "Same as #N. ... please close one of them as duplicate": no direction
        return "either_way"
    return None


def _read_subsumes(comment: _Comment, reading: Reading) -> None:
    """ "#N supersedes.", "This seems like #N would subsume it": the target named before the
    verb."""
    text = comment.text
    for ref, m in subsumed_by(text, comment.refs, comment.self_number):
        negated, conditional, hedged = polarity(text, m, m.end())
        if conditional:
            reading.skips.append("conditional_negation" if negated else "conditional")
            continue
        _, e = sentence_bounds(text, m.start(), m.end())
        if "?" in text[m.end() - 1 : e + 1] and re.search(r"\bor\b", text[m.end() : e]):
            # "Does #N subsume this, or is there something left?"
            reading.skips.append("open_question")
            continue
        reading.claims.append(
            Claim(
                ref,
                WORDING,
                negated,
                hedged,
                ref.start,
                antecedent=True,
                question="?" in text[ref.end : m.end() + 1],
                cue_text=m.group(0).strip(),
            )
        )


def _settle(comment: _Comment, low: str | None, reading: Reading) -> None:
    """The comment's claims in order, one per reference; a later change of mind; "this has been
    reported before" without a target."""
    text = comment.text
    reading.claims.sort(key=lambda c: (c.position, c.target.start))
    # one claim per reference: "Subsumed in #12, closing as duplicate" reads #12 twice
    reading.claims = list({c.target.start: c for c in reversed(reading.claims)}.values())[::-1]
    _explicit_over_antecedent(reading)
    retract_on_second_thoughts(text, reading)
    keeps_this_one(text, reading)
    reported = GATES[REPORTED_BEFORE].search(text, low)
    if reported is not None and not reading.claims and not reading.denies:
        negated, conditional, _ = polarity(text, reported, reported.end())
        reading.affirms = reading.affirms or not (negated or conditional)


def _explicit_over_antecedent(reading: Reading) -> None:
    """ "... see #1716 and the linked PR #2334. I am going to close this as a duplicate.
    Duplicates #1716" (conv-27's starship close): the untargeted "as a duplicate" took the last
    number before it, and the comment names its target itself further on. The named one is the
    claim; a borrowed number the comment does not name as its target is dropped (counted)."""
    named = {
        (c.target.repo.lower(), c.target.number)
        for c in reading.claims
        if not c.antecedent and not c.negated and not c.hedged
    }
    if not named:
        return
    kept = [
        c
        for c in reading.claims
        if not c.antecedent or (c.target.repo.lower(), c.target.number) in named
    ]
    reading.skips.extend(["antecedent_not_named"] * (len(reading.claims) - len(kept)))
    reading.claims = kept


def tracked_elsewhere(text: str, repo: str, self_number: int) -> Ref | None:
    """The one issue a comment says this one is followed in ("tracked in #N"), if it names one."""
    low = lowered(text)
    cue = TRACKED_GATE.search(text, low)
    if cue is None or NEGATION.search(text[: cue.start()][-60:]):
        return None
    refs = [
        r
        for r in find_refs(text, repo, low=low)
        if not (r.repo.lower() == repo.lower() and r.number == self_number)
    ]
    if len({(r.repo.lower(), r.number) for r in refs}) != 1 or refs[0].kind == "pull":
        return None
    if _READ_MORE.match(text, refs[-1].end):
        return None  # "Please follow <url> to learn more": something to read, not a tracker
    return refs[0]


# conv-24's chocolatey close: "Please follow <url> to learn more" sends the reader to a page
# about the subject (there, another repository's first issue), not to where this is followed
_READ_MORE = re.compile(
    r"[)\]>]*\s*(?:to\s+(?:learn|read|find\s+out|know)\b"
    r"|for\s+(?:more\s+)?(?:info|information|details|instructions|documentation|docs|background)\b)",
    re.I,
)
