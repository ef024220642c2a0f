"""`issues-sts diff OLD NEW`: what changed between two builds of the dataset."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from issues_sts.cli.common import console, env_token, out

HELP = """Compare two builds (folders, or Hub ids with an optional @revision): pairs added and
removed per split, issues that changed split (0 except for counted merges when the new build
used --previous), duplicate links gained and lost with their evidence, and the token-length
shift. Prints a table; --json writes everything (with examples) as JSON ('-' for stdout).
`issues-sts build --previous` puts the same report in the new card and in changes.json.

Examples:

    issues-sts diff data/dataset-v1 data/dataset-v2

    issues-sts diff me/github-issue-similarity@v1 me/github-issue-similarity@v2 --json changes.json
"""


def diff_command(
    old: str = typer.Argument(..., help="Earlier build: folder or Hub id[@revision]."),
    new: str = typer.Argument(..., help="Later build: folder or Hub id[@revision]."),
    json_path: str | None = typer.Option(
        None, "--json", help="Write the full report as JSON to this file ('-': stdout)."
    ),
) -> None:
    from issues_sts.dataset.diff import PAIR_HEADER, diff_builds, pair_rows
    from issues_sts.hub.fetch import locate_build

    token = env_token("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
    report = diff_builds(locate_build(old, token=token), locate_build(new, token=token))
    table = Table(
        title=f"{old} ({report['old_version'] or '?'}) -> {new} ({report['new_version'] or '?'})"
    )
    for i, name in enumerate(PAIR_HEADER):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in pair_rows(report):
        table.add_row(*row)
    console.print(table)
    console.print(
        f"issues that changed split: {report['issues_changed_split']:,}; merges across splits: "
        f"{report['merged_clusters']:,} clusters ({report['merge_left_out_issues']:,} earlier "
        f"issues left out, {report['merge_dropped_positives']:,} positives dropped)"
    )
    console.print(
        f"duplicate links gained: {report['links_gained']:,}; lost: {report['links_lost']:,}"
    )
    for label, key in (("gained", "links_gained_examples"), ("lost", "links_lost_examples")):
        for link in report[key][:5]:
            console.print(
                f"  {label}: {link['repo']}#{link['number']} -> "
                f"{link['target_repo']}#{link['target_number']} "
                f"({link.get('signal')}, {link.get('evidence_url')})"
            )
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False)
    if json_path == "-":
        out.print(text, markup=False, highlight=False)
    elif json_path:
        Path(json_path).write_text(text + "\n", encoding="utf-8")
        console.print(f"full report: {json_path}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("diff", help=HELP)(diff_command)
