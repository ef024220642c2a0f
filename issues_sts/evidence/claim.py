"""What the reader finds in one comment: `Claim`s about targets, and a `Reading` of the comment
(its claims, why cues yielded none, and what it says without a target)."""

from __future__ import annotations

from dataclasses import dataclass, field

from issues_sts.evidence.refs import Ref


@dataclass(frozen=True)
class Claim:
    """One statement about a target: positive ("dup of #N") or negative ("not a dup of #N")."""

    target: Ref
    cue: str  # KEYWORD | SLASH | WORDING
    negated: bool
    hedged: bool
    position: int  # order of statements within the comment
    antecedent: bool = (
        False  # the target came before the cue ("covered by #4, closing in favor of that")
    )
    earlier_post: bool = False  # the target is the one reference of an earlier comment
    question: bool = False  # the claim is asked, not stated ("Maybe a dup of #4?")
    target_fixed: bool = (
        False  # the claim says the target is fixed ("dup of #4, which is fixed now")
    )
    successor: bool = False  # said without duplicate wording ("continued in #4", "Reopened as #4")
    cue_text: str = ""  # the words the cue matched (which vocabulary rule it is)
    first_person: bool = (
        False  # "I met the same problem as #4": about this issue only from its author
    )
    also: bool = False  # "also a dupe of #4": a further target next to one already agreed


@dataclass
class Reading:
    claims: list[Claim] = field(default_factory=list)
    skips: list[str] = field(default_factory=list)  # why a cue yielded no claim
    denies: bool = False  # an untargeted "not a duplicate"
    affirms: bool = False  # an untargeted, unhedged "duplicate" ("closing as dup")
    affirms_hedged: bool = (
        False  # an untargeted hedged one ("This does seem like a duplicate. Closing.")
    )
    affirm_at: int = (
        -1
    )  # where the first untargeted affirming cue starts (references before it may be its target)
    plural: bool = False  # the untargeted cue points back at several issues ("a dupe of those")
