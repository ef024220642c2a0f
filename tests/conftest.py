from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ISSUES_STS_SHARED", ROOT.parent / "shared"))
RUST_ARCHIVE = SHARED / "data" / "rust-issue-archive"

# Tests never reach the network: every model and dataset comes from disk.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(
            f"../shared is absent ({SHARED}); these tests use third-party reference material"
        )
    return SHARED


@pytest.fixture(scope="session")
def rust_archive(shared_dir: Path) -> Path:
    if not (RUST_ARCHIVE / "main.jsonl.gz").exists():
        pytest.skip(f"the rust issue archive is absent ({RUST_ARCHIVE})")
    return RUST_ARCHIVE


@pytest.fixture
def one_torch_thread():
    """Two torch threads on a shared 2-core machine spin against other jobs (15x slower)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def cli_exit_code(argv: list[str]) -> int:
    """Run `issues-sts ARGV` in-process and return its exit code."""
    from issues_sts.cli.app import main

    try:
        main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
