"""Issues migrated to GitHub from an older tracker (trac, Bugzilla, Launchpad, JIRA, Google Code).

A migration wrote each old ticket as a GitHub issue, with a header naming the original ticket
("Original ticket http://.../ticket/18", "Imported from trac ticket #18", a "Trac ID | trac#18"
table row, "Migrated from issue 18", "Originally created as PROJ-18"), and copied the old
comments over under headers of their own ("_@alice wrote on 2009-05-01_"). In those copied
words a number is the OLD tracker's: "duplicate of #18" means ticket 18, which became some
other GitHub issue. Read as GitHub's, it links to an unrelated issue.

`ticket_of(body)`: the old ticket a migrated issue's header names (its key, e.g. "18" or
"PROJ-18"), None for an issue that is not migrated. `comment_was_migrated(body)`: a comment copied
over by the migration. `old_numbers(text)`: the copied words with every old-ticket reference
written as `#N` ("see ticket 18", "trac #18", ".../ticket/18"), so the ordinary reader reads
them, as old numbers. The link stage maps old numbers to GitHub's through the headers of the
repository's own issues (`links/migration.py`); an old number no header maps is dropped, never
read as GitHub's. The header forms are a table with examples and near misses (tests feed both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class HeaderForm:
    """One way a migration names the original ticket in the issue it wrote. `pattern` has a
    group `key`: the old ticket's number (or JIRA key)."""

    name: str
    pattern: str
    examples: tuple[tuple[str, str], ...]  # (header text, the key it names)
    near_misses: tuple[str, ...]  # header-like words in an ordinary issue or comment
    # the copied words number tickets the old way ("#18" is ticket 18). False for a migration
    # that rewrote them: its "#N" are GitHub's, and only its header maps old numbers.
    copies_old_numbers: bool = True
    # the old key is in the TITLE (this regex, group `key`); `pattern` is then the
    # body's mark of the import, without a key. Examples and near misses are "title\nbody".
    title: str | None = None
    # the migration wrote its header as the body's last line, under the copied description
    at_end: bool = False


