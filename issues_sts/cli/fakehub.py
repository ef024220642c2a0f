"""`issues-sts fake-hub`: serve a loopback fake of the Hugging Face Hub, to try `push` (and
`load_dataset` of what was pushed) without a network or an account. The sandbox is imported
only when the command runs."""

from __future__ import annotations

import signal
import threading

import typer

from issues_sts.cli.common import console, out, quiet_option
from issues_sts.errors import ConfigError

DEFAULT_TOKEN = "hf_fake_token"

HELP = f"""Serve a fake Hugging Face Hub on 127.0.0.1 until Ctrl-C: repositories, commits,
branches, tags, LFS uploads and downloads, in memory. Point `issues-sts push` at the printed
URL with HF_ENDPOINT (and HF_HUB_DISABLE_XET=1: the fake speaks LFS, not Xet).

Examples:

    issues-sts fake-hub --port 8766

    HF_ENDPOINT=http://127.0.0.1:8766 HF_HUB_DISABLE_XET=1 HF_TOKEN={DEFAULT_TOKEN}
        issues-sts push --dataset data/demo/dataset --repo-id me/gis

    issues-sts fake-hub --no-lfs    # every file inline in the commit (a client with Xet on)

What was pushed is gone when the server stops.
"""


def fake_hub_command(
    port: int = typer.Option(
        0, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one, printed)."
    ),
    token: str = typer.Option(
        DEFAULT_TOKEN, "--token", help="The write token the fake accepts (HF_TOKEN of the push)."
    ),
    no_lfs: bool = typer.Option(
        False, "--no-lfs", help="Commit every file inline (for clients with Xet on)."
    ),
    quiet: bool = quiet_option(),
) -> None:
    from issues_sts.sandbox.hub import serve_fake_hub

    serving = serve_fake_hub(token=token, port=port, lfs=not no_lfs)
    try:
        hub = serving.__enter__()
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror}", hint="choose another --port, or 0"
        ) from None
    try:
        out.print(f"hub url: {hub.url}")
        out.print(f"token:   {token}")
        out.print(
            f"push:    HF_ENDPOINT={hub.url} HF_HUB_DISABLE_XET=1 HF_TOKEN={token} "
            "issues-sts push --dataset DIR --repo-id me/gis",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        if not quiet:
            console.print("serving until Ctrl-C (what was pushed is kept in memory only)")
        _wait_for_a_stop()
        console.print(f"stopped; {len(hub.repos)} repositories were pushed to")
    finally:
        serving.__exit__(None, None, None)


def _wait_for_a_stop() -> None:
    """Until Ctrl-C or SIGTERM: a shell may start us with SIGINT ignored (`&`)."""
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass


def register(app: typer.Typer) -> None:
    """Add `fake-hub` to `app`."""
    app.command("fake-hub", help=HELP)(fake_hub_command)
