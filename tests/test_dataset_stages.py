"""Unit tests of the build's pure stages: texts, redaction, positive pairs, negatives, stats."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from issues_sts.dataset.hard_negatives import term_postings
from issues_sts.dataset.negatives import HardMode, IssueArrays, _validate, sample_negatives
from issues_sts.dataset.pairs import positive_pairs
from issues_sts.dataset.redact import redact_column, redact_text
from issues_sts.dataset.references import reference_keys
from issues_sts.dataset.splits import assign_splits, issue_groups
from issues_sts.dataset.stats import (
    TokenCounter,
    build_stats,
    load_tokenizer,
    token_lengths,
    violin_plot,
)
from issues_sts.dataset.texts import issue_text, issue_texts
from issues_sts.errors import TokenizerError
from issues_sts.sandbox.stores import FixedLinks

# -- texts ------------------------------------------------------------------------------

TEXT_CASES = [
    ("Crash", "line1\r\nline2\rline3", "Crash\n\nline1\nline2\nline3"),
    ("  Title  ", "", "Title"),
    ("Title", None, "Title"),
    ("T", "```rust\r\nfn main() {}\r\n```\r\n", "T\n\n```rust\nfn main() {}\n```"),
    ("nul\x00byte", "  body  ", "nulbyte\n\nbody"),
]


@pytest.mark.parametrize(("title", "body", "expected"), TEXT_CASES)
def test_issue_text_recipe(title: str, body: str | None, expected: str) -> None:
    assert issue_text(title, body) == expected


def _issues(rows: list[dict[str, object]]) -> pl.DataFrame:
    base = {
        "repo": "o/r",
        "is_pull_request": False,
        "tombstone": None,
        "html_url": None,
        "body": "",
    }
    return pl.DataFrame(
        [{**base, **r} for r in rows],
        schema={
            "repo": pl.Utf8,
            "number": pl.Int64,
            "is_pull_request": pl.Boolean,
            "title": pl.Utf8,
            "body": pl.Utf8,
            "html_url": pl.Utf8,
            "tombstone": pl.Utf8,
        },
    )


def test_issue_texts_agrees_with_recipe_and_counts_drops() -> None:
    rows = [{"number": i + 1, "title": t, "body": b} for i, (t, b, _) in enumerate(TEXT_CASES)]
    rows += [
        {"number": 90, "title": "a PR", "is_pull_request": True},
        {"number": 91, "title": "gone", "tombstone": "deleted"},
        {"number": 92, "title": "  ", "body": " \r\n "},
    ]
    texts, counters = issue_texts(_issues(rows))
    assert texts["text"].to_list() == [expected for _, _, expected in TEXT_CASES]
    assert texts["url"][0] == "https://github.com/o/r/issues/1"
    assert counters == {
        "issues_in_store": 8,
        "dropped_pull_request": 1,
        "dropped_tombstone": 1,
        "dropped_empty_text": 1,
        "issues_with_text": 5,
        "texts_with_html_comments": 0,
        "html_comments_removed": 0,
        "html_comment_chars_removed": 0,
    }


# -- redaction ----------------------------------------------------------------------------

SECRETS = [
    ("github_token", "token ghp_" + "a" * 36),
    ("github_token", "github_pat" + "_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("aws_access_key_id", "key AKIAIOSFODNN7EXAMPLE here"),
    ("aws_secret_access_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    ),
    ("authorization_header", "Authorization: Bearer abc.def-ghi_jkl"),
    ("bearer_token", "use bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"),
    ("google_api_key", "AIza" + "B" * 35),
    ("slack_token", "xoxb-123456789012-abcdefABCDEF"),
    ("huggingface_token", "hf_" + "c" * 34),
]


@pytest.mark.parametrize(("kind", "text"), SECRETS)
def test_each_secret_kind_is_redacted_and_counted(kind: str, text: str) -> None:
    redacted, counts = redact_text(text)
    assert f"[REDACTED:{kind}]" in redacted
    assert counts.get(kind) == 1
    frame, vcounts = redact_column(pl.DataFrame({"text": [text]}))
    assert frame["text"][0] == redacted  # the vectorised pass agrees with the Python one
    assert vcounts[f"redacted:{kind}"] == 1 and vcounts["redacted_total"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "ghp_short is not a token",
        "pip install scikit-learn",
        "Authorization: required",
        "see https://github.com/o/r/issues/1",
        "the bearer of bad news",
        "AKIA is a prefix",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == (text, {})


def test_redaction_keeps_the_header_name() -> None:
    text, _ = redact_text('curl -H "Authorization: token ghp_' + "z" * 36 + '"')
    assert text == 'curl -H "Authorization: token [REDACTED:github_token]"'


# -- positive pairs -------------------------------------------------------------------------


def _texts(keys: list[tuple[str, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "repo": [r for r, _ in keys],
            "number": [n for _, n in keys],
            "url": [f"https://github.com/{r}/issues/{n}" for r, n in keys],
            "text": [f"text {r} {n}" for r, n in keys],
        }
    )


def test_cluster_pairs_each_duplicate_with_the_canonical_never_itself() -> None:
    links = FixedLinks.from_rows(
        [
            ("o/r", 5, "o/r", 3),
            ("o/r", 7, "o/r", 5),  # chain 7 -> 5 -> 3: root 3
            ("o/r", 3, "o/r", 3),  # a self link: never a pair
            ("o/r", 9, "o/r", 2, "duplicate_keyword", 0.3, True, None),  # below --min-confidence
            ("o/r", 11, "o/r", 2, "duplicate_keyword", 0.9, False, "source_is_pull_request"),
            ("o/r", 12, "o/r", 40),  # target has no text
        ]
    )
    texts = _texts([("o/r", n) for n in (2, 3, 5, 7, 9, 11, 12)])
    pairs, counters = positive_pairs(links.links, texts, min_confidence=0.5)
    assert pairs.select("repo1", "number1", "repo2", "number2").rows() == [
        ("o/r", 5, "o/r", 3),
        ("o/r", 7, "o/r", 3),
    ]
    assert counters["dropped_low_confidence"] == 1
    assert counters["link_excluded:source_is_pull_request"] == 1
    assert counters["dropped_missing_text"] == 1
    assert counters["positives"] == 2


def test_mirrored_links_make_one_pair() -> None:
    links = pl.DataFrame(
        {
            "repo": ["o/r", "o/r"],
            "number": [1, 2],
            "target_repo": ["o/r", "o/r"],
            "target_number": [2, 1],
            "signal": ["k", "k"],
            "confidence": [1.0, 1.0],
            "usable": [True, True],
        }
    )
    pairs, counters = positive_pairs(links, _texts([("o/r", 1), ("o/r", 2)]))
    assert pairs.height == 1 and counters["dropped_repeated_link"] == 1


# -- references and negatives ----------------------------------------------------------------


def test_references_from_texts_comments_and_links() -> None:
    texts = _texts([("o/r", 1), ("o/r", 2), ("o/r", 3), ("x/y", 4)]).with_columns(
        pl.Series("text", ["see #2", "nothing", "dup of https://github.com/X/Y/issues/4", "plain"])
    )
    comments = pl.DataFrame({"repo": ["x/y"], "number": [4], "body": ["o/r#2 looks similar"]})
    links = pl.DataFrame(
        {"repo": ["o/r"], "number": [1], "target_repo": ["o/r"], "target_number": [3]}
    )
    index = texts.with_row_index("idx").select("idx", "repo", "number")
    keys = reference_keys(index, texts, comments, links)
    n = 4
    assert sorted(keys.tolist()) == sorted([0 * n + 1, 2 * n + 3, 1 * n + 3, 0 * n + 2])


def _assignment(repos: list[str], groups: list[int], splits: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "idx": list(range(len(repos))),
            "repo": repos,
            "number": list(range(1, len(repos) + 1)),
            "group": groups,
            "split": splits,
        }
    )


def test_negatives_avoid_clusters_references_and_repeats() -> None:
    # 0,1,2 one cluster; 3 and 4 reference each other; 5 is free. Only 3-5 pairs are valid
    # among {0..5} minus forbidden ones: count them and ask for more than exist.
    repos = ["o/r"] * 6
    assignment = _assignment(repos, [0, 0, 0, 3, 4, 5], ["train"] * 6)
    refs = np.array([3 * 6 + 4])
    frame, counters = sample_negatives(
        assignment, {"train": 20}, refs, seed=1, ratio=1.0, same_repo_share=0.8
    )
    pairs = {tuple(sorted(p)) for p in frame.select("number1", "number2").rows()}
    forbidden = {(1, 2), (1, 3), (2, 3), (4, 5)}
    assert pairs and not pairs & forbidden
    assert len(pairs) == frame.height  # no pair twice
    valid_total = 15 - len(forbidden)
    assert frame.height == valid_total and counters["negative_shortfall:train"] == 20 - valid_total
    assert (
        counters["negative_rejected_same_cluster"] > 0
        and counters["negative_rejected_reference"] > 0
    )


def test_negatives_are_mostly_same_repository_and_seeded() -> None:
    rng = np.random.default_rng(0)
    repos = [f"o/r{k}" for k in rng.integers(0, 5, 3000)]
    assignment = _assignment(repos, list(range(3000)), ["train"] * 3000)
    empty = np.empty(0, dtype=np.int64)
    first, _ = sample_negatives(
        assignment, {"train": 1000}, empty, seed=3, ratio=1.0, same_repo_share=0.8
    )
    again, _ = sample_negatives(
        assignment, {"train": 1000}, empty, seed=3, ratio=1.0, same_repo_share=0.8
    )
    other, _ = sample_negatives(
        assignment, {"train": 1000}, empty, seed=4, ratio=1.0, same_repo_share=0.8
    )
    assert first.height == 1000 and first.equals(again) and not first.equals(other)
    same = (first["repo1"] == first["repo2"]).mean()
    assert 0.78 <= same <= 0.9  # 80 % drawn in-repo plus the random ones that land in-repo
    assert ratio_ok(first)


def ratio_ok(frame: pl.DataFrame) -> bool:
    return set(frame["signal"].unique()) <= {"random_same_repo", "random_other_repo"}


def _shared_terms(texts: list[str], a: np.ndarray, b: np.ndarray) -> float:
    sets = [set(t.split()) for t in texts]
    return float(
        np.mean(
            [len(sets[i] & sets[j]) / len(sets[i] | sets[j]) for i, j in zip(a, b, strict=True)]
        )
    )


def test_hard_negatives_are_lexically_closer_than_random_ones() -> None:
    rng = np.random.default_rng(5)
    topics = [[f"topic{t}word{w}" for w in range(30)] for t in range(20)]
    texts = [
        " ".join(rng.choice(topics[i % 20], 12)) + " common words everywhere" for i in range(400)
    ]
    frame = pl.DataFrame(
        {"repo": ["o/r"] * 400, "number": list(range(1, 401)), "url": [""] * 400, "text": texts}
    )
    assignment = _assignment(
        ["o/r"] * 400, [i // 2 for i in range(400)], ["train"] * 400
    )  # pairs = clusters
    hard = HardMode(term_postings(frame.with_row_index("idx")))
    empty = np.empty(0, dtype=np.int64)
    h, counters = sample_negatives(
        assignment, {"train": 100}, empty, seed=0, ratio=1.0, same_repo_share=1.0, hard=hard
    )
    r, _ = sample_negatives(
        assignment, {"train": 100}, empty, seed=0, ratio=1.0, same_repo_share=1.0
    )
    assert h.height == 100 and counters["hard_bm25"] > 80
    hard_idx = (h["number1"].to_numpy() - 1, h["number2"].to_numpy() - 1)
    rand_idx = (r["number1"].to_numpy() - 1, r["number2"].to_numpy() - 1)
    assert _shared_terms(texts, *hard_idx) > 2 * _shared_terms(texts, *rand_idx)
    issues = IssueArrays.from_assignment(assignment)
    assert _validate(*hard_idx, issues, empty, empty, Counter()).all()  # still valid negatives


# -- splits ------------------------------------------------------------------------------------


def test_split_proportions_follow_the_paper() -> None:
    # Splits come from a hash of each cluster, so proportions hold statistically: with 20,000
    # clusters the standard deviation of a split's share is 0.2 points, the tolerance 1 point.
    rows = [("o/r", 2 * i + 1, "o/r", 2 * i + 2) for i in range(20000)]
    links = FixedLinks.from_rows(rows)
    texts = _texts(
        [("o/r", n) for n in range(1, 40001)] + [("o/r", n) for n in range(50001, 51001)]
    )
    positives, _ = positive_pairs(links.links, texts)
    groups = issue_groups(texts, positives, links.clusters)
    fractions = {"train": 18565 / 21660, "valid": 1547 / 21660, "test": 1548 / 21660}
    for seed in (0, 1, 2):
        assignment = assign_splits(groups, positives, fractions, seed=seed)
        per_split = (
            positives.join(assignment, left_on=["repo1", "number1"], right_on=["repo", "number"])
            .group_by("split")
            .len()
        )
        got = dict(per_split.iter_rows())
        for split, frac in fractions.items():
            assert abs(got[split] / 20000 - frac) <= 0.01


# -- statistics -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bert() -> Tokenizer:
    return load_tokenizer(None)


def test_token_lengths_match_the_raw_tokenizer_without_truncation() -> None:
    tokenizer = load_tokenizer(None)
    texts = ["Hello world", "word " * 700, 'fn main() { println!("{}", 1); }']
    lengths = token_lengths(tokenizer, texts, batch_size=2)
    raw = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    assert lengths.tolist() == raw
    assert lengths[0] == 4 and lengths[1] == 702  # [CLS] ... [SEP], no 128-token truncation


# ASCII texts the BERT normalizer changes: case, every control character (those it drops and the
# whitespace it keeps), a word past WordPiece's 100-character limit, punctuation runs
ASCII_CASES = [
    "",
    "UPPER lower MiXeD",
    "".join(chr(c) for c in range(128)),
    "a\x00b\x0bc\x0cd\x1ce\x1ff\x7fg\th\ni\rj",
    "Word" * 30 + " tail",
    "ICE: `rustc --version` -> 1.0.0-nightly (abc123 2015-01-01)!!!",
    "\x1f\x1f   \t\n",
]


@pytest.mark.parametrize("text", ASCII_CASES)
def test_token_counter_counts_ascii_as_the_whole_tokenizer(bert: Tokenizer, text: str) -> None:
    tokenizer = bert
    counter = TokenCounter.of(tokenizer)
    assert counter.bare is not None  # the default BERT tokenizer takes the ASCII path
    assert counter.counts([text]).tolist() == [len(tokenizer.encode(text).ids)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text(), max_size=6))
def test_token_counter_matches_encode_batch_on_any_text(bert: Tokenizer, texts: list[str]) -> None:
    tokenizer = bert
    counts = token_lengths(TokenCounter.of(tokenizer), texts, batch_size=4)
    assert counts.tolist() == [len(e.ids) for e in tokenizer.encode_batch(texts)]


def test_a_tokenizer_without_a_bert_normalizer_is_read_whole() -> None:
    from tokenizers import models, pre_tokenizers

    vocab = {"[UNK]": 0, "Hello": 1, "hello": 2, "!": 3}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    counter = TokenCounter.of(tokenizer)
    assert counter.bare is None
    texts = ["Hello hello!", "x\x00y"]
    assert counter.counts(texts).tolist() == [len(e.ids) for e in tokenizer.encode_batch(texts)]
    assert counter.counts(texts).tolist() == [3, 3]  # "x", "\x00", "y": nothing drops it


def test_unknown_tokenizer_is_a_tokenizer_error(tmp_path: Path) -> None:
    with pytest.raises(TokenizerError):
        load_tokenizer(str(tmp_path / "no-such-tokenizer"))


def test_stats_table_and_long_share(tmp_path: Path) -> None:
    pairs = pl.DataFrame(
        {
            "split": ["train", "train", "valid", "test"],
            "label": [1, 0, 1, 0],
            "repo1": ["a/b", "a/b", "c/d", "a/b"],
        }
    )
    by_split = {
        "train": np.array([10, 600, 700, 20]),
        "valid": np.array([513, 512]),
        "test": np.array([1, 2]),
    }
    stats = build_stats(pairs, by_split, 512)
    assert stats["table"]["train"] | {} == {
        **stats["table"]["train"],
        "positive": 1,
        "negative": 1,
        "total": 2,
    }
    assert stats["token_lengths"]["train"]["share_longer_than_threshold"] == 50.0
    assert stats["token_lengths"]["valid"]["share_longer_than_threshold"] == 50.0
    assert stats["token_lengths"]["train"]["paper_share_longer_than_512"] == 61.03
    assert stats["per_repository"]["a/b"]["train"] == {"positive": 1, "negative": 1}
    violin_plot(by_split, tmp_path / "plot.png")
    assert (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
