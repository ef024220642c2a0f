"""Phase 4, the canonical: one `DuplicateLink` per target, and among the targets still standing
the one the thread is a duplicate of (`thread_links`)."""

from __future__ import annotations

from dataclasses import replace

from issues_sts.links.model import (
    TARGET_SIGNALS,
    DuplicateLink,
    LinkConfig,
    Signal,
    Thread,
)
from issues_sts.links.read.settle import stale_targets
from issues_sts.links.read.statement import Key, Statement
from issues_sts.links.scoring import (
    combine,
)


def _link(
    thread: Thread, key: Key, group: list[Statement], cfg: LinkConfig, reason: str | None
) -> DuplicateLink:
    scored = [st.scored for st in group if st.scored is not None]
    confidence, best = combine(scored, len({st.author for st in group}), cfg)
    if any(st.from_event for st in group):
        confidence = max(confidence, cfg.graphql_confidence)
    present = {sig for s in scored for sig in s.signals}
    if len({st.author for st in group}) > 1:
        present.add(Signal.SEVERAL_AUTHORS)
    signal = next(sig for sig in TARGET_SIGNALS if sig in {s.signal for s in scored})
    lead = max(
        group,
        key=lambda st: (
            st.scored is not None and st.scored.signal == signal,
            st.scored.score if st.scored else -99.0,
        ),
    )
    kinds = {st.kind for st in group}
    return DuplicateLink(
        repo=thread.repo,
        number=thread.number,
        target_repo=key[0],
        target_number=key[1],
        target_kind="pull" if "pull" in kinds else "issue" if "issue" in kinds else "unknown",
        signal=signal.value,
        signals=tuple(sig.value for sig in Signal if sig in present),
        confidence=round(confidence, 4),
        evidence_url=lead.url,
        evidence_urls=tuple(dict.fromkeys(st.url for st in group)),
        author=lead.author or None,
        author_association=lead.association,
        created_at=lead.time,
        hedged=lead.hedged,
        excluded_reason=reason,
    )


def thread_links(
    thread: Thread, statements: list[Statement], cfg: LinkConfig
) -> list[DuplicateLink]:
    stale = stale_targets(statements)
    links, ranks = [], []
    for key in dict.fromkeys(st.key for st in statements if st.positive):
        group = [st for st in statements if st.key == key and st.positive]
        if key not in stale:
            # after a retraction only the later claims count
            negatives = [st for st in statements if st.key == key and not st.positive]
            if negatives:
                later = [
                    st
                    for st in group
                    if (st.time, st.order) > (negatives[-1].time, negatives[-1].order)
                ]
                group = later or group  # the negatives were overruled drive-bys
        links.append(_link(thread, key, group, cfg, stale.get(key)))
        ranks.append(_rank(group))
    return _choose_canonical(links, ranks, cfg)


Rank = tuple[bool, bool, bool, str]


def _rank(group: list[Statement]) -> Rank:
    """Which surviving target is the thread's canonical: an event first, then the one
    established last ("dup of A", later "actually dup of B": B, whoever wrote it); a merely
    hedged suggestion does not displace a firm one, and a target only ever named "also"
    ("Agreed! (also a dupe of B)") does not displace the one agreed with."""
    firm = [
        st
        for st in group
        if not st.hedged or (st.scored and Signal.CONFIRMED_LATER in st.scored.signals)
    ]
    return (
        any(st.from_event for st in group),
        not all(st.also for st in group),
        bool(firm),
        max(st.time for st in firm or group),
    )


def _choose_canonical(
    links: list[DuplicateLink], ranks: list[Rank], cfg: LinkConfig
) -> list[DuplicateLink]:
    alive = [
        i
        for i, lk in enumerate(links)
        if lk.excluded_reason is None and lk.confidence >= cfg.min_confidence
    ]
    best = max(alive, key=lambda i: ranks[i], default=None)  # ties: the first named
    out = []
    for i, lk in enumerate(links):
        if lk.excluded_reason is None and i != best:
            lk = replace(lk, excluded_reason="not_canonical" if i in alive else "low_confidence")
        out.append(lk)
    return out
