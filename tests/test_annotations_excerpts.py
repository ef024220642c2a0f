"""`issues-sts links evaluate-excerpts`: a conventions round read as search-tool excerpts
(issue 32), scored end to end through the fake GitHub and the real crawler. The threads are
the project's own, written in the excerpt shape."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from issues_sts.annotations.excerpts import load_excerpts, parse_excerpt, write_archive
from issues_sts.errors import ConfigError
from tests.conftest import cli_exit_code

HEADER = "repo,number,category,canonical_repo,canonical_number,note,round,split\n"

# A triage bot's statement that closes (bot class), a maintainer's keyword, a related pointer
# (a hard negative), a duplicate whose target the excerpt never names, and a reporter's own
# "I missed #N before" left open: each is one thread of acme/widget.
THREADS = {
    20: """acme/widget · issue #20 · closed
labels: bug
# Crash when saving

alice · description · 2024-03-01
Saving a file crashes the app.

bob · comment · 2024-03-02
Duplicate of #12
""",
    21: """acme/widget · issue #21 · closed
# Slow start

carol · description · 2024-03-01
Start-up takes a minute.

dave · comment · 2024-03-03
Related to #5, which changed the loader.
""",
    22: """acme/widget · issue #22 · closed
labels: triage-needed
# Menu flickers

erin · description · 2024-04-01
The menu flickers on hover.

widget-triage[bot] · comment · 2024-04-01
This issue is a duplicate of https://github.com/acme/widget/issues/19. Please refer to that \
issue for updates and add any new details there.
""",
    23: """acme/widget · issue #23 · closed
labels: duplicate
# Icons missing

frank · description · 2024-05-01
The toolbar icons are gone.
""",
    24: """acme/widget · issue #24 · open
# Tabs reset

gina · description · 2024-05-02
Tabs reset after a restart.

hal · comment · 2024-05-03
Probably the same as #17.
""",
}
LABELS = {
    20: "duplicate,acme/widget,12,bot-class;keyword",
    21: "hard_negative,,,bot-class;related-to",
    22: "duplicate,acme/widget,19,bot-class;bot-close",
    23: "duplicate,,,bot-class;no-target",
    24: "duplicate,acme/widget,17,bot-class;still-open;ambiguous",
}


def _round(tmp_path: Path, numbers: list[int] | None = None) -> Path:
    root = tmp_path / "conv-test"
    (root / "excerpts").mkdir(parents=True)
    chosen = numbers or sorted(THREADS)
    for n in chosen:
        (root / "excerpts" / f"acme__widget__{n}.txt").write_text(THREADS[n], encoding="utf-8")
    rows = "".join(f"acme/widget,{n},{LABELS[n]},t,test\n" for n in chosen)
    (root / "labels.csv").write_text(HEADER + rows, encoding="utf-8")
    return root


def test_an_excerpt_reads_as_its_thread() -> None:
    ex = parse_excerpt(THREADS[22])
    assert (ex.repo, ex.number, ex.state, ex.is_pull_request) == (
        "acme/widget",
        22,
        "closed",
        False,
    )
    assert ex.labels == ("triage-needed",) and ex.title == "Menu flickers"
    assert [(p.login, p.kind, p.day) for p in ex.posts] == [
        ("erin", "description", "2024-04-01"),
        ("widget-triage[bot]", "comment", "2024-04-01"),
    ]
    assert ex.posts[1].body.startswith("This issue is a duplicate of https://")


def test_an_excerpt_that_opens_inside_a_post_names_its_author() -> None:
    """The search tool cuts long threads: "[turn 0 by LOGIN, continued]" is the rest of the
    description (its author is the issue's), "[turn 3 by LOGIN, continued]" of a comment; neither
    has a date, so each takes the next post's day (the previous one's when it is the last)."""
    text = """acme/widget · issue #30 · closed · TypeScript
# Kernel dies

[turn 0 by ivy, continued]
### Version

1.2

kai · comment · 2024-06-02
@lee your issue is a duplicate of #12