# Anchored to the start of a line: a migration writes its header as a line of its own; the same
# words inside a sentence of someone's comment ("the original ticket is ...") are not a header.
HEADER_FORMS: tuple[HeaderForm, ...] = (
    HeaderForm(
        "original_ticket",  # numpy, scipy (trac, migrated 2012-2013)
        r"^[ \t]*_?original\s+ticket\s+<?https?://\S+?/ticket/(?P<key>\d+)",
        (
            (
                "_Original ticket http://trac.example.org/widgets/ticket/18 on 2009-05-01 by "
                "trac user alice, assigned to unknown._",
                "18",
            ),
        ),
        ("The original ticket is lost, see http://trac.example.org/widgets/ticket/18",),
    ),
    HeaderForm(
        "imported_from",  # "Imported from trac ticket #18", "Ticket imported from Trac: <url>"
        r"^[ \t]*_?(?:ticket\s+)?imported\s+from\s+"
        r"(?:trac|bugzilla|launchpad|google\s+code|jira|redmine)"
        r"(?:\s+(?:ticket|bug|issue))?[:\s]*\[?#?"
        r"(?:<?https?://\S+?/(?:ticket/|show_bug\.cgi\?id=|bugs?/|issues?/))?"
        r"(?P<key>\d+)",
        (
            (
                "_Imported from trac ticket [#18](http://trac.example.org/ticket/18), created by "
                "alice_",
                "18",
            ),
            ("Ticket imported from Trac:\n http://trac.example.org/ticket/18", "18"),
        ),
        ("We imported from trac ticket exports last year; see #18.",),
    ),
    HeaderForm(
        "trac_id_row",  # a metadata table: "|Trac ID|trac#18|"
        r"^[ \t]*\|\s*trac\s+id\s*\|\s*trac#(?P<key>\d+)",
        (("|Trac ID|trac#18|\n|Type|defect|", "18"),),
        ("Does anyone know the trac id of #18?",),
    ),
    HeaderForm(
        "migrated_from",  # "Migrated from http://code.google.com/p/x/issues/detail?id=18"
        r"^[ \t]*[_*]*(?:this\s+issue\s+was\s+)?migrated\s+from\s+"
        r"(?:<?https?://\S+?(?:[?&]id=|/(?:ticket|issues?|bugs?)/)|(?:trac|bugzilla|launchpad|"
        r"google\s+code|redmine)\s+(?:ticket|bug|issue)\s+#?)(?P<key>\d+)",
        (
            ("Migrated from http://code.example.com/p/widgets/issues/detail?id=18", "18"),
            ("**Migrated from Bugzilla bug 18**", "18"),
        ),
        ("We migrated from Bugzilla years ago; see #18.",),
    ),
    HeaderForm(
        "jira_key",  # "Originally created as WID-18" / "Migrated from JIRA: WID-18"
        r"^[ \t]*[_*<>a-z\s]*?"
        r"(?:originally\s+(?:created|reported|filed)\s+as|migrated\s+from\s+jira:?)\s+\[?(?P<key>[A-Z][A-Z0-9]+-\d+)\b",
        (("_Originally created as WID-18 by alice._", "WID-18"),),
        ("This was originally created as a workaround for WID-18.",),
    ),
    HeaderForm(
        # bugzilla2github (and imports like it): a heading naming the bug under a line saying the
        # issue was created by the tool; the copied comments follow as "## Comment N" sections
        "bugzilla_heading",
        r"^[ \t]*#{1,3}[ \t]*Bugzilla[ \t]+Bug[ \t]+(?P<key>\d+)[ \t]*$",
        (
            (
                "This issue was created automatically with bugzilla2github\n\n# Bugzilla Bug 18"
                "\nDate: 2009-05-01T10:00:00+02:00",
                "18",
            ),
        ),
        ("# Bugzilla bug 18 is back\nIt crashes again.", "Same as Bugzilla Bug 18"),
    ),
    HeaderForm(
        # bugzilla2github's later header: "Bugzilla bug ID: BZ#18" (the title ends "(BZ#18)")
        "bugzilla_bug_id",
        r"^[ \t]*Bugzilla[ \t]+bug[ \t]+ID:[ \t]*(?:BZ#)?(?P<key>\d+)\b",
        (
            (
                "Note: the issue was created automatically with bugzilla2github\n\n"
                "Bugzilla bug ID: BZ#18",
                "18",
            ),
        ),
        ("Which Bugzilla bug ID: BZ#18 or BZ#19?",),
        # this importer writes old bugs "BZ#18"; its "#N" are GitHub's (comments posted on
        # import, "Duplicate of #514" typed later), so the thread's "#N" read as today
        copies_old_numbers=False,
    ),
    HeaderForm(
        # CPython's 2022 bugs.python.org migration: a metadata table whose first row links the
        # old issue. Its messages cite old issues "bpo-N" or "issue N" (no rule reads those as
        # references); their "#N" are read as GitHub's, as before the form existed: 57 CPython
        # threads of the conv-3 round read so made no false link. The form maps old numbers
        # for the superseder field (`superseder_of`).
        "bpo_row",
        r"^[ \t]*BPO\s*\|\s*\[(?P<key>\d+)\]\(https?://bugs\.python\.org/issue\d+\)",
        (("BPO | [18](https://bugs.python.org/issue18)\n--- | :---\nNosy | @alice", "18"),),
        (
            "Backport of BPO | [18](https://bugs.python.org/issue18), see the table above",
            "See bpo-18 for the history.",
        ),
        copies_old_numbers=False,
    ),
    HeaderForm(
        # a Mantis import (conv-11's tine20 miss, where "duplicate of #6692" read as GitHub's
        # linked an unrelated issue): the title keeps Mantis's seven-digit id ("0006066: ..."),
        # the body opens with the reporter's line, each copied comment with its poster's
        "mantis_title",
        r"^[ \t]*\*\*Reported\s+by\s+\S+\s+on\s+\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}\s+\d\d:\d\d\*\*",
        (
            (
                "0000018: the widget crashes on resize\n**Reported by alice on 15 Mar 2012 15:40**",
                "18",
            ),
        ),
        (
            "Release 2012: notes\n**Reported by alice on 15 Mar 2012 15:40**",
            "0000018: the widget crashes on resize\nReported by alice in the forum, see #18.",
        ),
        title=r"^(?=\d{7}:)0*(?P<key>\d+):\s",
    ),
    HeaderForm(
        # google-code-issues-migrator (spyder, 2015; conv-19's miss): the description opens
        # "_From [alice](https://code.google.com/u/alice/) on 2011-07-15T14:57:15Z_" and ends
        # "_Original issue: http://code.google.com/p/widgets/issues/detail?id=18_"; the copied
        # comments open with the same "_From ..._" line
        "google_code_original_issue",
        r"^[ \t]*_?original\s+issue:\s*<?https?://code\.google\.com/p/[\w.-]+/issues/detail\?"
        r"(?:[\w=&]*&)?id=(?P<key>\d+)",
        (
            (
                "_From [alice](https://code.google.com/u/alice/) on 2011-07-15T14:57:15Z_\n\n"
                "It crashes.\n\n_Original issue: http://code.google.com/p/widgets/issues/detail"
                "?id=18_",
                "18",
            ),
        ),
        (
            "The original issue: http://code.google.com/p/widgets/issues/detail?id=18 is gone.",
            "See http://code.google.com/p/widgets/issues/detail?id=18 for the original issue.",
        ),
        at_end=True,
    ),
    HeaderForm(
        # OpenTTD's 2018 FlySpray import (conv-25's miss): a bot posted each task with the
        # author's words quoted under "**_alice_ opened the ticket and wrote:**", the body's
        # last line "###### _This issue was imported from FlySpray: <url>/task/18_", and each
        # comment likewise ("This comment was imported from FlySpray: ..."); the task number is
        # the old number its words cite ("Of #18")
        "flyspray",
        r"^[ \t#]*_?this\s+issue\s+was\s+imported\s+from\s+flyspray:\s*\[?<?https?://\S+?"
        r"/task/(?P<key>\d+)",
        (
            (
                "**_alice_ opened the ticket and wrote:**\n\n> It crashes.\n\n---\n###### _This "
                "issue was imported from FlySpray: [https://bugs.example.org/task/18]"
                "(https://bugs.example.org/task/18)_",
                "18",
            ),
        ),
        (
            "Was this issue imported from FlySpray? https://bugs.example.org/task/18 is gone.",
            "The old FlySpray task https://bugs.example.org/task/18 has the logs.",
        ),
        at_end=True,
    ),
    HeaderForm(
        # Request Tracker exports (perl5's 2019-2020 move from rt.perl.org, CPAN modules' from
        # rt.cpan.org; conv-38's Perl miss): the body opens "Migrated from [rt.perl.org#18](<rt>/
        # Ticket/Display.html?id=18) (status was 'rejected')" and "Searchable as RT18$"; each
        # copied mail follows as a comment of the migration's account under "### From @alice"
        # (or an address), its Markdown escaped ("\#18", "\-\-"); its "#18" is RT's
        "request_tracker",
        r"^[ \t]*[_*]*migrated\s+from\s+\[?rt\.[\w.-]+#(?P<key>\d+)\b",
        (
            (
                "Migrated from [rt.example.org#18](https://rt-archive.example.org/widgets/Ticket/"
                "Display.html?id=18) (status was 'resolved')\n\nSearchable as RT18$",
                "18",
            ),
        ),
        (
            "We migrated from rt.example.org years ago;\nsee [rt.example.org#18]"
            "(https://rt.example.org/Ticket/Display.html?id=18).",
            "The bug migrated from [rt.example.org#18](https://rt.example.org/) to here.",
        ),
    ),
    HeaderForm(
        # Apache's JIRA import (2022-2024, the account `jira-importer`; conv-26's
        # maven-pmd-plugin miss): the body opens "**[Alice](<jira>/secure/ViewProfile.jspa?name=
        # alice)** opened **[WID-18](<jira>/browse/WID-18?redirect=false)** and commented"; under
        # the copied description an "**Issue Links:**" list keeps JIRA's links, each followed by
        # its type (`jira_duplicates`). JIRA's words cite keys ("WID-17"), never "#N": the
        # thread's "#N" are GitHub's
        "jira_importer",
        r"^[ \t]*\*\*\[[^\]\n]+\]\([^)\s]*\)\*\*\s+opened\s+\*\*\[(?P<key>[A-Z][A-Z0-9]+-\d+)\]"
        r"\(https?://\S+?/browse/",
        (
            (
                "**[Alice](https://issues.example.org/jira/secure/ViewProfile.jspa?name=alice)** "
                "opened **[WID-18](https://issues.example.org/jira/browse/WID-18?redirect=false)** "
                "and commented\n\nIt crashes.",
                "WID-18",
            ),
        ),
        (
            "**[Alice](https://example.org/u/alice)** opened **[a thread](https://example.org/t/1)**"
            " and commented",
            "I opened [WID-18](https://issues.example.org/jira/browse/WID-18) last year.",
        ),
        copies_old_numbers=False,
    ),
)
_HEADERS = tuple(
    (form, re.compile(form.pattern, re.I | re.M), re.compile(form.title) if form.title else None)
    for form in HEADER_FORMS
)  # JIRA keys are upper case: the key group is checked below, case-sensitively
# a copied comment's own header: "_@alice wrote on 2009-05-01_", "_trac user bob wrote on ..._",
# "Comment by alice on trac",
# "_Original comment by alice_"
_COMMENT_HEADER = re.compile(
    r"^[ \t]*(?:(?:[_*]+@?|@)[\w.@-]+(?:\s+[\w.@-]+){0,2}(?:\s+\([^)\n]*\))?[_*]*\s+wrote\s+on\s+"
    r"\d{4}-\d\d-\d\d"
    r"|original\s+comment\s+by\b|comment\s+by\s+\S+\s+on\s+(?:trac|bugzilla|launchpad|jira)\b"
    # the Mantis import's "**Comment posted by alice on 22 Aug 2012 09:17**"
    r"|\*\*comment\s+posted\s+by\s+\S+\s+on\s+\d{1,2}\s+[a-z]{3}\s+\d{4}\b"
    r"|#{1,3}[ \t]*comment[ \t]+\d+[ \t]*$"
    # google-code-issues-migrator's "_From [alice](https://code.google.com/u/alice/) on 2011-..._"
    r"|_from\s+\[[^\]\n]+\]\([^)\s]*\)\s+on\s+\d{4}-\d\d-\d\d"
    # FlySpray's import signs each copied comment at its end
    r"|[#\s]*_?this\s+comment\s+was\s+imported\s+from\s+flyspray:"
    # a Request Tracker export's "### From @alice" (or the mail's address) over each copied mail
    r"|#{3}[ \t]*From[ \t]+(?:@[\w-]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)[ \t]*$)",
    re.I | re.M,
)
_KEY_CASE = re.compile(r"\d+|[A-Z][A-Z0-9]+-\d+")
# Old-ticket references in copied words, rewritten as "#N" for the reader: a trac/bugzilla URL,
# "ticket 18", "ticket #18", "trac #18", "bug 18".
_OLD_URL = re.compile(
    r"<?https?://(?!(?:www\.)?github\.com/)\S+?"
    r"(?:/ticket/|show_bug\.cgi\?id=|/\+bug/|/Ticket/Display\.html\?id=)(\d+)\b[^\s)>\]]*>?",
    re.I,
)
# a Markdown escape an import wrote before punctuation (Request Tracker's copies escape every
# "#", "-", "." and bracket): undone in copied words, "\#18" is the "#18" its author typed
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
# Bugzilla's own words when a bug is resolved as a duplicate, copied into every import:
# "*** This bug has been marked as a duplicate of 18 ***" (or "of bug 18"); the number is bare
_BUGZILLA_DUPLICATE = re.compile(
    r"(marked\s+as\s+a\s+duplicate\s+of\s+)(?:bug\s+)?(\d+)(?=\s*\*\*\*)", re.I
)
# ("ticket:18" is trac's own link syntax)
_OLD_WORDS = re.compile(
    r"\b(?:trac\s+|bugzilla\s+)?(?:ticket|bug)\s*[#:]?\s*(\d+)\b|\btrac\s*#(\d+)\b"
    # Request Tracker's own "RT #18", "RT18" (never "RT 2", a count)
    r"|\bRT\s?#(\d+)\b|\bRT(\d{2,})\b",
    re.I,
)


