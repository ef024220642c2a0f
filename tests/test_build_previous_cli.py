"""`issues-sts build --previous` from the console script: a Hub id is downloaded (through the
real huggingface_hub client, from a loopback fake Hub) before the build starts, and the card
and build_config.json keep the id as the user gave it; what is not an earlier build is refused
on one line with the dataset's exit status (6), a Hub that cannot serve it with the Hub's (7)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import BuildConfig
from issues_sts.sandbox.hub import FakeHub, serve_fake_hub
from tests.cli_process import run
from tests.dataset_store import make_store

TOKEN = "hf_fake_previous_token_0123456789"
REPO = "tester/github-issue-similarity"


@pytest.fixture(scope="module")
def v1(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("previous")
    store = make_store(root / "store")
    run_build(BuildConfig(store=store, out=root / "v1", seed=7))
    return store, root / "v1"


@pytest.fixture()
def hub() -> Iterator[FakeHub]:
    with serve_fake_hub(token=TOKEN) as fake:
        yield fake


def _hub_env(hub: FakeHub, tmp_path: Path) -> dict[str, str]:
    return {
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_DISABLE_XET": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_TOKEN": TOKEN,
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    }


def test_a_hub_id_is_built_from_and_kept_as_given(
    v1: tuple[Path, Path], hub: FakeHub, tmp_path: Path
) -> None:
    store, folder = v1
    # pushed by a process of its own: huggingface_hub reads the endpoint and offline mode once,
    # when first imported, and this test process may have imported it offline already
    pushed = run(["push", "--repo-id", REPO, "--dataset", str(folder)], **_hub_env(hub, tmp_path))
    assert pushed.code == 0 and hub.files_at("dataset", REPO, "v1"), pushed.err
    out = tmp_path / "v2"
    args = ["build", "--store", str(store), "--out", str(out), "--seed", "7", "--quiet"]
    result = run([*args, "--previous", f"{REPO}@v1"], **_hub_env(hub, tmp_path))
    assert result.code == 0, result.err
    config = json.loads((out / "build_config.json").read_text())
    assert (config["previous"], config["version"]) == (f"{REPO}@v1", "v2")
    assert f"`{REPO}@v1`" in (out / "README.md").read_text()
    changes = json.loads((out / "changes.json").read_text())
    assert changes["old_version"] == "v1"


def test_an_unknown_hub_revision_is_the_hubs_error(
    v1: tuple[Path, Path], hub: FakeHub, tmp_path: Path
) -> None:
    store, _ = v1
    out = tmp_path / "v2"
    args = ["build", "--store", str(store), "--out", str(out), "--previous", f"{REPO}@v9"]
    result = run(args, **_hub_env(hub, tmp_path))
    assert result.code == 7, result.err
    assert len(result.error_lines) == 1 and f"cannot read {REPO}@v9" in result.error_lines[0]
    assert not out.exists()


@pytest.mark.parametrize(
    ("previous", "said"),
    [
        ("{tmp}/absent-build", "no build folder"),
        ("{tmp}", "is not a folder written by `issues-sts build` (no pairs.parquet)"),
    ],
)
def test_what_is_not_an_earlier_build_is_refused(
    v1: tuple[Path, Path], tmp_path: Path, previous: str, said: str
) -> None:
    store, _ = v1
    out = tmp_path / "v2"
    ref = previous.format(tmp=tmp_path)
    result = run(["build", "--store", str(store), "--out", str(out), "--previous", ref])
    assert result.code == 6, result.err
    assert len(result.error_lines) == 1 and said in result.error_lines[0]
    assert not out.exists()


def test_a_build_that_would_replace_the_version_it_continues_is_refused(
    v1: tuple[Path, Path], tmp_path: Path
) -> None:
    store, built = v1
    copy = tmp_path / "v1"
    shutil.copytree(built, copy)
    before = {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()}
    for out in (copy, tmp_path / "." / "v1"):  # the same folder, however it is spelled
        args = ["build", "--store", str(store), "--out", str(out), "--previous", str(copy)]
        result = run(args)
        assert result.code == 2, result.err
        assert "--out and --previous are the same folder" in result.error_lines[0]
    assert {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()} == before
