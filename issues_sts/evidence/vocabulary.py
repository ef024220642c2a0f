"""The one duplicate-evidence vocabulary: what counts as a sign that an issue is a duplicate.

The crawler (which issues deserve a timeline request: `crawl/candidates.py`, `crawl/feed.py`,
GitHub's keyword in `crawl/candidates.py` and `crawl/todo.py`), the store
(`Store.repo_counts`' `duplicate_candidates`) and the link stage (which threads it reads, which
claims it counts) all ask this module, so they cannot drift apart again.

`RULES` is the table: one named `Rule` per way of saying "duplicate", each with its `Signal`
(`kinds.Signal`, the one enum of evidence kinds: what a claim by the rule rests on), the
counter the link stage bumps when the rule yields a claim (`COUNTERS` declares them all), the
words without which it cannot fire (`screen`: the cheap prefilter is the union of them), and
examples that must link and near misses that must not (tests feed every example to both the
crawl's screen and the link stage). A rule read line by line (GitHub's "Duplicate of" keyword,
a slash command) owns the one regex that finds it (`Rule.pattern`): the reader and the crawler
run that very pattern. The detailed reading (negation, hedges, which reference a cue governs)
lives in `patterns.py`; this module names the vocabulary and the screens built from it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Protocol

from issues_sts.evidence.gated import COMMON_WORDS, Needs, alternative_needs, top_level
from issues_sts.evidence.kinds import Signal


@dataclass(frozen=True)
class Rule:
    """One way of saying "duplicate". `cue` recognises the rule's cue text (the words the
    reader matched; for a rule read `by_line`, the regex that finds the cue in a comment);
    `screen` is a regex fragment every such text contains."""

    name: str
    signal: Signal  # the evidence kind a claim by this rule rests on
    screen: str
    cue: str
    examples: tuple[str, ...] = ()  # said by a maintainer who then closes the issue: a link to #12
    near_misses: tuple[str, ...] = ()  # the same words, no link (in an issue)
    # read only in a pull request: in an issue the same words name the fix, not a successor
    pull_request_only: bool = False
    # `cue` is read at the start of any line of a comment (re.MULTILINE)
    by_line: bool = False
    # the rule's alternatives of the reader's wording cue (`patterns` joins every rule's, in the
    # table's order, into the one regex that finds "dup of #N", "superseded by #N"...)
    reads: tuple[str, ...] = ()
    # who says the examples and near misses in the tests: "maintainer" (who then closes the
    # issue), "author" (the issue's author, who then closes it), or "bot" (a triage bot, which
    # closes the issue seconds later, as not planned)
    said_by: str = "maintainer"
    # the words speak of the speaker's own report ("I missed #N before"): a claim only from the
    # issue's author; a bystander's is `dropped:me_too` (the tests' examples are then the
    # author's, who closes the issue)
    first_person: bool = False

    @property
    def counter(self) -> str:
        return f"evidence:{self.name}"

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """`cue`, compiled: case-insensitive, and line by line for a rule read `by_line`."""
        return re.compile(self.cue, re.I | (re.M if self.by_line else 0))


# the words start a sentence (or a line)
SENTENCE_START = r"(?:^|[.!?]\s+|\n)\s*"
# the one issue right after the words ends the sentence: "Merging with #12." ("Merging with #12
# should wait" is about something else). A full stop inside a URL ends nothing: the
# punctuation ends the sentence only before a space or the end ("see https://x.org/a.b for the
# log" goes on)
ISSUE_ENDS_SENTENCE = r"(?=\s*(?:#\d+|https?://\S+?)[)\]]*\s*(?:[.!](?=\s|$)|$))"
# after an issue: its clause ends ("," and ";" too), nothing more said of it
_CLAUSE_END = r"[)\]]*\s*(?:[.!,;](?=\s|$)|$)"

# "there is already an issue", "there's already a PR", "there already is an open ticket"
_THERE_IS_ALREADY = (
    r"there(?:(?:'s|\s+is)\s+already|\s+already\s+is)\s+(?:an?\s+)?(?:open\s+|existing\s+)?"
    r"(?:issue|pr|pull\s+request|ticket)"
)

# "Sorry, I missed #N before", "didn't see <url> when I searched": the speaker's own earlier
# search that missed the report named right after the words, and when ("before", "when I
# searched": "I missed #N in the changelog" is about something else)
_MISSED_WORDS = (
    r"(?:missed|overlooked|(?:didn'?t|did\s+not)\s+(?:see|find|notice|spot))\s+"
    r"(?:that\s+|this\s+|the\s+(?:existing|other|earlier|original)\s+)?"
    r"(?:issue\s+|one\s+|report\s+|ticket\s+)?"
)
_MISSED_SCREEN = _MISSED_WORDS + r"(?:#\d|\[#?\d|https?://|[\w.-]+/[\w.-]+#\d)"
# the report the words name: "#N", "owner/name#N" or a markdown link (a bare URL ends
# differently in each reading)
_MISSED_REF = r"(?:[\w.-]+/[\w.-]+)?#\d+|\[[^\]\n]{1,80}\]\(https?://[^)\s]+\)"
_MISSED = (
    r"(?:\b(?:i|we)\s+(?:must\s+have\s+|had\s+|have\s+|'ve\s+)?|\b(?:sorry|oops|whoops)[,!.]?\s+(?:i\s+)?)"
    + _MISSED_WORDS
    + rf"(?=(?:{_MISSED_REF}|https?://\S+?)[)\]]*"
    r"\s+(?:before|earlier|when\s+(?:i\s+|we\s+)?(?:search|look|open|fil|report|creat|post|wrote|writ)"
    r"|while\s+search|in\s+(?:my|our|the)\s+search))"
)
# "Ah didn't notice the existing ticket <url>" (conv-34c's alaveteli close, by its author): no
# "before", but the words name the earlier report ("the existing ticket") and the reference
# ends the sentence ("the existing ticket #N was about Windows" is about that ticket)
_MISSED_EXISTING = (
    r"(?:\b(?:ah|oh|oops|whoops|sorry)[,!.]?\s+|\b(?:i|we)\s+)(?:i\s+)?(?:didn'?t|did\s+not)\s+"
    r"(?:see|find|notice|spot)\s+the\s+(?:existing|earlier|original|other)\s+"
    r"(?:issue|ticket|report|one)\s*:?\s*"
    rf"(?=(?:{_MISSED_REF}|https?://[^\s)]+)[)\]]*"
    r"\s*(?:[.!]+(?:\s|$)|$))"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "duplicate_keyword",
        Signal.DUPLICATE_KEYWORD,
        r"dup",
        # GitHub's own keyword: a comment line starting "Duplicate of #N" marks the issue a
        # duplicate (the reader binds the reference that follows; the crawler only asks)
        r"^[ \t]*duplicate[ \t]+of[ \t]*(?=\S)",
        (
            "Duplicate of #12",
            "duplicate of https://github.com/acme/widgets/issues/12",
            "Duplicate of ##12. Closing in favor of that issue.",  # conv-27's fnm close
        ),
        ("Duplicate of what? I could not find it.",),
        by_line=True,
    ),
    Rule(
        "slash_command",
        Signal.SLASH_COMMAND,
        r"dup",
        # ansible's triage bot reads a maintainer's "duplicate_of #N" and closes the issue
        r"^[ \t]*(?:/(?:duplicate|dupe|dup)\b[ \t]*(?:of\b)?|duplicate_of\b)[ \t]*",
        # conv-17's dreck: a command's bare number, the line's last word
        ("/duplicate #12", "/dup #12", "duplicate_of #12", "/duplicate 12"),
        ("/duplicate", "duplicate_of", "/duplicate 3 times did nothing, see the log."),
        by_line=True,
    ),
    Rule(
        "dup_wording",
        Signal.DUP_WORDING,
        # (conv-31's GS5 and opensupport: "dublicates #N", "doublication #N", with a b)
        r"dup|do?ublicat",
        r"dup|do?ublicat",
        (
            "Closing as a duplicate of #12.",
            "dupe of #12",
            "Duplicate with #12",
            "dups with #12",
            "This is a duplicate of https://github.com/acme/widgets/issues/12, closing.",
            "Isn't this a duplicate of #12? If not, please re-open.",
            "Duplcate of #12",
            # conv-6's flutter miss: a member's "Deduplicating with <url>" at the close
            "Deduplicating with https://github.com/acme/widgets/issues/12",
            # conv-7's dev rows: flutter's "Duple of: <url>", npm/cli's "similar if not a
            # duplicate of an existing issue, #N" at a triager's close
            "Duple of: https://github.com/acme/widgets/issues/12",
            "Closing: this looks to be similar if not a duplicate of an existing issue, #12.",
            "Duping to #12",
            # conv-13's PowerToys miss: "if" typed for "of", the issue ending the clause
            "Duplicate if https://github.com/acme/widgets/issues/12, tracked in #13",
            # conv-21's sapl close: Portuguese (and Spanish) "Duplicada de #N." as the sentence's
            # start
            "Duplicada de #12.",
            "Esta issue é duplicada de #12.",
            "Duplicado de https://github.com/acme/widgets/issues/12",
            "[Fechado not_planned] duplicata acidental de #12",
            # conv-24's Wox and PowerToys closes: the bare word, then where to look; the verb
            # with an apostrophe
            "Duplicate. Please check #12",
            "This is a duplicate, please refer to #12.",
            "dup'ing against #12 which was the tracked work item",
            # conv-26's reload close
            "This is a duplicate and answered in #12. Closing, head there for more.",
            # conv-27's EDDI close: the issue before the noun
            "Duly advised. Closing due to #12 duplicate.",
            # conv-30's istio close: the noun "duplication" with the issue right after it
            "Closing - this is a duplication of #12",
            # conv-38's member close: the noun opening the comment, a Markdown link after it
            "Duplication of [#12](https://github.com/acme/widgets/issues/12)",
            "Thanks for the report. Duplication of #12.",
            # conv-41's Paddle close
            "Close due to duplication with acme/widgets#12, please file it there next time.",
            # conv-39's Stellarium close: the noun as the whole sentence, then where to look
            "Yet another duplicate. See #12 for more.",
            # conv-31's GS5 body and opensupport close: misspelt with a b
            "dublicates #12",
            "doublication #12",
            # conv-32's vaultwarden close: "Duplicate post <link>", the report called a post
            "Duplicate post [https://github.com/acme/widgets/issues/12](url)",
            # conv-33's yeoman body: "Duplicated my own issue #N by accident."
            "Whoops sorry. Duplicated my own issue #12 by accident.",
            # conv-34's dify-plugins close: the verb, the earlier request described, then "in #N"
            "This duplicates the earlier BookStack integration request in #12, which now has a "
            "plugin.",
        ),
        (
            "Not a duplicate of #12: that one is about a different component.",
            "Not actually a dupe of #12, my mistake.",
            "This removes duplicate code, see #12.",
            "Possible duplicate code in #12 and #13.",
            "I would not call it a duplicate of #12.",
            "Not a duplcate of #12.",
            "Deduplicating the cache entries with the helper from #12.",
            "We should dedupe with a hash set, like #12 does.",
            "The rhythm is in duple meter here, see #12.",
            "If not a duplicate of #12, please reopen.",
            "Duping to a new branch first, then see #12.",
            "Duplicate if #12 is the same crash, otherwise not.",
            "Não é duplicada de #12.",
            "Não é duplicata de #12.",
            "[Aberto] Não é duplicata acidental de #12.",
            "No es duplicado de #12, es otro error.",
            "Registros duplicados de #12 na tabela.",
            "This removes the duplicate, please check #12 for the fix.",
            # conv-25's drive-by line: another issue's duplicate, that issue first on the line
            "#13 Duplicate of #12",
            "Duplicate code. Please check #12",
            "We removed the duplicate and resolved in #12 the rest of the warnings.",
            "Closing due to #12 duplicate code.",
            # conv-27's loopover request: a quoted example of words to write
            'Name the winner in the close comment (e.g. "Closed as a duplicate of #12, thanks").',
            # conv-28's bluebird drive-by: another issue's duplicate, addressed to its author
            "@bob #13 Duplicate of #12",
            "24049 is a duplicate of 24083",  # conv-28's filament records, by bare number
            "There is some duplication of #12's parser logic in the loader.",
            "This is not a duplication of #12.",
            "Avoid duplication of https://github.com/acme/widgets/issues/12 in the docs.",
            "Duplication of #12's parser logic is the problem.",
            "Duplication of the loader in #12.",
            "Duplication of [the loader](https://github.com/acme/widgets/issues/12).",
            "There is another duplicate. See #12.",
            "Another duplicate #12 was filed today.",
            "Duplication of #12 in the docs is fine.",
            "Close due to duplication with #12's loader code in mind.",
            "This dublicates the code of #12.",
            "The doublication of rows in #12 is fixed.",
            "Fix the duplicate post bug, see #12.",
            "The duplicate post plugin is in #12.",
            "I duplicated my own code from #12 in the loader.",
            "This duplicates the code in #12.",
            "This duplicates the earlier HTTP handler in #12.",
            "This duplicates the request body in #12.",
            "This no longer duplicates the earlier login request in #12.",
        ),
        # with the misspellings people type in a hurry ("Duplcate of #12"); each still holds
        # "dup", so the screen sees it
        reads=(
            r"\b(?:dup(?!')|dups|dupe|dupes|duplicate|duplicates|duplicated"
            r"|duplcate|dupicate|duplciate|dupplicate|duplicte|duplacate|duple(?=\s+of\b))\b",
            # conv-31's GS5 and opensupport: with a b, only with the issue right after the word
            # ("This dublicates the code of #N" is about code)
            r"\bdo?ublicat(?:e|es|ed|ion)\b(?=\s+(?:of\s+)?(?:#\d|https?://))",
            # the verb, only when the issue follows it: "deduplicating with #N" names the one
            # this is folded into; "deduplicate the entries with ..." is about code
            r"\bde-?dup(?:e|ed|ing|licat(?:e|ed|ing))\s+(?:with|into|against)(?=\s+(?:#\d|https?://))",
            # conv-11's brave miss: a triager's "Duping to #N" (the verb, the issue right after)
            # (conv-24's PowerToys close: "dup'ing against #N", with the apostrophe)
            r"\bdup(?:ing|ed|e|'ing|'ed|'d)\s+(?:to|into|against)(?=\s+(?:#\d|https?://))",
            # Portuguese and Spanish, only opening the sentence (their negation, "não é" / "no es",
            # is no word the English reading knows, so it must not come first)
            # (conv-30's HDBA title: the noun "duplicata", "acidental", after a "[Fechado]" tag)
            SENTENCE_START + r"(?:\[[^\]\n]{0,40}\]\s*)?(?:(?:esta|essa|este|esse)\s+"
            r"(?:issue\s+|quest[aã]o\s+|problema\s+)?(?:é|es|está)\s+)?(?:uma?\s+)?"
            r"(?:duplicad[oa]|duplicata)(?:\s+acidental)?\s+de\b(?=\s*(?:#\d|https?://))",
            # conv-30's istio close: "this is a duplication of #N", the noun as what this issue
            # is (the noun about code, "some duplication of #N's logic", has no "is a" before it)
            r"\b(?:is|was|['\u2019]s)\s+(?:just\s+|simply\s+)?an?\s+duplication\s+of\b"
            r"(?=\s*(?:#\d+|https?://\S+?)" + _CLAUSE_END + ")",
            # conv-41's Paddle close: "Close due to duplication with owner/repo#N, ...", the
            # noun as the close's reason, the issue closing its clause
            r"\bclos(?:e|ed|ing)\s+(?:this\s+|it\s+)?(?:due\s+to|because\s+of|for)\s+(?:an?\s+)?"
            r"duplication\s+(?:with|of)\b"
            r"(?=\s*(?:#\d+|https?://\S+?|[\w.-]+/[\w.-]+#\d+)" + _CLAUSE_END + ")",
            # conv-38's member close: "Duplication of [#N](url)", the noun opening the sentence
            # and the issue closing it (the same clause end: no code after the issue)
            SENTENCE_START + r"duplication\s+of\b"
            r"(?=\s*(?:\[(?:#\d+|https?://[^\]\s]+)\]\([^)\s]*\)|#\d+|https?://\S+?)"
            + _CLAUSE_END
            + ")",
        ),
    ),
    Rule(
        "in_favour",
        Signal.IN_FAVOUR,
        r"favou?r|lieu|place of|flavou?r",
        r"favou?r|lieu|place of|flavou?r",
        (
            "Closing in favour of #12.",
            "closing this in favor of #12",
            # conv-15's capacitor miss: the closer's "Closing in lieu of #N" (instead of it)
            "Closing in lieu of #12",
            # conv-29's prettier close: "closed in place of that issue", the issue named before
            "There's already an issue about a plugin (#12); this should be closed in place of "
            "that issue.",
            # conv-30's garden-of-eden close: "in favor for", with a colon before the link
            "Closing this in favor for: https://github.com/acme/widgets/issues/12",
            # conv-31's kargo close: "favor" typed "flavor"
            "close in flavor to #12",
            # conv-31's mapbox close: the issue named before, "that existing ticket" after
            "There's a ticket for this at #12, so I'll close this in favour of that existing "
            "ticket.",
        ),
        (
            "I am in favour of #12 landing first.",
            "The team is in favour of the approach in #12.",
            "We use a config file in lieu of the flag; #12 has the details.",
            "We render the icon in place of the label; #12 has the details.",
            "I am in favor for #12 landing first.",
            "Closing the jar in flavor of vanilla, see #12.",
        ),
        reads=(
            r"\b(?:clos(?:e|es|ed|ing)|drop(?:s|ped|ping)?|abandon(?:s|ed|ing)?)\b"
            r"(?:\]\([^)\s]*\))?[^.\n]{0,30}?\bin\s+(?:(?:favou?r|lieu)\s+of|place of)\b",
            # conv-30's garden-of-eden "Closing this in favor for: <url>" and conv-31's kargo
            # "close in flavor to #N": the slips, only with the issue right after the words
            r"\bclos(?:e|es|ed|ing)\b[^.\n]{0,30}?\bin\s+(?:favou?r\s+for|flavou?r\s+(?:of|to|for))\b:?"
            r"(?=\s*(?:#\d|https?://))",
        ),
    ),
    Rule(
        "closing_for",
        Signal.IN_FAVOUR,
        r"clos(?:e|es|ed|ing)\s+(?:this\s+)?(?:one\s+)?for (?:#|https?://)",
        r"^clos\w*\s+(?:this\s+)?(?:one\s+)?for$",
        ("Closing for #12.", "This appears to have been opened twice, closing for #12"),
        ("Closing for now, see #12 for the plan.", "Closing for the same reason as #12."),
        reads=(r"\bclos(?:e|es|ed|ing)\s+(?:this\s+)?(?:one\s+)?for(?=\s(?:#\d|https?://))",),
    ),
    Rule(
        "superseded",
        Signal.SUPERSEDED,
        r"supers?c?ede[ds]?|subsum(?:ed|es|e)|replaced\s+(?:with|by)|absorbed\s+(?:into|by|in)"
        r"|obs[eo]lett?ed\s+by",
        r"supers?c?ede|subsum|replaced|absorbed|obs[eo]let",
        (
            "Superseded by #12.",
            "Subsumed by #12, closing.",
            "Replaced with #12.",
            "#12 supersedes.",
            "This seems like #12 would subsume it, closing.",
            "absorbed into #12",
            # conv-21's adicu/Courses close: the author's "obsoleted by #N" (typed "obseleted")
            "obseleted by #12",
            "This is obsoleted by #12.",
        ),
        (
            "The old parser was replaced with a new one in #12.",
            "The API of #12 supersedes the old flag.",
            "#12 would not subsume it.",
            "The cost is absorbed into the build step, see #12.",
            "The flag was obsoleted by the new config file; see #12.",
        ),
        reads=(
            r"\bsuper(?:s|c)eded\s+by\b",
            r"\bsubsumed\s+(?:by|in)\b",
            SENTENCE_START + r"(?:(?:this|it)\s+(?:is|was|has\s+been|got)\s+)?absorbed\s+"
            r"(?:into|by|in)\b",
            SENTENCE_START + r"(?:(?:this|it)\s+(?:is|was|has\s+been|got)\s+)?replaced\s+"
            r"(?:with|by)\b",
            SENTENCE_START + r"(?:(?:this|it)\s+(?:is|was|has\s+been|got)\s+)?obs[eo]lett?ed\s+"
            r"by\b",
        ),
    ),
    Rule(
        # a pull request whose commits went in with another one (a rollup): "Landing with #N"
        "rolled_up",
        Signal.SUPERSEDED,
        # ending on the reference, not on `\b` after a short word: polars' regex engine runs
        # a `\b` there about 15x slower over the whole comment table
        r"(?:landed|landing|merged|rolled|included|incorporated|folded|taken\s+care\s+of)\s+"
        r"(?:up\s+)?(?:in|into|with|as|via)\s+(?:part\s+of\s+)?(?:#|https?://)"
        r"|doing\s+(?:this\s+|it\s+)?(?:manually\s+)?(?:in|as\s+part\s+of)\s+(?:#|https?://)",
        # ("merged these references into #N" in an issue is `consolidated`'s)
        r"landed|landing|merged(?!\s+(?:this|these|it|them)\b)|rolled|included|incorporated|folded|taken|doing",
        (
            "Landing with #12.",
            "Rolled into #12",
            "Merged in #12.",
            "Landing as part of #12.",
            "This has been taken care of as part of #12",
            "Doing this manually as part of https://github.com/acme/widgets/pull/12",
        ),
        ("Merged in #12 and #13.", "This is not included in #12.", "The fix was merged in #12."),
        pull_request_only=True,
    ),
    Rule(
        "consolidated",
        Signal.CONSOLIDATION,
        r"consolidat|aggregat|(?:continue|keep)\s+(?:to\s+)?track|centrali[sz]|merging\s+(?:this\s+)?(?:with|into)"
        r"|redirect(?:ing|ed)?\s+(?:this\s+)?(?:one\s+|issue\s+)?(?:to|into)\s+(?:#|https?://)"
        r"|merged\s+(?:this|these|it|them)\s+(?:\w+\s+)?into\s+(?:#|https?://)"
        r"|let\s+me\s+merge\s+(?:this|it)|combining\s+(?:this\s+)?(?:one\s+|issue\s+)?(?:with|into)",
        r"consolidat|aggregat|track|centrali|merging|redirect|merged\s+(?:this|these|it|them)\b"
        r"|let\s+me\s+merge|combining",
        (
            "Consolidating to tracking issue #12.",
            "Consolidating into #12, closing.",
            "Let's continue to track this in #12.",
            # conv-3's npm/cli 594: a triager's "aggregating into <url>"
            "Duplicate issue; aggregating into #12.",
            # conv-10's minikube miss: a triager's close "to centralize these duplicated issues in
            # <url>" (with "duplicated" in the words it counts as dup_wording's, the first rule
            # whose word the cue holds)
            "Going to close this issue to centralize these `cri-docker` issues in #12.",
            "Merging with #12",
            # conv-15's koreader miss: a closer's whole sentence "Redirect to #N."
            "Redirect to #12.",
            "Redirecting to https://github.com/acme/widgets/issues/12",
            # conv-15's NativeScript miss: a closer's "Merged these references into #N"
            "Merged these references into #12",
            # conv-41's sqlite-jdbc close: the owner's "Let me merge this to #N"
            "Yeah. I'm aware of it. Let me merge this to #12",
            # conv-42's parquet-wasm close: the author's "Combining with #N."
            "Combining with #12.",
        ),
        (
            "We should consolidate the docs; see #12.",
            "Related to #12.",
            "See also #12.",
            "Aggregating the metrics into one dashboard; see #12.",
            "We centralize the logs in one place; see #12.",
            "Let's centralize the config handling in the loader, as #12 did.",
            "Merging with #12 should wait until the release is out.",
            # a full stop inside the URL does not end the sentence
            "Merging with https://github.com/acme/widgets/pull/12.patch applied by hand fails.",
            "Merging into main broke the build, see #12 for the log.",
            "Let me merge this to #12's branch first.",
            "Let me merge this to main, then see #12.",
            "Combining with #12 breaks the build.",
            "Combining the two loaders, see #12.",
            "Redirect to #12 breaks the login page.",
            "The redirect to https://github.com/acme/widgets/issues/12 is broken.",
            "Merged this into main, see #12.",
            "Merged these changes into #12 and #13.",
            # conv-24's agent-business close: the work split among several, no one original
            "Cleanup done. Duplicate planning work has been consolidated into #12 and #13.",
        ),
        reads=(
            r"\b(?:continue|keep)\s+(?:to\s+)?track(?:ing)?\s+(?:this|it)\s+"
            r"(?:under|in|at|over\s+(?:in|at))\b",
            # "aggregating into", not the noun: "splitting aggregates into their components"
            r"\b(?:consolidat(?:e|es|ed|ing)|aggregat(?:ed|ing))\s+(?:(?:this|it|these)\s+)?(?:in)?to\b",
            # conv-11's Files miss: a closer's whole-sentence "Merging with #N" (in an issue: a
            # pull request's "merged into #N" is a rollup, `ROLLED_UP`)
            # (conv-42's parquet-wasm close: the author's whole sentence "Combining with #N.")
            SENTENCE_START
            + r"(?:merging|combining)\s+(?:this\s+(?:one\s+|issue\s+)?)?(?:with|into)\b"
            + ISSUE_ENDS_SENTENCE,
            # "centralize these duplicated issues in <url>": the issues, then the one issue after
            r"\bcentrali[sz](?:e|es|ed|ing)\s+(?:(?:this|these|the|all)\s+)?(?:[\w`'-]+\s+){0,3}?"
            r"(?:issues?|reports?|discussions?|bugs?)\s+(?:in|into|at|under)\b(?=\s*(?:#\d|https?://))",
            # conv-15's koreader miss: "Redirect to #N." as the closer's whole sentence (an
            # issue about HTTP redirects says more after the reference)
            SENTENCE_START
            + r"redirect(?:ing|ed)?\s+(?:this\s+(?:one\s+|issue\s+)?)?(?:to|into)\b"
            + ISSUE_ENDS_SENTENCE,
            # conv-15's NativeScript miss: a closer's whole sentence "Merged these references
            # into #N" (this issue's content folded into another; a pull request's "merged
            # into #N" is a rollup, `ROLLED_UP`)
            SENTENCE_START + r"(?:i\s+|we\s+)?(?:have\s+|'ve\s+)?merged\s+(?:this|these|it|them)"
            r"(?:\s+(?:one|issue|issues|references|links|items|notes|requests|reports))?\s+into\b"
            + ISSUE_ENDS_SENTENCE,
            # conv-41's sqlite-jdbc close: the owner's "Let me merge this to #N" (the issue ends
            # the sentence: "Let me merge this to #N's branch" is about code)
            r"\blet\s+me\s+merge\s+(?:this|it)(?:\s+(?:one|issue))?\s+(?:to|into|with)\b"
            + ISSUE_ENDS_SENTENCE,
        ),
    ),
    Rule(
        # conv-29's xxl-job closes: the maintainer's "已合并至：<url>" ("merged into") and
        # "已汇总至：<url>" ("gathered into"), the issue ending the sentence ("已合并至 master 分支"
        # is about code)
        "consolidated_chinese",
        Signal.CONSOLIDATION,
        r"合并至|合并到|汇总至|汇总到",
        r"合并至|合并到|汇总至|汇总到",
        (
            "感谢反馈，已合并至：#12",
            "已汇总至：https://github.com/acme/widgets/issues/12",
            "重复问题，合并到 #12。",
            "合并到 https://github.com/acme/widgets/issues/12 中处理。",
        ),
        (
            "代码已合并至 master 分支，见 #12。",
            "已合并到 #12 的分支里了",
            "这个补丁已合并至主线",
            "合并到 #12 中的代码有问题。",
        ),
        reads=(
            # conv-40's SiYuan close: "合并到 <url> 中处理" ("merged into <url> to be handled
            # there"): the handling, following or tracking there ends the sentence
            r"(?:合并|汇总)(?:至|到)[ \t]*[：:]?(?=[ \t]*(?:#\d+|https?://\S+?)[)\]]*[ \t]*"
            r"(?:中(?:处理|跟进|跟踪|解决|讨论))?[ \t]*"
            r"(?:[。．.！!；;，,](?=\s|$)|[。！；，]|$))",
        ),
    ),
    Rule(
        "tracked_elsewhere",
        Signal.CONSOLIDATION,
        r"is\s+tracking|tracked\s+(?:in|on|by|at|under|over|there|upstream)|track(?:ing)?\s+(?:it|this|the|in|at|under)"
        r"|please\s+(?:follow|subscribe|watch|track|refer)|stay\s+tuned|let'?s\s+track|to\s+track"
        r"|(?:is|was|['\u2019]s)\s+(?:now\s+|already\s+)*captured\s+(?:in|by)\s+(?:#|https?://|[\w.-]+/[\w.-]+#)"
        r"|tracked\s+here\s*:?\s+(?:#|https?://|[\w.-]+/[\w.-]+#)|tracks\s+(?:it|this)|track\s+issue\s+in",
        r"track|follow|subscribe|watch|tuned|refer|captured",
        (
            "https://github.com/acme/widgets/issues/12 is tracking full support for this. Please "
            "follow that one.",
            "This is tracked in #12, closing.",
            "I opened an issue in acme/widgets (#12) to track it. Closing this one.",
            "I think this is best tracked at #12? I'll close it.",
            "This is an upstream issue, tracked at https://github.com/acme/widgets/issues/12."
            " Closing.",
            "Closing, this is tracked upstream in acme/widgets#12.",
            "Tracking in #12.",
            "Closing, please follow #12 for updates.",
            "Please subscribe to #12 for updates. Closing.",
            "Let's track this in #12.",
            "We'll use #12 to track it, closing.",
            "This looks like a duplicate, please track #12.",
            "Please look at the following meta issue: https://github.com/acme/widgets/issues/12."
            " Please refer to that issue for updates.",
            "Please refer to #12 for updates. Closing.",
            "Closing, it's already tracked on #12.",
            "This is captured by https://github.com/acme/widgets/issues/12.",
            "This is also tracked here: https://github.com/acme/widgets/issues/12. Stay tuned!",
            "tracked in https://github.com/acme/widgets/issues/12",
            # conv-24's dunst close
            "Thanks for the report. I will track this problem in #12, closing this one.",
            # conv-30's icortex close
            "Closing since #12 already tracks this",
            # conv-31's crust-server close
            "Closed, track issue in #12",
            # conv-40's OpenSearch close
            "Closing as the fix will be tracked in https://github.com/acme/widgets/issues/12",
        ),
        (
            "Tracked in #12 and #13.",
            "This is not tracked in #12, keeping it open.",
            "Please follow the steps in #12.",
            "Tracked upstream in #12 and #13.",
            "Let's track the performance in a new issue.",
            "We could use #12 to track the perf work, keeping this open?",
            "Please refer to the docs and to #12 and #13 for details.",
            "It's tracked on our internal board.",
            "This is captured by the trace in #12, see the second log.",
            "This is not captured by #12.",
            "The plan is tracked here in the wiki; the old design was #12.",
            "Tracked in the wiki, with the old plan in #12.",
            "The parser crash is tracked in #12; this one is another.",
            # conv-24's chocolatey close: a page to read, not where this is followed
            "This needs the licensed edition. Please follow https://github.com/acme/business/issues/1"
            " to learn more.",
            "Please follow #12 for more details on the options.",
            "Closing since #12 already tracks this metric in the dashboard.",
            "Closed, track issue in #12 and #13.",
            "Closing as the fix will be tracked in #12 and #13.",
            "Not closing, as the fix will be tracked in #12 for the other platform only.",
            "Closing as the docs change will be tracked in #12.",
        ),
    ),
    Rule(
        "successor",
        Signal.SUCCESSOR,
        r"(?:continued|reopened|re-?submitted|rebased|re-?filed|re-?created)\s+(?:as|in|at|into)|this\s+is\s+now"
        r"|new\s+(?:pr|pull\s+request)|(?:pull|pr)\s+#\d+\s+instead|#\d+\s+for\s+the\s+[\w\s-]{0,40}?rebased"
        r"|continu(?:ing|e)\s+(?:this|it|the\s+discussion)\s+(?:in|at|over)|this\s+(?:one\s+|bug\s+|issue\s+)?is\s+#"
        r"|that\s+(?:one\s+|bug\s+|issue\s+)?is\s+#"
        r"|keep\s+the\s+(?:conversation|discussion)\s+going\s+(?:in|at|on|over)",
        r"(?:continued|reopened|re-?submitted|rebased|re-?filed|re-?created)\s+(?:as|in|at|into)|this\s+is\s+now"
        r"|new\s+(?:pr|pull)|(?:propos|open|submitt|filed)\w*\s+(?:pull|pr)\b|^see$|continu"
        r"|(?:this|that)\s+(?:one\s+|bug\s+|issue\s+)?is|keep",
        (
            "Continued in #12.",
            # conv-25's jupyterlab close: a triager's "Let's keep the conversation going in #N"
            "Let's keep the conversation going in #12, which is still open.",
            "Reopened as #12.",
            "Continuing this in #12 where we can try it.",
            "This bug is #12.",
            "Please search before filing. This one is #12.",
            "This is #12",
            "That is #12.",
        ),
        (
            "Continued in the next release, see #12 for the plan.",
            "This bug is #12 in the other tracker of the parser crate, or close to it.",
            "This is #12's fault, not ours.",
            "This is #12 all over again, but on Windows it is different.",
            "This one is #12 plus a second crash in the parser.",
            "This one is #12's cousin.",
            "We should keep the conversation going in the forum; #12 has the logs.",
            "That is #12's job, not this one's.",
            "That is #12, which was merged last week.",
        ),
        reads=(
            r"\b(?:continued|reopened|re-?submitted|rebased|re-?filed|re-?created)\s+"
            r"(?:as|in|at|into)\b",
            SENTENCE_START + r"(?:(?:i'?m|we'?re|let'?s)\s+)?continu(?:ing|e)\s+"
            r"(?:this|it|the\s+discussion)\s+(?:in|at|over\s+(?:in|at))\b",
            SENTENCE_START + r"this\s+is\s+now\b(?=\s*(?:#|https?://))",
            # "This one is #12." as the whole sentence: a maintainer's shorthand for "the same as
            # #12" (an "I take it back" from the same person later withdraws it: replies.py)
            # a team member's "That is #12." at the close: the same shorthand
            SENTENCE_START
            + r"(?:this|that)\s+(?:one\s+|bug\s+|issue\s+)?is\b(?=\s*#\d+\s*(?:[.!]|$))",
            SENTENCE_START
            + r"(?:@[\w-]+[,:]?\s+)?(?:let'?s\s+)?keep\s+the\s+(?:conversation|discussion)"
            r"\s+going\s+(?:in|at|on|over\s+(?:in|at))\b",
        ),
    ),
    Rule(
        "same_as",
        Signal.SAME_AS,
        r"same|(?:feature|request|bug|issue|problem|crash)\s+(?:described|requested|discussed|proposed)"
        r"\s+(?:in|at|by)\s+(?:#|https?://)|already\s+(?:been\s+)?discussed|(?:clone|copy)\s+of",
        r"same|described|requested|discussed|proposed|clone|copy",
        (
            "Same as #12.",
            "This is the same issue as #12, closing.",
            "same with #12",
            "This sounds like the tab tear-off feature described in #12.",
            # conv-22's termux close: a team member's "Asking same question again. <url>"
            "Asking same question again. https://github.com/acme/widgets/issues/12",
            # conv-17's pi-apps close: "This has already been discussed here: <url>"
            "This has already been discussed here: https://github.com/acme/widgets/issues/12",
            "It was already discussed in #12.",
            # conv-32's lossless-cut close: the owner's "your question", the reporter's report
            "I believe your question is the same as #12",
            # conv-36's azure-docs close: the author's "The same issue is opened under #N."
            "The same issue is opened under #12.",
            "Same request was already filed as https://github.com/acme/widgets/issues/12",
            # conv-36's opendatahub close: the author's "Closing this as it is a clone of #N"
            "Closing this as it is a clone of #12",
            "Closing because it is an exact copy of #12.",
        ),
        (
            "That error message is the same as in #12 but the cause differs.",
            "It sounds like the feature described in #12 would solve this.",
            "This looks like the behaviour described in the manual.",
            "This is not the feature requested in #12.",
            "This has already been discussed in #12, but the crash here is new.",
            "Has this already been discussed in #12?",
            "The design has already been discussed in #12.",
            "It was already discussed in https://github.com/acme/widgets/issues/12 whether to "
            "drop it.",
            "You keep asking the same question again and again; #12 answers it, but this is new.",
            "Asking the same question again in #12 would not help.",
            # conv-25's Tracearr comment: the same bug in another component, a report of its own
            "This is the same issue as #12 but for the Jellyfin backend.",
            "Your question is the same as in #12 but for Windows.",
            "Your error is the same as #12 but the cause differs.",
            "The same issue is reported in #12 for Linux, this one is on Windows.",
            "Is the same issue opened under #12?",
            "This is a clone of #12 for the 2.x branch.",
            "Closing this as it is a copy of #12's workaround, which does not apply here.",
            "I made a copy of #12 to try the fix.",
        ),
        reads=(
            # "This has already been discussed here: <url>", the one issue ending the sentence
            # (a topic "discussed in #12" with more said after is a pointer, not a report)
            r"(?<!\?\s)\b(?:this|it)(?:\s+issue|\s+bug)?\s+(?:(?:has|had)\s+already\s+been|was\s+already)\s+"
            r"discussed\s+(?:here\s*:?|in|at|over\s+(?:in|at|here))" + ISSUE_ENDS_SENTENCE,
            # "Asking same question again. <url>": the question asked before, named right after
            r"\b(?:asking|asked|asks?)\s+(?:the\s+)?same\s+(?:question|thing)\s+again[.:!]?"
            r"(?=\s*(?:#\d|https?://))",
            # "The same issue is opened under #N.": the same report filed before, the issue
            # ending the sentence ("... reported in #N for Linux" is another platform's)
            r"\b(?:the\s+)?same\s+(?:issue|bug|problem|request|question|report)\s+"
            r"(?:is|was|has\s+been)\s+(?:already\s+)?(?:opened|reported|filed|raised|logged|created)"
            r"\s+(?:under|in|at|as|here\s*:?)" + ISSUE_ENDS_SENTENCE,
            # "Closing this as it is a clone of #N": a copy of that report is why it closes (a
            # clone "for the 2.x branch" with no close is a backport's ticket)
            r"\bclos(?:e|es|ed|ing)\b[^.\n]{0,20}?\b(?:as|because|since)\s+(?:it|this)(?:\s+is|'s)\s+"
            r"(?:an?\s+)?(?:exact\s+)?(?:clone|copy)\s+of" + ISSUE_ENDS_SENTENCE,
        ),
    ),
    Rule(
        # conv-23's ServiceOs closes: "Duplicate administrative record. Canonical activation
        # issue is #46.", "... Canonical activation authority remains #46." (the one issue
        # ends the sentence)
        "canonical_named",
        Signal.SAME_AS,
        r"canonical\s+(?:[\w-]+\s+){0,3}?(?:is|remains)",
        r"canonical",
        (
            "Duplicate administrative record. Canonical activation issue is #12.",
            "The canonical issue is https://github.com/acme/widgets/issues/12.",
            "Administrative duplicate. Canonical activation authority remains #12.",
        ),
        (
            "The canonical issue is #12's parent, not this one.",
            "Which is the canonical issue, #12 or #13?",
            "The canonical one is #12 and #13 together.",
            "The canonical form is in #12.",
        ),
        reads=(
            r"(?<!\?\s)\bcanonical\s+(?:[\w-]+\s+){0,3}?(?:is|remains)\s*:?" + ISSUE_ENDS_SENTENCE,
        ),
    ),
    Rule(
        "reported_before",
        Signal.REPORTED_BEFORE,
        r"reported|already\s+(?:filed|opened)|"
        + _THERE_IS_ALREADY
        + r"|already\s+have\s+(?:an?\s|#|https?:)|there(?:'s|\s+is)\s+(?:already\s+)?#\d",
        r"reported|filed|opened|there|already\s+have",
        (
            "Already reported in #12.",
            "This was already filed as #12, closing.",
            "This has been reported in #12. Closing.",
            "There is already an issue for this: #12",
            "There's already a ticket for this, #12.",
            # conv-18's ish and conv-16's IATI closes: "we already have an issue for <it>, #N",
            # "closing this doubled issue because we already have #N"
            "We already have an issue for htop, #12. You can follow progress there.",
            "closing this because we already have #12",
            # conv-31's maps-gl close: the reporter's "There is #N already."
            "There is #12 already.",
            "There's already #12.",
            # conv-36's WarBugs close: "Please close this ticket. the issue is reported
            # elsewhere.<url>"
            "Please close this ticket. the issue is reported elsewhere."
            "https://github.com/acme/widgets/issues/12",
            "The bug was reported elsewhere: #12",
        ),
        (
            "This was reported by a customer.",
            "I already opened a PR for it in #12? No, not yet.",
            "No need for a nomination beyond what is already tracked in #12.",
            "The crash in the parser has been reported in #12.",
            "There is already an issue for the parser crash in #12, but this is another one.",
            "Is there already an issue for this? I could not find one.",
            "We already have #12 merged, so this works in the next release.",
            "We already have https://github.com/acme/widgets/pull/12 and #13, which one is it?",
            "We already have an issue template; see #12 for how to use it.",
            "Do we already have an issue for htop? #12 is about top.",
            "There is #12 already merged, which fixes the parser.",
            "There is #12 and #13 already.",
            # conv-19's false link: a bystander's own other bug ("a bug", then a request), not
            # this issue reported before
            "I already reported a bug https://github.com/acme/widgets/issues/12, could you fix "
            "it before releasing?",
            "The issue is reported elsewhere. #12 is about something else.",
            "The issue is reported elsewhere too, see the forum.",
        ),
        reads=(
            r"\b(?:already|previously)\s+(?:been\s+)?(?:reported|filed|opened)\b"
            # ... but not "I already reported a bug <url>": the speaker's own other report
            # ("an issue about this" is this one's)
            r"(?!\s+(?:a|an|another|one)\s+(?:other\s+)?(?:bug|issue|problem|report|ticket)\b"
            r"(?!\s+(?:about|for|on|regarding|with)\s+(?:this|it|that)\b))"
            r"(?:\s+(?:in|at|as|by|here|over\s+(?:in|at))\b)?",
            r"\b(?:this|it)(?:\s+issue|\s+bug)?\s+(?:has|had|was)\s+(?:also\s+)?been\s+reported\s+"
            r"(?:in|at|as|over\s+(?:in|at))\b",
            # "the issue is reported elsewhere.<url>": where, right after, ending the sentence
            r"\b(?:this|it|the(?=\s+(?:issue|bug|problem)))(?:\s+(?:issue|bug|problem))?\s+"
            r"(?:is|was|has\s+been)\s+(?:also\s+)?reported\s+elsewhere\s*[.:,]?"
            + ISSUE_ENDS_SENTENCE,
            # conv-9's winget-pkgs miss: "There already is a PR for this, but it's blocked #N",
            # which the author thanked for and closed on
            r"\b" + _THERE_IS_ALREADY + r"\s+(?:for|about|covering)\s+(?:this|it|that)\b",
            # "We already have an issue for htop, #273." (the issue right after the topic), "we
            # already have #755" ending its clause
            r"(?<!\?\s)\bwe\s+already\s+have\s+(?:an?\s+)?(?:open\s+|existing\s+)?(?:issue|ticket|report|bug)"
            r"\s+(?:for|about|covering|tracking)\b[^.\n#?]{0,40}?(?=[,:]?\s*(?:#\d|https?://))",
            # (a full stop inside a URL ends nothing: the punctuation ends the clause only
            # before a space or the end)
            r"\bwe\s+already\s+have(?=\s*(?:#\d+|https?://\S+?)[)\]]*\s*(?:[.,;!](?:\s|$)|$))",
            # conv-31's maps-gl close: "There is #N already." (the issue, then at most
            # "already", ends the sentence: "There is #N already merged" is the fix)
            r"\bthere(?:'s|\s+is)(?:\s+already)?(?=\s*#\d+(?:\s+already)?\s*(?:[.!](?=\s|$)|$))",
        ),
    ),
    Rule(
        # the reporter's own admission: the earlier report they did not find when they searched,
        # named right after the words ("Sorry, I missed #N before", conv-11's miss). The words
        # are the speaker's own search: a bystander's "Oh, I didn't see #N." (rust #1120, on an
        # issue closed long before) is about their comment, not this issue (`dropped:me_too`)
        "missed_earlier",
        Signal.REPORTED_BEFORE,
        _MISSED_SCREEN,
        r"\b(?:missed|overlooked|didn'?t|did\s+not)\b",
        (
            "Oops, I missed #12 when searching. Closing.",
            "Sorry, I missed [#12](https://github.com/acme/widgets/issues/12) before.",
            "Sorry, didn't see #12 when I searched.",
            "We must have overlooked https://github.com/acme/widgets/issues/12 earlier.",
            "Ah didn't notice the existing ticket https://github.com/acme/widgets/issues/12",
            "Oh, I did not see the earlier issue #12.",
        ),
        (
            "We missed #12 in the changelog.",
            "I didn't find #12 helpful for this crash.",
            "Sorry, I missed #12, I will review it tomorrow.",
            "I didn't see #12 fixed in the release notes.",
            "I didn't miss #12 before: it is a different crash.",
            "Oh, I didn't see #12.",
            "I didn't notice the existing ticket #12 was about Windows only.",
            "Ah, I didn't see the original issue #12 fixed in the release notes.",
            "Oh, I didn't see the other one #12 mentioned here, thanks.",
        ),
        reads=(_MISSED, _MISSED_EXISTING),
        said_by="author",
        first_person=True,
    ),
    Rule(
        # the reporter's apology for the issue itself, the earlier one named right after ("my
        # bad to add another issue, refer to: <url>", conv-22's vscode close): only from the
        # issue's author, like `missed_earlier`
        "own_duplicate",
        Signal.REPORTED_BEFORE,
        r"(?:my\s+bad|sorry|apologies)[^.\n]{0,20}?(?:open|creat|add|fil|post|mak|submit)\w*\s+"
        r"(?:another|a\s+new|a\s+second|a\s+duplicate|duplicate|the\s+same)",
        r"\b(?:my\s+bad|sorry|apologies)\b",
        (
            "This is an ongoing issue my bad to add another issue: "
            "https://github.com/acme/widgets/issues/12",
            "Sorry for opening another issue, see #12.",
            "Apologies for creating another ticket: #12",
        ),
        (
            "Sorry for opening another issue for the crash, see #12 for the logs.",
            "Sorry to open another issue, but #12 did not fix it.",
            "My bad, I will open another issue for the parser; see #12.",
            "Sorry for the noise. Another issue, #12, has the logs.",
        ),
        reads=(
            r"\b(?:my\s+bad|sorry|apologies)[,!]?\s+(?:for|to|about)\s+"
            r"(?:open|creat|add|fil|post|mak|submitt?)\w*\s+"
            r"(?:another|a\s+new|a\s+second|a\s+duplicated?|duplicate|the\s+same)\s+"
            r"(?:issue|ticket|report|bug)[,;:.]?\s*"
            r"(?:(?:please\s+)?(?:refer\s+to|see|check|go\s+to)\s*:?\s*)?(?=#\d|https?://)",
        ),
        said_by="author",
        first_person=True,
    ),
)
RULES += (
    Rule(
        # issue 32: the words are dup_wording's or tracked_elsewhere's; what makes the rule is the
        # bot closing the issue right after (links/conventions.py). A bot that did not close it
        # right after (or closed it for inactivity), or names several issues, only suggests.
        "bot_close",
        Signal.BOT_CLOSE,
        r"dup|please\s+refer",
        r"dup|refer",
        (
            "This issue is a duplicate of https://github.com/acme/widgets/issues/12. Please refer"
            " to that issue for updates and add any new details there.",
            "Closed as a duplicate of #12.",
        ),
        (
            "Possible duplicates:\n- #12\n- #13",
            "Closed because it has been inactive for 60 days; it might be a duplicate of #12.",
            "This won't be fixed. It is not a duplicate of #12.",
        ),
        said_by="bot",
    ),
)
RULE_BY_NAME = {rule.name: rule for rule in RULES}
KEYWORD_LINE = RULE_BY_NAME["duplicate_keyword"].pattern  # "Duplicate of #N"
SLASH_LINE = RULE_BY_NAME["slash_command"].pattern  # "/duplicate #N"
# and the ones that are no rule's: a pointer made the target by a duplicate label (or the closer's
# untargeted "closing as duplicate", which says what the label says), a closed issue's title
# read when no post names a target (any rule's words, read in the title), and the one issue
# the title names when the closer said "duplicate" and pointed nowhere (five: and the thread a
# "Reference in new issue" body was copied from, in a thread labelled duplicate), the one issue
# a thread labelled duplicate names anywhere, and an issue that is only an earlier one's link or
# a request to reopen it
COUNTERS: tuple[str, ...] = tuple(rule.counter for rule in RULES) + (
    "evidence:label_pointer",
    "evidence:closer_says_duplicate",
    "evidence:title_statement",
    "evidence:title_pointer",
    "evidence:copied_from_pointer",
    "evidence:only_named_pointer",
    "evidence:link_only_issue",
    "evidence:reopen_request",
)

# Words without which no text can carry a claim: the union of every rule's screen.
CUE_REGEX = "(?i)" + "|".join(dict.fromkeys(rule.screen for rule in RULES))
# a comment that is nothing but one issue ("#4205", a link to it): no cue word, but the closer's
# last word before the close can be the pointer (`pointers.closer_pointer`), so the stage reads
# its thread too (the same syntax for polars and `re`)
BARE_POINTER_REGEX = (
    r"^\s*<?(?:#\d+|https?://github\.com/[\w.-]+/[\w.-]+/issues/\d+/?(?:#[\w-]*)?)>?\s*[.!]?\s*$"
)
# a closed issue that asks to reopen an earlier one (`pointers.link_only_issue`: "Please reopen
# #978", "Could you reopen 978?"), read although neither its title nor its body has a cue word;
# a body that is nothing but a link is `BARE_POINTER_REGEX`'s (the same syntax for polars and `re`)
REOPEN_REGEX = r"(?i)\bre-?open(?:ing|ed)?\b"


class _CueScreen:
    """`CUE_REGEX` for Python code: the text lowercased, then a case-sensitive search, which
    `re` runs about 4x faster than `(?i)` over long bodies (its literal-prefix scan only works
    case-sensitively). The same answer for every text whose letters fold to ASCII the plain
    way (Python's `(?i)` also lets the rare U+017F and U+212A stand for s and k)."""

    def __init__(self, regex: str) -> None:
        literal = re.sub(r"\\.", "", regex.removeprefix("(?i)"))
        if literal != literal.lower():  # an upper-case letter could never match lowercased text
            raise ValueError(f"the cue screen must be written in lower case: {regex!r}")
        self._pattern = re.compile(regex.removeprefix("(?i)"))
        # alternatives that are plain words ("dup", "same"): found by `in`, no regex needed;
        # the regex of the others is all that is left to run when none of them occurs
        alternatives = top_level(regex.removeprefix("(?i)"))
        self._words = tuple(a for a in alternatives if re.fullmatch(r"[a-z0-9 ]+", a))
        self._rest = re.compile("|".join(a for a in alternatives if a not in self._words) or "(?!)")

    def search(self, text: str) -> re.Match[str] | None:
        """A match in the lowercased text (use it as a yes/no: positions are the lowercased
        text's)."""
        lowered = text.lower()
        if not _may_cue(lowered):  # most texts: a few substring tests instead of the regex
            return None
        return self._pattern.search(lowered)

    def matches(self, text: str) -> bool:
        """`search(text) is not None`, cheaper: plain words by `in`, the regex only for the rest."""
        lowered = text.lower()
        if not _may_cue(lowered):
            return False
        if any(word in lowered for word in self._words):
            return True
        return self._rest.search(lowered) is not None


def required_words(regex: str) -> tuple[Needs, ...] | None:
    """For each top-level alternative of `regex`, words its every match contains: a text
    none of whose alternatives' needs it meets cannot match. None when some alternative has
    no such word this can find (then no prefilter may skip the regex). The words are
    `gated.alternative_needs`' (runs of 3 or more literal characters; one of each group of
    alternatives such as `(?:continued|reopened)`)."""
    found = alternative_needs(regex)
    if not all(found):
        return None
    return tuple(dict.fromkeys(found))


_COMMON = COMMON_WORDS  # in most texts: poor first tests


def _rarest_first(needs: tuple[Needs, ...] | None) -> tuple[Needs, ...] | None:
    """Each alternative's groups with the rarest words first (no common word, then the
    longest), so that a text fails an alternative at its first test ("rebased", not "for" and
    "the"); an alternative that needs only what another one needs goes (it can only match
    where that one may)."""
    if needs is None:
        return None
    ordered = [
        tuple(
            sorted(n, key=lambda group: (any(w in _COMMON for w in group), -min(map(len, group))))
        )
        for n in needs
    ]
    singles = {n[0][0] for n in ordered if len(n) == 1 and len(n[0]) == 1}

    def implied(n: Needs) -> bool:  # every text meeting n holds some single word: that one decides
        return any(
            v in w and (len(n) > 1 or v != w) for g in n if len(g) == 1 for w in g for v in singles
        )

    return tuple(n for n in ordered if not implied(n))


_CUE_NEEDS = _rarest_first(required_words(CUE_REGEX.removeprefix("(?i)")))


# the words of every alternative's first group: a text with none of them meets no alternative
_CUE_KEYS = (
    None if _CUE_NEEDS is None else tuple(dict.fromkeys(w for n in _CUE_NEEDS for w in n[0]))
)


def _may_cue(lowered: str) -> bool:
    """Could the cue screen match this lowercased text? Most texts answer no with a few
    substring tests (the same answers as the regex, about 5x faster over long posts)."""
    if _CUE_KEYS is None:
        return True
    for word in _CUE_KEYS:
        if word in lowered:
            return _meets_needs(lowered)
    return False


def _meets_needs(lowered: str) -> bool:
    assert _CUE_NEEDS is not None
    for needs in _CUE_NEEDS:
        for group in needs:
            for word in group:
                if word in lowered:
                    break
            else:
                break  # a group none of whose words occurs: this alternative cannot match
        else:
            return True
    return False


CUE = _CueScreen(CUE_REGEX)
_CUE_OF = [(rule, rule.pattern) for rule in RULES]

# Labels saying "duplicate": `duplicate`, `status:duplicate`, `*duplicate`, `r: duplicate`,
# `triage/duplicate`, `Resolution-Duplicate`, `dupe`, `duplicate issue`... (searched in the
# lower-cased name). A word joined after it names a topic instead: `component: duplicate-finder`
# (conv-40's JabRef label, on an open feature request), `duplicate detection`, `dupe-check`;
# only a word about the issue itself may follow ("issue", "report", "of", "or"...).
DUPLICATE_LABEL_PATTERN = (
    r"(?<![a-z])dup(?:e|licate|licated)?s?(?![a-z])"
    r"(?![-_ ]+(?!(?:issues?|bugs?|reports?|tickets?|requests?|prs?|pull|question|of|or|and)"
    r"(?![a-z]))[a-z])"
)
DUPLICATE_STATE_REASON = "duplicate"  # REST state_reason; GraphQL stateReason DUPLICATE


def screens(text: str | None) -> bool:
    """The cheap screen: could `text` carry a duplicate claim at all? (`CUE` runs its
    substring prefilter, derived from the screens themselves, before the regex.)"""
    return bool(text) and CUE.matches(text or "")


class LabelPolicy(Protocol):
    """What says which labels mean "duplicate" (`LinkConfig` is one)."""

    @property
    def duplicate_label_pattern(self) -> str: ...


def is_duplicate_label(name: str, policy: LabelPolicy | None = None) -> bool:
    """Does the label `name` say "duplicate"? By `policy`'s pattern, else the default one
    (searched in the lower-cased name)."""
    pattern = DUPLICATE_LABEL_PATTERN if policy is None else policy.duplicate_label_pattern
    return _label_regex(pattern).search((name or "").lower()) is not None


@lru_cache(maxsize=8)
def _label_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def labels_say_duplicate(labels: str | list[str] | tuple[str, ...] | None) -> bool:
    """`labels` as stored (a JSON list of names) or as a list of names."""
    if isinstance(labels, str):
        try:
            names = json.loads(labels)
        except ValueError:
            names = [labels]
    else:
        names = list(labels or ())
    return any(is_duplicate_label(str(name)) for name in names)


def rule_of(cue_text: str, cue_kind: str) -> Rule:
    """The rule a reader's claim came from (its cue kind, then the words it matched)."""
    if cue_kind in RULE_BY_NAME:
        return RULE_BY_NAME[cue_kind]
    for rule, pattern in _CUE_OF:
        if rule.signal not in (Signal.DUPLICATE_KEYWORD, Signal.SLASH_COMMAND) and pattern.search(
            cue_text
        ):
            return rule
    return RULE_BY_NAME["dup_wording"]


_FIRST_PERSON_WORDS = re.compile(
    "|".join(f"(?:{piece})" for rule in RULES if rule.first_person for piece in rule.reads)
    or "(?!)",
    re.I,
)


def speaks_of_own_report(text: str, start: int = 0) -> bool:
    """Are the reader's cue words at `start` of `text` (a wording match) a first-person rule's
    ("I missed", "sorry, didn't see")? Then the claim is the speaker's own: only the issue's
    author's counts."""
    return _FIRST_PERSON_WORDS.match(text, start) is not None


def wording_regex() -> str:
    """The reader's wording cue: every rule's `reads`, in the table's order, as one alternation."""
    return "|".join(piece for rule in RULES for piece in rule.reads)