# words every header form holds one of: most bodies are told apart by a few substring tests
HEADER_WORDS = (
    "ticket",
    "trac",
    "migrated",
    "imported",
    "originally",
    "bugs.python.org",
    "bugzilla",
    "reported by",
    "code.google.com",
    "flyspray",
    "/browse/",
)


def _may_have_header(head: str) -> bool:
    low = head.lower()
    return any(word in low for word in HEADER_WORDS)


def ticket_of(body: str | None, title: str | None = None) -> str | None:
    """The old ticket a migration header at the top of `body` (or, for an import that keeps it
    there, the issue's `title`) names, or None."""
    found = _header(body, title)
    return found[1] if found is not None else None


def header_form(body: str | None, title: str | None = None) -> str | None:
    """The name of the header form that matched (`HEADER_FORMS`), for tests and counters."""
    found = _header(body, title)
    return found[0].name if found is not None else None


# where a form written at the body's end is looked for: its last line (a long description
# pushes it past the head)
_TAIL = 600


def _header(body: str | None, title: str | None = None) -> tuple[HeaderForm, str] | None:
    text = body or ""
    head = text[:2000]
    tail = text[-_TAIL:] if len(text) > 2000 else ""
    if not _may_have_header(head) and not (tail and _may_have_header(tail)):
        return None
    for form, pattern, in_title in _HEADERS:
        if form.at_end:
            m = pattern.search(head) or (pattern.search(tail) if tail else None)
            if m is not None:
                return form, m.group("key")
            continue
        if in_title is not None:  # the key in the title, the body only marks the import
            t = in_title.match(title or "")
            if t is not None and pattern.search(head) is not None:
                return form, t.group("key")
            continue
        m = pattern.search(head)
        if m is not None and _KEY_CASE.fullmatch(m.group("key")):
            return form, m.group("key")
    return None


