"""What changed between two builds: pairs per split, issues that changed split, duplicate
links gained and lost (with their evidence), and the token-length shift.

`diff_builds(old, new)` reads two build folders (see `hub.fetch.locate_build` for Hub ids)
and returns a plain dict, the JSON `issues-sts diff --json` prints and `changes.json` holds;
`render_markdown` is the card's "Changes since vN" section.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from issues_sts.dataset.config import SPLITS
from issues_sts.dataset.export import read_parquet

PAIR_KEY = ["split", "label", "repo1", "number1", "repo2", "number2"]
LINK_KEY = ["repo", "number", "target_repo", "target_number"]
LINK_EVIDENCE = ["signal", "evidence_url"]
EXAMPLES = 20


def _pairs(folder: Path) -> pl.DataFrame:
    return read_parquet(folder / "pairs.parquet", columns=PAIR_KEY)


def _usable_links(folder: Path) -> pl.DataFrame:
    path = folder / "links.parquet"
    if not path.is_file():
        return pl.DataFrame(
            schema={
                "repo": pl.Utf8,
                "number": pl.Int64,
                "target_repo": pl.Utf8,
                "target_number": pl.Int64,
                "signal": pl.Utf8,
                "evidence_url": pl.Utf8,
            }
        )
    links = read_parquet(path, needs=(*LINK_KEY, "usable"))
    keep = [c for c in (*LINK_KEY, *LINK_EVIDENCE) if c in links.columns]
    return links.filter(pl.col("usable")).select(keep).unique(LINK_KEY, keep="first").sort(LINK_KEY)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _issue_splits(pairs: pl.DataFrame) -> pl.DataFrame:
    return pl.concat(
        [
            pairs.select(pl.col("repo1").alias("repo"), pl.col("number1").alias("number"), "split"),
            pairs.select(pl.col("repo2").alias("repo"), pl.col("number2").alias("number"), "split"),
        ]
    ).unique()


def _pair_changes(old: pl.DataFrame, new: pl.DataFrame) -> dict[str, dict[str, int]]:
    added = new.join(old, on=PAIR_KEY, how="anti")
    removed = old.join(new, on=PAIR_KEY, how="anti")
    out = {}
    for split in SPLITS:
        a, r = added.filter(pl.col("split") == split), removed.filter(pl.col("split") == split)
        out[split] = {
            "added": a.height,
            "removed": r.height,
            "positives_added": a.filter(pl.col("label") == 1).height,
            "positives_removed": r.filter(pl.col("label") == 1).height,
        }
    return out


def _moved(old: pl.DataFrame, new: pl.DataFrame) -> pl.DataFrame:
    both = _issue_splits(old).join(_issue_splits(new), on=["repo", "number"], suffix="_new")
    return both.filter(pl.col("split") != pl.col("split_new")).sort("repo", "number")


def _link_rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.head(EXAMPLES).to_dicts()


def _lengths(stats: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return stats.get("token_lengths", {}) if stats else {}


def _length_shift(old: dict[str, Any], new: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {}
    a, b = _lengths(old), _lengths(new)
    for split in SPLITS:
        row: dict[str, float | None] = {}
        for key in ("texts", "mean", "p50", "p95", "share_longer_than_threshold"):
            x, y = a.get(split, {}).get(key), b.get(split, {}).get(key)
            row[f"old_{key}"], row[f"new_{key}"] = x, y
        out[split] = row
    return out


def diff_builds(old: Path, new: Path) -> dict[str, Any]:
    """Everything `issues-sts diff OLD NEW` reports, as a JSON-ready dict."""
    old_pairs, new_pairs = _pairs(old), _pairs(new)
    moved = _moved(old_pairs, new_pairs)
    old_links, new_links = _usable_links(old), _usable_links(new)
    gained = new_links.join(old_links.select(LINK_KEY), on=LINK_KEY, how="anti")
    lost = old_links.join(new_links.select(LINK_KEY), on=LINK_KEY, how="anti")
    old_stats, new_stats = _read_json(old / "stats.json"), _read_json(new / "stats.json")
    splits_counters = new_stats.get("counters", {}).get("splits", {})
    old_config, new_config = (
        _read_json(old / "build_config.json"),
        _read_json(new / "build_config.json"),
    )
    return {
        "old_version": old_config.get("version"),
        "new_version": new_config.get("version"),
        "old_seed": old_config.get("seed"),
        "new_seed": new_config.get("seed"),
        "pairs": _pair_changes(old_pairs, new_pairs),
        "issues_changed_split": moved.height,
        "issues_changed_split_examples": moved.head(EXAMPLES).to_dicts(),
        "merged_clusters": int(splits_counters.get("merged_clusters", 0)),
        "merge_left_out_issues": int(splits_counters.get("merge_left_out_issues", 0)),
        "merge_dropped_positives": int(splits_counters.get("merge_dropped_positives", 0)),
        "links_gained": gained.height,
        "links_lost": lost.height,
        "links_gained_examples": _link_rows(gained),
        "links_lost_examples": _link_rows(lost),
        "token_lengths": _length_shift(old_stats, new_stats),
    }


def seed_note(diff: dict[str, Any]) -> str | None:
    """Why issues changing split need not mean a problem: the two builds drew their splits
    with different seeds (None when the seeds are the same or unknown)."""
    old, new = diff.get("old_seed"), diff.get("new_seed")
    if old is None or new is None or old == new:
        return None
    return (
        f"the builds used different seeds ({old} and {new}): their splits are drawn "
        "differently, so issues changing split is expected"
    )


def _fmt(value: Any, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}" if isinstance(value, (int, float)) else str(value)


def pair_rows(diff: dict[str, Any]) -> list[list[str]]:
    """Per split: pairs added/removed (positives among them), median and > threshold shift."""
    rows = []
    for split in SPLITS:
        p, t = diff["pairs"][split], diff["token_lengths"][split]
        rows.append(
            [
                split,
                f"+{p['added']:,} / -{p['removed']:,}",
                f"+{p['positives_added']:,} / -{p['positives_removed']:,}",
                f"{_fmt(t['old_p50'])} -> {_fmt(t['new_p50'])}",
                f"{_fmt(t['old_share_longer_than_threshold'], 2)} -> "
                f"{_fmt(t['new_share_longer_than_threshold'], 2)} %",
            ]
        )
    return rows


PAIR_HEADER = ["split", "pairs +/-", "positives +/-", "median tokens", "> 512 tokens"]


def render_markdown(diff: dict[str, Any]) -> str:
    """The card's "Changes since vN" section."""
    old = diff.get("old_version") or "the previous build"
    lines = [
        f"## Changes since {old}",
        "",
        "| " + " | ".join(PAIR_HEADER) + " |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in pair_rows(diff)]
    note = seed_note(diff)
    lines += [
        "",
        f"- Issues that changed split: {diff['issues_changed_split']:,} "
        + (f"({note}; " if note else "(")
        + "merges across splits: "
        f"{diff['merged_clusters']:,} clusters, "
        f"{diff['merge_left_out_issues']:,} earlier issues left out of this version, "
        f"{diff['merge_dropped_positives']:,} positive pairs dropped).",
        f"- Duplicate links gained: {diff['links_gained']:,}; lost: {diff['links_lost']:,}.",
        "",
        "All of it, with examples and evidence, is in `changes.json`.",
    ]
    return "\n".join(lines)