[turn 3 by lee, continued]
thanks
"""
    ex = parse_excerpt(text)
    assert [(p.login, p.kind, p.day) for p in ex.posts] == [
        ("ivy", "description", "2024-06-02"),
        ("kai", "comment", "2024-06-02"),
        ("lee", "comment", "2024-06-02"),
    ]
    assert ex.posts[0].body.startswith("### Version") and ex.posts[2].body == "thanks"


def test_the_archive_fills_in_what_an_excerpt_does_not_show(tmp_path: Path) -> None:
    write_archive([parse_excerpt(THREADS[22]), parse_excerpt(THREADS[24])], tmp_path)
    with gzip.open(tmp_path / "issues.jsonl.gz", "rt") as f:
        issues = {row["number"]: row for row in map(json.loads, f)}
    with gzip.open(tmp_path / "threads.jsonl.gz", "rt") as f:
        threads = {row["number"]: row for row in map(json.loads, f)}
    closed = issues[22]
    # closed a minute after its last post, by that post's author (the bot), reason unknown
    assert closed["closed_by"]["login"] == "widget-triage[bot]"
    assert closed["closed_by"]["type"] == "Bot" and closed["state_reason"] is None
    assert closed["closed_at"] > threads[22]["comments"][-1]["created_at"]
    assert issues[24]["closed_at"] is None and issues[24]["state"] == "open"
    ids = [c["id"] for t in threads.values() for c in t["comments"]]
    assert all(i > 2**31 for i in ids) and len(set(ids)) == len(ids)  # today's 64-bit ids
    assert {c["author_association"] for t in threads.values() for c in t["comments"]} == {"NONE"}
    write_archive([parse_excerpt(THREADS[24])], tmp_path / "m", "member")
    with gzip.open(tmp_path / "m" / "threads.jsonl.gz", "rt") as f:
        (only,) = map(json.loads, f)
    assert only["comments"][0]["author_association"] == "MEMBER"
    # the account the repository is named after is its OWNER (moudey/Shell's moudey)
    owned = THREADS[21].replace("dave · comment", "acme · comment")
    write_archive([parse_excerpt(owned)], tmp_path / "o", "member")
    with gzip.open(tmp_path / "o" / "threads.jsonl.gz", "rt") as f:
        (only,) = map(json.loads, f)
    assert only["comments"][0]["author_association"] == "OWNER"


def test_the_longest_copy_of_a_thread_is_kept(tmp_path: Path) -> None:
    root = _round(tmp_path, [20])
    (root / "support").mkdir()
    longer = THREADS[20] + "\nbob · comment · 2024-03-04\nClosing.\n"
    (root / "support" / "acme__widget__20.txt").write_text(longer, encoding="utf-8")
    (one,) = load_excerpts(root)
    assert len(one.posts) == 3


def test_a_round_is_scored_per_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _round(tmp_path)
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["excerpts"] == 5 and report["rows"] == 5
    bot = report["classes"]["bot"]
    # the keyword and the bot's closing statement are read; the open, hedged bystander's
    # guess is not (a miss on a row the reader marked ambiguous); the pointer makes no link
    assert (bot["all"]["tp"], bot["all"]["fp"], bot["all"]["fn"]) == (2, 0, 1)
    assert bot["all"]["tn"] == 2 and bot["all"]["unknown_target"] == 1
    assert bot["rows_without_ambiguous"] == 4
    assert (bot["without_ambiguous"]["tp"], bot["without_ambiguous"]["fn"]) == (2, 0)
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet", "--errors"]) == 0
    text = capsys.readouterr().out
    assert "recall 0.667 [" in text and "(2 of 3)" in text
    # each error names its own thread and both targets with their repositories (another
    # repository's thread of the same number is not listed with it)
    assert "miss        acme/widget#24: labelled acme/widget#17, claimed none" in text
    assert text.count("acme/widget#") == 2


def test_a_class_without_claims_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _round(tmp_path, [21])
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet", "--json"]) == 0
    bot = json.loads(capsys.readouterr().out)["classes"]["bot"]["all"]
    assert bot["precision"] is None and bot["recall"] is None and bot["tn"] == 1
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet"]) == 0
    assert "precision no claim" in capsys.readouterr().out


def _one_line_error(capsys: pytest.CaptureFixture[str], *needles: str) -> None:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for needle in needles:
        assert needle in err, err


def test_a_labelled_thread_without_its_excerpt_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _round(tmp_path, [20, 21])
    (root / "excerpts" / "acme__widget__21.txt").unlink()
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet"]) == 2
    _one_line_error(capsys, "1 labelled threads have no excerpt", "acme/widget#21")


def test_an_excerpt_that_is_not_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _round(tmp_path, [20])
    (root / "excerpts" / "acme__widget__20.txt").write_text("<html>rate limited</html>\n")
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet"]) == 2
    _one_line_error(capsys, "does not start with an excerpt header")
    with pytest.raises(ConfigError):
        parse_excerpt("")


def test_a_round_without_rows_has_nothing_to_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _round(tmp_path, [20])
    (root / "labels.csv").write_text(HEADER, encoding="utf-8")
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet"]) == 2
    _one_line_error(capsys, "no labelled row")
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--association", "x"]) == 2
    _one_line_error(capsys, "--association")


# acme/gadget was olden/gadget (another owner, the same name) and, under its owner, acme/gizmo:
# the bot's link names the first old name; the index stored #41 under the second.
RENAMED = {
    "acme__gadget__40.txt": """acme/gadget · issue #40 · closed