def comment_was_migrated(body: str | None) -> bool:
    """A comment the migration copied from the old tracker (it carries a copied-comment header,
    on top or, FlySpray's, as its last line)."""
    text = body or ""
    return _COMMENT_HEADER.search(text[:600]) is not None or (
        len(text) > 600 and _COMMENT_HEADER.search(text[-300:]) is not None
    )


def old_numbers(text: str) -> str:
    """`text` with each old-ticket reference written "#N" (a URL becomes "#N" too): the reader
    then finds them as ordinary references, which the caller knows to be old numbers. Markdown
    escapes are undone first."""
    text = _ESCAPED.sub(r"\1", text)
    text = _OLD_URL.sub(lambda m: f"#{m.group(1)}", text)
    text = _BUGZILLA_DUPLICATE.sub(lambda m: f"{m.group(1)}#{m.group(2)}", text)
    return _OLD_WORDS.sub(lambda m: "#" + next(g for g in m.groups() if g), text)


def old_number(body: str | None, title: str | None = None) -> int | None:
    """The old ticket number of a migrated issue whose copied words number tickets the old way
    (trac, Bugzilla, Google Code: a numeric key). A JIRA migration names its key ("WID-18") and
    rewrote the "#N" of its copied words to GitHub's numbers, so its "#N" read as today; so did
    bugs.python.org's (`copies_old_numbers`)."""
    found = _header(body, title)
    if found is None or not found[0].copies_old_numbers:
        return None
    return mapped_number(body, title)


