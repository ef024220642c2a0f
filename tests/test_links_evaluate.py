"""The evaluator's counting: the dev/test split, ambiguous rows, and which link is a thread's
claim."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from issues_sts.annotations.evaluate import (
    Results,
    agreement,
    claimed_canonicals,
    score,
    wilson,
)
from issues_sts.annotations.labels import Annotation, read_annotations, select, split_of
from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import ConfigError
from issues_sts.links.stage import LINK_SCHEMA, LinkTable

R = "rust-lang/rust"


def ann(
    number: int, category: str = "duplicate", target: int | None = None, note: str = ""
) -> Annotation:
    return Annotation(R, number, category, (R, target) if target is not None else None, note)


def test_split_alternates_by_number_whatever_the_file_order() -> None:
    rows = [ann(30), ann(10), ann(40), ann(20), ann(50)]
    assert split_of(rows) == {
        (R, 10): "dev",
        (R, 20): "test",
        (R, 30): "dev",
        (R, 40): "test",
        (R, 50): "dev",
    }
    assert [a.number for a in select(rows, "test")] == [40, 20]
    assert len(select(rows, "all")) == 5
    with pytest.raises(ConfigError):
        select(rows, "train")


def test_an_explicit_split_column_wins_over_alternation() -> None:
    rows = [
        Annotation(R, n, "duplicate", None, "", split)
        for n, split in ((10, "dev"), (20, "dev"), (30, "test"))
    ]
    assert split_of(rows) == {(R, 10): "dev", (R, 20): "dev", (R, 30): "test"}
    assert [a.number for a in select(rows, "test")] == [30]


def test_split_column_is_read_and_checked(tmp_path: Path) -> None:
    head = "repo,number,category,canonical_repo,canonical_number,note,split\n"
    good = tmp_path / "good.csv"
    good.write_text(head + f"{R},1,duplicate,{R},5,keyword,test\n{R},2,hard_negative,,,see,dev\n")
    assert [(a.number, a.split) for a in read_annotations(good)] == [(1, "test"), (2, "dev")]
    bad = tmp_path / "bad.csv"
    bad.write_text(head + f"{R},1,duplicate,{R},5,keyword,holdout\n")
    with pytest.raises(ConfigError, match="split"):
        read_annotations(bad)


def test_an_annotation_file_that_is_not_csv_text_is_a_config_error(tmp_path: Path) -> None:
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\xff\xfe\x00\x01" * 8)
    with pytest.raises(ConfigError, match="not a CSV text file") as info:
        read_annotations(binary)
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (85, 85, 0.9568, 1.0),  # all right still leaves a few percent of doubt
        (90, 93, 0.9093, 0.9890),
        (0, 0, 0.0, 1.0),  # nothing measured: nothing known
    ],
)
def test_wilson_interval(k: int, n: int, low: float, high: float) -> None:
    got = wilson(k, n)
    assert got == pytest.approx((low, high), abs=5e-4)
    assert got[0] <= (k / n if n else 0.0) <= got[1]


def test_ambiguous_rows_can_be_left_out() -> None:
    rows = [ann(1, note="keyword"), ann(2, note="hedged;ambiguous"), ann(3, note="ambiguous-ish")]
    assert [a.number for a in select(rows, "all", ambiguous=False)] == [1, 3]


# (case, annotation, claimed target or None, (tp, fp, fn, tn))
COUNT_CASES = [
    ("right target", ann(1, target=5), 5, (1, 0, 0, 0)),
    ("wrong target is a false link and a miss", ann(1, target=5), 6, (0, 1, 1, 0)),
    ("no claim on a duplicate", ann(1, target=5), None, (0, 0, 1, 0)),
    ("claim on a hard negative", ann(1, "hard_negative"), 5, (0, 1, 0, 0)),
    ("silence on a hard negative", ann(1, "hard_negative"), None, (0, 0, 0, 1)),
    ("a duplicate whose thread names no target: any claim is a guess", ann(1), 5, (0, 1, 0, 0)),
    ("... and silence is right", ann(1), None, (0, 0, 0, 1)),
]


@pytest.mark.parametrize(
    ("case", "row", "claimed", "counts"), COUNT_CASES, ids=[c[0] for c in COUNT_CASES]
)
def test_counting(
    case: str, row: Annotation, claimed: int | None, counts: tuple[int, int, int, int]
) -> None:
    claims = {(R, row.number): (R, claimed)} if claimed is not None else {}
    m = score([row], claims).metrics()
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == counts


def test_old_repository_names_and_case_compare_equal() -> None:
    row = Annotation(R, 1, "duplicate", ("mozilla/rust", 5), "renamed-repo")
    assert score([row], {(R, 1): ("Rust-Lang/Rust", 5)}).metrics()["tp"] == 1


def _table(rows: list[tuple[int, int, str | None]]) -> LinkTable:
    base = {name: None for name in LINK_SCHEMA}
    frame = pl.DataFrame(
        [
            {
                **base,
                "repo": R,
                "number": n,
                "target_repo": R,
                "target_number": t,
                "confidence": 0.9,
                "excluded_reason": why,
                "usable": why is None,
                "signals": [],
                "evidence_urls": [],
            }
            for n, t, why in rows
        ],
        schema=LINK_SCHEMA,
    )
    return LinkTable(frame, pl.DataFrame(), {})


def test_the_claim_is_the_threads_own_canonical() -> None:
    table = _table(
        [
            (1, 5, "target_is_pull_request"),
            (1, 6, None),  # #6 was promoted when the PR target was excluded
            (2, 7, "source_is_pull_request"),  # a PR's link still counts as its reading
            (3, 8, "target_missing"),
            (4, 9, "not_canonical"),
            (4, 10, None),
            (5, 11, "low_confidence"),
        ]
    )
    assert claimed_canonicals(table) == {
        (R, 1): (R, 5),
        (R, 2): (R, 7),
        (R, 3): (R, 8),
        (R, 4): (R, 10),
    }


def test_results_table_has_every_subset() -> None:
    rows = [ann(1, target=5), ann(2, "hard_negative", note="ambiguous"), ann(3, target=4)]
    table = Results(rows, {(R, 1): (R, 5), (R, 2): (R, 9)}).table()
    assert set(table) == {"dev", "test", "all"}
    assert (
        table["all"]["with_ambiguous"]["fp"] == 1 and table["all"]["without_ambiguous"]["fp"] == 0
    )
    assert table["dev"]["with_ambiguous"]["tp"] == 1 and table["dev"]["with_ambiguous"]["fn"] == 1


def test_agreement_counts_calls_links_and_kappa() -> None:
    first = [ann(1, target=5), ann(2, "hard_negative"), ann(3, target=7), ann(4, "hard_negative")]
    second = [
        ann(1, target=5),
        ann(2, "hard_negative"),
        ann(3, target=8),
        ann(4, target=9),
        ann(99, target=1),
    ]
    got = agreement(first, second)
    assert (got.threads, got.category, got.link) == (4, 3, 2)  # #99 was read once only
    # observed 3/4; by chance (2*3 + 2*1)/16 = 0.5 -> kappa 0.5
    assert got.kappa == pytest.approx(0.5)
    assert (got.second_vs_first["tp"], got.second_vs_first["fp"], got.second_vs_first["fn"]) == (
        1,
        2,
        1,
    )


SECOND_READING = Path("data/annotations/rust_duplicates_second_reading.csv")


@pytest.mark.skipif(not SECOND_READING.exists(), reason="no second reading in data/annotations")
def test_the_two_readings_of_the_project_annotations_agree() -> None:
    """A data check: 160 threads of rounds 2-3 were read again by other readers; if the
    readers disagreed often, no extractor score against either would mean much."""
    got = agreement(
        read_annotations(Path("data/annotations/rust_duplicates.csv")),
        read_annotations(SECOND_READING),
    )
    assert got.threads == 160
    assert got.link / got.threads >= 0.95 and got.kappa >= 0.9, got


ONNX_SECOND_READING = Path("data/annotations/onnxruntime_duplicates_second_reading.csv")


@pytest.mark.skipif(
    not ONNX_SECOND_READING.exists(), reason="no modern second reading in data/annotations"
)
def test_the_two_readings_of_the_modern_round_agree() -> None:
    """90 onnx-1 threads were read again; 78 carry a label in both readings."""
    got = agreement(
        read_annotations(Path("data/annotations/onnxruntime_duplicates.csv")),
        read_annotations(ONNX_SECOND_READING),
    )
    assert (got.threads, got.link) == (78, 77)
    assert got.kappa >= 0.95, got


# (round, threads read twice, threads labelled in both readings, of them the same call and
# canonical, lowest kappa accepted): each fresh rust round's second reading by another reader
FRESH_ROUND_SECOND_READINGS = [
    (5, 44, 43, 0.95),
    (6, 43, 40, 0.85),
    (7, 43, 42, 0.95),
    (8, 44, 43, 0.95),
    (9, 44, 44, 0.95),
    (10, 49, 49, 0.95),
]


@pytest.mark.parametrize(("round_", "threads", "same", "kappa"), FRESH_ROUND_SECOND_READINGS)
def test_the_two_readings_of_each_fresh_rust_round_agree(
    round_: int, threads: int, same: int, kappa: float
) -> None:
    """About 50 threads of each fresh round were read again by a reader who saw neither the
    first labels nor the extractor; a few were skipped by one reader (no reference)."""
    second = Path(f"data/annotations/rust_round{round_}_second_reading.csv")
    if not second.exists():
        pytest.skip(f"no second reading of round {round_} in data/annotations")
    got = agreement(
        read_annotations(Path("data/annotations/rust_duplicates.csv")), read_annotations(second)
    )
    assert (got.threads, got.link) == (threads, same)
    assert got.kappa >= kappa, got


# (round, threads labelled in both readings, same call and canonical, lowest kappa accepted):
# each neovim round's second reading by another AI assistant reader, blind to the first
NEOVIM_SECOND_READINGS = [
    (1, 48, 48, 0.95),
    (2, 48, 48, 0.95),
    (3, 46, 45, 0.95),
    (4, 41, 40, 0.85),
]


@pytest.mark.parametrize(("round_", "threads", "same", "kappa"), NEOVIM_SECOND_READINGS)
def test_the_two_readings_of_each_neovim_round_agree(
    round_: int, threads: int, same: int, kappa: float
) -> None:
    second = Path(f"data/annotations/neovim_nv{round_}_second_reading.csv")
    if not second.exists():
        pytest.skip(f"no second reading of round nv-{round_} in data/annotations")
    got = agreement(
        read_annotations(Path("data/annotations/neovim_duplicates.csv")), read_annotations(second)
    )
    assert (got.threads, got.link) == (threads, same)
    assert got.kappa >= kappa, got


def test_rounds_are_listed_in_their_numeric_order() -> None:
    rows = [
        Annotation(R, n, "hard_negative", None, "", "dev", round_)
        for n, round_ in enumerate(["10", "2", "onnx-2", "1", "onnx-1"], start=1)
    ]
    got = list(Results(rows, {}).by_round())
    assert got == ["1", "2", "10", "onnx-1", "onnx-2"]


def test_signal_kinds_say_what_each_thread_holds(tmp_path: Path) -> None:
    from issues_sts.annotations.evaluate import signal_kinds
    from issues_sts.sandbox.stores import raw_comment, raw_issue
    from issues_sts.store import Store

    repo = "neovim/neovim"
    issues = [raw_issue(repo, n, f"t{n}") for n in range(1, 7)]
    issues[0]["labels"] = [{"name": "closed:duplicate"}]
    issues[1]["state_reason"] = "duplicate"
    comments = [
        raw_comment(repo, 3, 30, "Duplicate of #1"),
        raw_comment(repo, 4, 40, "This looks like a dupe of #1."),
    ]
    mark = {
        "repo": repo,
        "number": 1,
        "event_key": "MADE_1",
        "event": "marked_as_duplicate",
        "actor": "m",
        "created_at": "2025-01-01T00:00:00Z",
        "canonical_repo": repo,
        "canonical_number": 1,
        "source": "graphql",
        "raw": "{}",
        "duplicate_repo": repo,
        "duplicate_number": 5,
    }
    with Store.open(tmp_path / "s", create=True) as store:
        store.write_page(
            repo,
            issues=issue_rows(repo, issues),
            comments=comment_rows(repo, comments),
            events=[mark],
        )
        kinds = signal_kinds(store, [(repo, n) for n in range(1, 7)])
    assert kinds[(repo, 1)] == {"label"}
    assert kinds[(repo, 2)] == {"state_reason"}
    assert kinds[(repo, 3)] == {"keyword"}
    assert kinds[(repo, 4)] == {"wording"}
    assert kinds[(repo, 5)] == {"event"}  # shown on #1's timeline, about #5
    assert kinds[(repo, 6)] == {"none"}