# Fan noise

uma · description · 2024-07-01
The fan never stops.

gadget-triage[bot] · comment · 2024-07-01
This issue is a duplicate of https://github.com/olden/gadget/issues/19. Please refer to that \
issue for updates.
""",
    "acme__gizmo__41.txt": """acme/gizmo · issue #41 · closed
# Fan loud

vic · description · 2024-07-02
Loud fan again.

wes · comment · 2024-07-02
Duplicate of https://github.com/acme/gadget/issues/19
""",
}


def _renamed_round(tmp_path: Path, renames: str | None) -> Path:
    root = tmp_path / "conv-renamed"
    (root / "excerpts").mkdir(parents=True)
    for name, text in RENAMED.items():
        (root / "excerpts" / name).write_text(text, encoding="utf-8")
    rows = (
        "acme/gadget,40,duplicate,acme/gadget,19,bot-class;bot-close,t,test\n"
        "acme/gizmo,41,duplicate,acme/gizmo,19,bot-class;keyword,t,test\n"
    )
    (root / "labels.csv").write_text(HEADER + rows, encoding="utf-8")
    if renames is not None:
        (root / "renames.txt").write_text(renames, encoding="utf-8")
    return root


def _bot(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, int, int]:
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)["classes"]["bot"]["all"]
    return counts["tp"], counts["fp"], counts["fn"]


def test_a_renamed_repository_is_served_as_github_redirects_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the round's renames both links miss: the world serves no olden/gadget and holds
    acme/gizmo and acme/gadget apart. With them, #41's thread and label move to acme/gadget, and
    the crawl, asking GitHub about the old name the bot links to, learns it is acme/gadget's."""
    assert _bot(capsys, _renamed_round(tmp_path / "a", None)) == (0, 2, 2)
    renames = "# GitHub redirects these\nolden/gadget=acme/gadget\n\nacme/gizmo = acme/gadget\n"
    root = _renamed_round(tmp_path / "b", renames)
    assert _bot(capsys, root) == (2, 0, 0)
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet"]) == 0
    assert "; 2 renames (renames.txt)" in capsys.readouterr().out


def test_the_archive_lists_old_names_for_the_fake_github(tmp_path: Path) -> None:
    from issues_sts.sandbox.worlds.archive import load_thread_archive

    excerpts = [parse_excerpt(RENAMED["acme__gadget__40.txt"])]
    write_archive(excerpts, tmp_path, renames=(("olden/gadget", "acme/gadget"),))
    corpus = load_thread_archive(tmp_path)
    assert corpus.renamed("OLDEN/gadget") is corpus.find("acme/gadget")
    write_archive(excerpts, tmp_path / "plain")
    assert not (tmp_path / "plain" / "renames.json").exists()
    (tmp_path / "renames.json").write_text("[1, 2]\n")
    with pytest.raises(ConfigError, match="not a map of repositories"):
        load_thread_archive(tmp_path)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("olden/gadget\n", "renames.txt:1: bad rename 'olden/gadget'"),
        ("a/b=c/d\nA/B=e/f\n", "renames.txt:2: A/B is renamed twice"),
        ("a/b=c/d\nc/d=e/f\n", "c/d is both an old and a current name"),
    ],
)
def test_a_bad_renames_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    root = _renamed_round(tmp_path, text)
    assert cli_exit_code(["links", "evaluate-excerpts", str(root), "--quiet"]) == 2
    _one_line_error(capsys, needle)