def mapped_number(body: str | None, title: str | None = None) -> int | None:
    """The old number a migrated issue's header names, whatever its copied words do: what the
    repository's old-number map (`links/migration.ticket_map`) holds for it."""
    key = mapped_key(body, title)
    return key[1] if key is not None and key[0] is None else None


def mapped_key(body: str | None, title: str | None = None) -> tuple[str | None, int] | None:
    """The old ticket a migrated issue's header names as (JIRA project or None, number): "18" is
    (None, 18), "WID-18" is ("WID", 18). A repository's map for one project holds its keys only,
    so two projects imported into one repository never share a number."""
    key = ticket_of(body, title)
    if key is None:
        return None
    project, _, number = key.rpartition("-")
    return (project or None, int(number))


# bugs.python.org's own duplicate record, as the migration wrote it: the header table's
# "Superseder | <li>bpo-18: title</li>" row (the issue this one was closed in favour of, by its
# old number) and, in the fields block under it, `resolution = 'duplicate'` and `superseder =
# '18'`. A superseder set with another resolution ("rejected", "out of date", "fixed") names a
# successor, not an original.
_BPO_SUPERSEDER_ROW = re.compile(
    r"^[ \t]*Superseder\s*\|\s*<li>\s*(?:<a\b[^>]*>\s*)?bpo-(?P<old>\d+)\b", re.M
)
_BPO_SUPERSEDER = re.compile(r"^[ \t]*superseder\s*=\s*(['\"])(?P<old>\d+)\1[ \t]*$", re.M)
_BPO_RESOLUTION = re.compile(r"^[ \t]*resolution\s*=\s*(['\"])(?P<value>[^'\"\n]+)\1[ \t]*$", re.M)
# bugzilla2github's header field naming the bug this one was resolved a duplicate of (Bugzilla's
# dup_id): "Duplicates:   #18", "Duplicates:   [BZ#18](https://github.com/.../issues?q=...)"
_BUGZILLA_DUPLICATES = re.compile(r"^[ \t]*Duplicates:[ \t]*\[?(?:BZ)?#(?P<old>\d+)\b", re.M)
# Apache's JIRA import keeps JIRA's issue links under the description, each with its type:
# "- [WID-17](<jira>/browse/WID-17) its title" and, on the next line, ' (_**"duplicates"**_)'.
# "duplicates" says this issue duplicates WID-17; the original carries "is duplicated by"
_JIRA_LINKS = re.compile(r"^[ \t]*\*\*Issue\s+Links:\*\*[ \t]*$", re.M)
_JIRA_LINK = re.compile(
    r"^[ \t]*-[ \t]*\[(?P<key>[A-Z][A-Z0-9]+-\d+)\]\([^)\s]*\)[^\n]*\n?[ \t]*"
    r"\(_\*\*\"(?P<type>[^\"\n]+)\"\*\*_\)",
    re.M,
)


