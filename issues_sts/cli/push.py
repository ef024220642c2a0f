"""`issues-sts push`: publish a built dataset folder to the Hugging Face Hub."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.table import Table

from issues_sts.cli.common import DEFAULT_OUT, console, env_token, out, quiet_option
from issues_sts.errors import ConfigError, interruption
from issues_sts.secrets import SCRUB

HELP = """Upload the dataset folder written by `issues-sts build` to a Hugging Face dataset
repository, in one commit: the repository is created if needed, every built file is uploaded
(after checking it against manifest.json) and files the build no longer has are deleted.
The revision is tagged with the build's version (`build --dataset-version`, default v1,
then v2... with `--previous`), so `load_dataset(REPO, revision="v1")` gets a version back.
Prints the dataset URL.

Examples:

    HF_TOKEN=hf_... issues-sts push --repo-id me/github-issue-similarity

    issues-sts push --repo-id me/gis --private --token hf_... --dataset data/dataset

    issues-sts push --repo-id me/gis --dataset data/dataset-v2 --branch next --tag v2-rc1
"""


def push_command(
    repo_id: str = typer.Option(..., "--repo-id", help="Target dataset repository, user/name."),
    private: bool = typer.Option(False, "--private", help="Create the repository as private."),
    token: str | None = typer.Option(
        None,
        "--token",
        help="Hugging Face token with write access (default: $HF_TOKEN, "
        "then the token saved by `hf auth login`).",
    ),
    dataset: Path = typer.Option(
        DEFAULT_OUT, "--dataset", help="The folder `issues-sts build` wrote."
    ),
    branch: str = typer.Option(
        "main", "--branch", help="Branch to commit to (created from main if new)."
    ),
    tag: str | None = typer.Option(
        None,
        "--tag",
        help="Tag for the pushed revision (default: the build's version; "
        "'' for none). A tag that holds other data is refused.",
    ),
    quiet: bool = quiet_option(),
) -> None:
    from issues_sts.dataset.previous import build_version
    from issues_sts.hub.push import push_dataset

    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise ConfigError(
            f"--repo-id {repo_id!r} is not of the form user/name",
            hint="e.g. --repo-id me/github-issues",
        )
    endpoint = os.environ.get("HF_ENDPOINT") or None
    if quiet:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if token is not None:
        SCRUB.add(token)
        token = token.strip()
    try:
        result = push_dataset(
            dataset,
            repo_id,
            token or env_token("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN") or _saved_token(),
            private=private,
            endpoint=endpoint,
            branch=branch,
            tag=build_version(dataset) if tag is None else (tag or None),
        )
    except KeyboardInterrupt as exc:
        raise interruption(exc)(
            kept="nothing half-pushed: the files go up as one commit, made at the end",
            hint="run the same command again",
        ) from None
    table = Table(title=f"pushed {dataset} to {repo_id}")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("files uploaded", str(len(result.uploaded)))
    table.add_row("stale files deleted", str(len(result.deleted)))
    table.add_row("branch", result.branch)
    table.add_row("tag", result.tag or "(none)")
    console.print(table)
    console.print(f"commit: {result.commit_url}")
    out.print(result.url)


def _saved_token() -> str | None:
    """The token `hf auth login` (or the older `huggingface-cli login`) saved, if any."""
    from huggingface_hub import get_token

    return get_token()


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("push", help=HELP)(push_command)
