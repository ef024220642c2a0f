"""What a finished build shows a person: the paper's table beside ours, then what each stage
kept, dropped and redacted. Printed by `issues-sts build` and the demo through a reporter."""

from __future__ import annotations

import shlex

from rich.table import Table

from issues_sts.dataset.build import BuildSummary
from issues_sts.dataset.config import SPLITS


def summary_tables(summary: BuildSummary) -> tuple[Table, Table, str]:
    """The sizes table, the counters table and the line that says what to do next."""
    table = Table(title=f"dataset written to {summary.out}")
    for col in (
        "split",
        "#positive",
        "#negative",
        "total",
        "> 512 tokens",
        "paper (pos/neg/total, >512)",
    ):
        table.add_column(col, justify="left" if col == "split" else "right")
    for split in SPLITS:
        row, lengths = summary.stats["table"][split], summary.stats["token_lengths"][split]
        table.add_row(
            split,
            f"{row['positive']:,}",
            f"{row['negative']:,}",
            f"{row['total']:,}",
            f"{lengths['share_longer_than_threshold']:.2f} %",
            f"{row['paper_positive']:,}/{row['paper_negative']:,}/{row['paper_total']:,}, "
            f"{lengths['paper_share_longer_than_512']:.2f} %",
        )
    drops = Table(title="kept, dropped and redacted (all counters in stats.json)")
    drops.add_column("stage")
    drops.add_column("counter")
    drops.add_column("count", justify="right")
    for stage, counters in summary.counters.items():
        for key, value in counters.items():
            if value and (stage != "links" or not key.startswith("links_by_signal")):
                drops.add_row(stage, key, f"{value:,}")
    following = (
        f"next: datasets.load_dataset({str(summary.out)!r}) to use it, "
        f"`issues-sts push --repo-id USER/NAME --dataset {shlex.quote(str(summary.out))}` to "
        "publish it"
    )
    return table, drops, following