def jira_duplicates(body: str) -> list[str]:
    """The keys an imported JIRA issue's "Issue Links" list says it duplicates."""
    start = _JIRA_LINKS.search(body)
    if start is None:
        return []
    links = body[start.end() : start.end() + 4000]
    return [
        m.group("key")
        for m in _JIRA_LINK.finditer(links)
        if m.group("type").strip().lower() == "duplicates"
    ]


@dataclass(frozen=True)
class TrackerRecord:
    """The old tracker's record that a migrated issue was a duplicate: `old`, the original's old
    number; `own`, the issue's own old number (a record naming it names nothing); `needs_label`:
    the record counts only on an issue labelled duplicate (Bugzilla's "Duplicates:" field reads
    both ways, so the label says which way the import meant it)."""

    old: int
    own: int | None
    needs_label: bool
    # the JIRA project of `old` ("WID" for WID-17): its number maps through that project's keys
    project: str | None = None


def tracker_record(body: str | None) -> TrackerRecord | None:
    """The duplicate record the migration header of `body` carries: bugs.python.org's superseder
    (`superseder_of`), a Bugzilla import's "Duplicates:" field or the one "duplicates" link of
    an imported JIRA issue. None for any other issue. (The caller checks that GitHub shows the
    issue closed.)"""
    found = _header(body)
    if found is None:
        return None
    form, key = found
    own = int(key) if key.isdigit() else None
    if form.name == "bpo_row":
        old = _bpo_superseder(body or "")
        return TrackerRecord(old, own, needs_label=False) if old is not None else None
    if form.name.startswith("bugzilla"):
        m = _BUGZILLA_DUPLICATES.search((body or "")[:2000])
        return TrackerRecord(int(m.group("old")), own, needs_label=True) if m else None
    if form.name == "jira_importer":
        # one original, or none: two "duplicates" links name no single one
        keys = sorted(set(jira_duplicates(body or "")))
        if len(keys) != 1:
            return None
        project, _, number = keys[0].rpartition("-")
        own_project, _, own_number = key.rpartition("-")
        return TrackerRecord(
            int(number),
            int(own_number) if own_project == project else None,
            needs_label=False,
            project=project,
        )
    return None


# Google's own exporter (2015, the account `GoogleCodeExporter`; conv-29's funcparserlib miss)
# wrote each issue under its Google Code number, so its "#N" are GitHub's too; the body ends
# "Original issue reported on code.google.com by `alice` on 26 May 2011 at 11:22" and, on an
# issue Google Code merged into another, "- Merged into: #29" (no old-number map needed)
_GOOGLE_EXPORT = re.compile(
    r"^[ \t]*Original\s+issue\s+reported\s+on\s+code\.google\.com\s+by\b", re.M | re.I
)
_GOOGLE_EXPORT_MERGED = re.compile(r"^[ \t]*-[ \t]*Merged\s+into:[ \t]*#(?P<number>\d+)\b", re.M)


def exporter_merged_into(body: str | None) -> int | None:
    """The issue Google's exporter records this one was merged into (its number is GitHub's), or
    None: the record counts only under the exporter's own line, where it wrote it."""
    tail = (body or "")[-2000:]
    header = _GOOGLE_EXPORT.search(tail)
    if header is None:
        return None
    merged = _GOOGLE_EXPORT_MERGED.search(tail, header.end())
    return int(merged.group("number")) if merged else None


