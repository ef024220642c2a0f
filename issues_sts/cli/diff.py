"""`issues-sts diff OLD NEW`: what changed between two builds of the dataset."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from issues_sts.cli.common import console, env_token, out, quiet_option
from issues_sts.errors import OutputError, os_errors

HELP = """Compare two builds (folders, or Hub ids with an optional @revision): pairs added and
removed per split, issues that changed split, duplicate links gained and lost with their
evidence, and the token-length shift. Prints a table; --json prints everything (with examples)
as JSON on stdout instead, --json-out FILE writes it to a file.
`issues-sts build --previous` puts the same report in the new card and in changes.json.

Issues that changed split: with the same seed, only clusters the balancing moved (counted as
balanced_groups) and, when the new build used --previous, none but counted merges. Builds
made with different seeds draw their splits differently, and the report says so.

Examples:

    issues-sts diff data/dataset-v1 data/dataset-v2

    issues-sts diff me/issue-pairs@v1 me/issue-pairs@v2 --json-out changes.json

    issues-sts diff data/dataset-v1 data/dataset-v2 --json
"""


def diff_command(
    old: str = typer.Argument(..., help="Earlier build: folder or Hub id[@revision]."),
    new: str = typer.Argument(..., help="Later build: folder or Hub id[@revision]."),
    as_json: bool = typer.Option(
        False, "--json", help="Print the full report as JSON on stdout instead of the table."
    ),
    json_out: Path | None = typer.Option(
        None, "--json-out", help="Also write the full report as JSON to this file."
    ),
    quiet: bool = quiet_option(),
) -> None:
    from issues_sts.dataset.diff import PAIR_HEADER, diff_builds, pair_rows, seed_note
    from issues_sts.hub.fetch import locate_build

    token = env_token("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
    report = diff_builds(locate_build(old, token=token), locate_build(new, token=token))
    text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    if json_out is not None:
        with os_errors(OutputError, f"--json-out {json_out} cannot be written"):
            json_out.write_text(text + "\n", encoding="utf-8")
    if as_json:
        out.print(text, markup=False, highlight=False)
        return
    table = Table(
        title=f"{old} ({report['old_version'] or '?'}) -> {new} ({report['new_version'] or '?'})"
    )
    for i, name in enumerate(PAIR_HEADER):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in pair_rows(report):
        table.add_row(*row)
    out.print(table)
    moved = f"issues that changed split: {report['issues_changed_split']:,}"
    note = seed_note(report)
    out.print(
        f"{moved}{f' ({note})' if note else ''}; merges across splits: "
        f"{report['merged_clusters']:,} clusters ({report['merge_left_out_issues']:,} earlier "
        f"issues left out, {report['merge_dropped_positives']:,} positives dropped)",
        markup=False,
    )
    out.print(f"duplicate links gained: {report['links_gained']:,}; lost: {report['links_lost']:,}")
    for label, key in (("gained", "links_gained_examples"), ("lost", "links_lost_examples")):
        for link in report[key][:5]:
            out.print(
                f"  {label}: {link['repo']}#{link['number']} -> "
                f"{link['target_repo']}#{link['target_number']} "
                f"({link.get('signal')}, {link.get('evidence_url')})",
                markup=False,
            )
    if json_out is not None:
        console.print(f"full report: {json_out}", markup=False)


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("diff", help=HELP)(diff_command)
