"""Renamed repositories are store facts: links to an old name resolve to the new home."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from issues_sts.crawl.rows import comment_rows, issue_rows
from issues_sts.errors import ConfigError
from issues_sts.links import LinkConfig, build_links
from issues_sts.links.renames import (
    aliases_from_store,
    merge_aliases,
    parse_aliases,
    record_renames,
)
from issues_sts.store import Store
from tests.conftest import cli_exit_code
from tests.test_links_stage import comment, issue

NEW = "acme/widgets"
OLD_URL = "https://github.com/oldco/widgets/issues/1"


@pytest.fixture()
def store_dir(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    with Store.open(root, create=True) as st:
        st.write_page(
            NEW,
            issues=issue_rows(NEW, [issue(1), issue(2)]),
            comments=comment_rows(NEW, [comment(2, f"Duplicate of {OLD_URL}", cid=1)]),
        )
        st.upsert_repo(NEW, current_name=NEW, status="ok")
    return root


def _targets(store_dir: Path, cfg: LinkConfig | None = None) -> list[tuple[str, int, bool]]:
    with Store.open(store_dir) as st:
        links = build_links(st, cfg or LinkConfig()).links
    return links.select("target_repo", "target_number", "usable").rows()


def test_old_name_is_missing_without_a_rename(store_dir: Path) -> None:
    assert _targets(store_dir) == [("oldco/widgets", 1, False)]


def test_a_recorded_rename_resolves(store_dir: Path) -> None:
    with Store.open(store_dir) as st:
        record_renames(st, (("oldco/widgets", NEW),))
        assert aliases_from_store(st) == (("oldco/widgets", NEW),)
    assert _targets(store_dir) == [(NEW, 1, True)]


def test_a_rename_the_crawler_saw_resolves(store_dir: Path) -> None:
    with Store.open(
        store_dir
    ) as st:  # the crawler asked for the old name; GitHub answered with the new one
        st.upsert_repo("OldCo/Widgets", current_name=NEW, status="ok")
    assert _targets(store_dir) == [(NEW, 1, True)]


def test_configured_alias_and_build_link_stage(store_dir: Path) -> None:
    assert _targets(store_dir, LinkConfig(repo_aliases=(("oldco/widgets", NEW),))) == [
        (NEW, 1, True)
    ]
    with Store.open(store_dir) as st:
        table = build_links(st, LinkConfig(repo_aliases=(("oldco/widgets", NEW),)))
    assert table.links.select("target_repo", "usable").rows() == [(NEW, True)]


_run = cli_exit_code


def test_links_extract_alias_option(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert (
        _run(
            [
                "links",
                "extract",
                "--store",
                str(store_dir),
                "--out",
                str(out),
                "--alias",
                f"oldco/widgets={NEW}",
            ]
        )
        == 0
    )
    assert pl.read_parquet(out / "links.parquet").select("target_repo", "usable").rows() == [
        (NEW, True)
    ]
    assert json.loads((out / "link_config.json").read_text())["repo_aliases"] == [
        ["oldco/widgets", NEW]
    ]


def test_link_config_json_holds_the_stores_renames(store_dir: Path, tmp_path: Path) -> None:
    with Store.open(store_dir) as st:
        record_renames(st, (("oldco/widgets", NEW),))
    assert _run(["links", "extract", "--store", str(store_dir), "--out", str(tmp_path / "o")]) == 0
    assert json.loads((tmp_path / "o" / "link_config.json").read_text())["repo_aliases"] == [
        ["oldco/widgets", NEW]
    ]


def test_build_rejects_a_bad_alias(
    store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        _run(
            [
                "build",
                "--store",
                str(store_dir),
                "--out",
                str(tmp_path / "o"),
                "--alias",
                "oldco-widgets",
            ]
        )
        == 2
    )
    assert "bad --alias" in capsys.readouterr().err


def test_merge_keeps_the_configured_one_first() -> None:
    given, known = (("a/b", "c/d"),), (("A/B", "x/y"), ("e/f", "c/d"))
    assert merge_aliases(given, known) == (("a/b", "c/d"), ("e/f", "c/d"))


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("mozilla/rust=rust-lang/rust", True),
        (" mozilla/rust = rust-lang/rust ", True),
        ("mozilla/rust", False),
        ("mozilla=rust-lang/rust", False),
        ("mozilla/rust=rust-lang/", False),
        ("a/b/c=d/e", False),
    ],
)
def test_parse_aliases(value: str, ok: bool) -> None:
    if ok:
        assert parse_aliases([value]) == (("mozilla/rust", "rust-lang/rust"),)
    else:
        with pytest.raises(ConfigError):
            parse_aliases([value])


def test_negative_sampling_reference_check_honours_renames() -> None:
    """Issues that mention each other under a repository's old name are never a negative pair."""
    import polars as pl

    from issues_sts.dataset.references import reference_keys

    texts = pl.DataFrame(
        {
            "repo": ["new/r", "new/r", "new/r"],
            "number": [1, 2, 3],
            "text": ["same crash as old/r#2", "nothing", "see https://github.com/OLD/r/issues/1"],
        }
    )
    index = texts.with_row_index("idx").select("idx", "repo", "number")
    empty = pl.DataFrame(
        schema={
            "repo": pl.Utf8,
            "number": pl.Int64,
            "target_repo": pl.Utf8,
            "target_number": pl.Int64,
        }
    )
    assert reference_keys(index, texts, None, empty).tolist() == []
    assert reference_keys(index, texts, None, empty, (("old/r", "new/r"),)).tolist() == [
        0 * 3 + 1,
        0 * 3 + 2,
    ]