# google-code-issues-migrator's copy of a status change, in the copied comment that made it:
# "**Status:** Duplicate" and "**Mergedinto:** 18" (Google Code's merged-into field: the
# original's old number; "other-project:18" is another project's issue)
_GOOGLE_CODE_STATUS = re.compile(r"^[ \t]*\*\*Status:\*\*[ \t]*(?P<status>\w[\w-]*)", re.M | re.I)
_GOOGLE_CODE_MERGED = re.compile(
    r"^[ \t]*\*\*Mergedinto:\*\*[ \t]*(?:(?P<project>[\w.-]+):)?(?P<old>\d+)\b", re.M | re.I
)


@dataclass(frozen=True)
class StatusChange:
    """A status change a migration copied: the new `status` and, for a merge, the original's
    old number (`merged_into`; None when the change names none) and whether that number is
    another project's (`elsewhere`)."""

    status: str
    merged_into: int | None = None
    elsewhere: bool = False


# FlySpray's copy of a close: "**_bob_ closed the ticket.**", "**Reason for closing: _Duplicate_**",
# then the closer's quoted note ("> Of #18."); a reopen is "**_bob_ reopened the ticket.**". The
# import escaped a note's leading "#" ("> \\# 18", else Markdown reads a heading) and kept a
# space after it ("Of # 18", conv-35's OpenTTD misses), or wrote no sign at all after "of"
# ("> of 694", conv-36's; a bare number with no "of" is no task: "> 18 trains stop")
_FLYSPRAY_REASON = re.compile(
    r"\*\*reason\s+for\s+closing:\s*_?(?P<status>[\w ]+?)_?\*\*(?P<note>(?:\s*\n\s*>[^\n]*)*)",
    re.I,
)
_FLYSPRAY_OF = re.compile(
    r"^\s*>\s*(?:(?:duplicate\s+)?of\s+(?:FS\s*)?(?:\\?#[ \t]?)?|(?:FS\s*)?\\?#[ \t]?)"
    r"(?P<old>\d+)\b",
    re.I | re.M,
)
_FLYSPRAY_REOPENED = re.compile(r"\*\*_?[^*\n]+?_?\s+reopened\s+the\s+ticket\.?\*\*", re.I)


def _flyspray_change(text: str) -> StatusChange | None:
    if _FLYSPRAY_REOPENED.search(text):
        return StatusChange("Reopened")
    reason = _FLYSPRAY_REASON.search(text)
    if reason is None:
        return None
    status = reason.group("status").strip().replace(" ", "")
    of = _FLYSPRAY_OF.search(reason.group("note"))
    return StatusChange(status, int(of.group("old")) if of else None)


def status_change(body: str | None) -> StatusChange | None:
    """The status change a copied Google Code or FlySpray comment records, or None."""
    text = body or ""
    if "flyspray" in text.lower():
        return _flyspray_change(text)
    if "**Status:**" not in text and "**status:**" not in text.lower():
        return None
    status = _GOOGLE_CODE_STATUS.search(text)
    if status is None:
        return None
    merged = _GOOGLE_CODE_MERGED.search(text)
    return StatusChange(
        status.group("status"),
        int(merged.group("old")) if merged else None,
        bool(merged and merged.group("project")),
    )


def superseder_of(body: str | None) -> int | None:
    """The old number of the issue a bugs.python.org issue was closed as a duplicate of, from
    the record its migration wrote (None for any other issue, or another resolution)."""
    found = _header(body)
    if found is None or found[0].name != "bpo_row":
        return None
    return _bpo_superseder(body or "")


def _bpo_superseder(body: str) -> int | None:
    """The table row and the fields line name the same issue; either is enough. The resolution
    decides when the text shows it. A body cut before the resolution line (an excerpt, a
    truncated copy: a full migrated body always has it) counts the superseder alone, the way
    the tracker's practice has it: a superseder is set when an issue is closed as a duplicate."""
    head = body[:12000]  # the record sits under the table, above the first message
    superseder = _BPO_SUPERSEDER_ROW.search(head) or _BPO_SUPERSEDER.search(head)
    if superseder is None:
        return None
    resolution = _BPO_RESOLUTION.search(head)
    if resolution is not None and resolution.group("value").strip().lower() != "duplicate":
        return None
    return int(superseder.group("old"))
