"""`issues-sts push` through the real huggingface_hub client against a loopback fake Hub,
then `datasets.load_dataset` of the pushed repository through the same fake."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from issues_sts.dataset.build import run_build
from issues_sts.dataset.config import SPLITS, BuildConfig
from issues_sts.errors import DatasetError
from issues_sts.hub.push import push_dataset
from issues_sts.sandbox.hub import FakeHub, StoredFile, serve_fake_hub
from tests.dataset_store import make_store

TOKEN = "hf_fake_push_token_0123456789"
REPO = "tester/github-issue-similarity"

LOAD = """
import json, sys, datasets
out = {}
for config in ("default", "positive", "corpus"):
    d = datasets.load_dataset(sys.argv[1], config)
    out[config] = {
        s: {"features": {k: v.dtype for k, v in d[s].features.items()}, "rows": d[s].to_list()}
        for s in d
    }
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("push")
    out = root / "dataset"
    run_build(BuildConfig(store=make_store(root / "store"), out=out))
    return out


@pytest.fixture()
def hub() -> Iterator[FakeHub]:
    with serve_fake_hub(token=TOKEN) as fake:
        yield fake


def _env(hub: FakeHub, tmp_path: Path, token: str | None = TOKEN) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env |= {
        "HF_ENDPOINT": hub.url,
        "HF_HUB_DISABLE_XET": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_COLOR": "1",
    }
    if token:
        env["HF_TOKEN"] = token
    return env


def _push(
    hub: FakeHub, tmp_path: Path, *args: str, token: str | None = TOKEN
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "issues_sts.cli.app", "push", "--repo-id", REPO, *args]
    return subprocess.run(
        cmd, env=_env(hub, tmp_path, token), capture_output=True, text=True, timeout=120
    )


def test_push_then_load_returns_the_same_rows(built: Path, hub: FakeHub, tmp_path: Path) -> None:
    result = _push(hub, tmp_path, "--dataset", str(built))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{hub.url}/datasets/{REPO}"
    remote = hub.files("dataset", REPO)
    local = {
        p.relative_to(built).as_posix(): p.read_bytes() for p in built.rglob("*") if p.is_file()
    }
    assert {k: v for k, v in remote.items() if k != ".gitattributes"} == local  # exactly the folder
    assert len(hub.repos[("dataset", REPO)].commits) == 2  # creation + one commit
    shard = local["data/train-00000-of-00001.parquet"]
    assert hashlib.sha256(shard).hexdigest() in hub.lfs  # parquet went through Git LFS

    loaded = subprocess.run(
        [sys.executable, "-c", LOAD, REPO],
        env=_env(hub, tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    got = json.loads(loaded.stdout)
    pairs = pl.read_parquet(built / "pairs.parquet")
    for split in SPLITS:
        part = pairs.filter(pl.col("split") == split)
        assert got["default"][split]["rows"] == part.select("text1", "text2", "label").to_dicts()
        assert got["default"][split]["features"] == {
            "text1": "string",
            "text2": "string",
            "label": "int64",
        }
        positives = part.filter(pl.col("label") == 1)
        assert (
            got["positive"][split]["rows"]
            == positives.select(
                pl.col("text1").alias("anchor"), pl.col("text2").alias("positive")
            ).to_dicts()
        )
    # the retrieval view is published too, and loads as its three configs
    corpus = pl.read_parquet(built / "corpus" / "corpus-00000-of-00001.parquet")
    assert got["corpus"]["corpus"]["rows"] == corpus.to_dicts()
    # no query in this store has an earlier duplicate: empty configs are not declared (the
    # `datasets` library refuses to load an empty split)
    assert "config_name: queries" not in (built / "README.md").read_text()


def test_second_push_deletes_stale_shards(built: Path, hub: FakeHub, tmp_path: Path) -> None:
    assert _push(hub, tmp_path, "--dataset", str(built), "--private").returncode == 0
    repo = hub.repos[("dataset", REPO)]
    assert repo.private
    sha, files = repo.commits[-1]
    repo.commits.append(
        ("f" * 40, {**files, "data/train-00001-of-00002.parquet": StoredFile(b"old", lfs=True)})
    )
    result = _push(hub, tmp_path, "--dataset", str(built))
    assert result.returncode == 0, result.stderr
    assert "data/train-00001-of-00002.parquet" not in hub.files("dataset", REPO)
    assert ".gitattributes" in hub.files("dataset", REPO)


def test_rejected_token_is_one_line_and_never_echoed(
    built: Path, hub: FakeHub, tmp_path: Path
) -> None:
    bad = "hf_this_token_is_wrong_987654321"
    result = _push(hub, tmp_path, "--dataset", str(built), "--token", bad, token=None)
    assert result.returncode == 7
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("error:") and "Traceback" not in result.stderr
    assert bad not in result.stderr + result.stdout
    assert ("dataset", REPO) not in hub.repos


def test_folder_that_is_not_a_build_is_refused(hub: FakeHub, tmp_path: Path) -> None:
    (tmp_path / "random").mkdir()
    (tmp_path / "random" / "data.csv").write_text("a,b\n")
    with pytest.raises(DatasetError, match="not a dataset built by"):
        push_dataset(tmp_path / "random", REPO, TOKEN, endpoint=hub.url)
    assert not hub.repos


def test_tampered_build_is_refused(built: Path, hub: FakeHub, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    (copy / "README.md").write_text("edited by hand\n")
    with pytest.raises(DatasetError, match="differs from the build's manifest"):
        push_dataset(copy, REPO, TOKEN, endpoint=hub.url)
    assert not hub.repos


IN_PROCESS = """
import json, sys
from pathlib import Path
from issues_sts.sandbox.hub import serve_fake_hub
from issues_sts.hub.push import push_dataset
with serve_fake_hub(token=sys.argv[2], lfs=False) as fake:
    result = push_dataset(Path(sys.argv[1]), sys.argv[3], sys.argv[2], endpoint=fake.url)
    files = {k: v.hex() for k, v in fake.files("dataset", sys.argv[3]).items()}
    print(json.dumps({"url": result.url, "base": fake.url, "files": files, "lfs": len(fake.lfs)}))
"""


def test_in_process_push_with_xet_on_commits_regular_files(built: Path, tmp_path: Path) -> None:
    # What the offline demo does: one process, server and client together, Xet left on.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env |= {
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "HF_HUB_OFFLINE": "0",
    }
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(built), TOKEN, REPO],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["url"] == f"{got['base']}/datasets/{REPO}" and got["lfs"] == 0
    local = {
        p.relative_to(built).as_posix(): p.read_bytes().hex()
        for p in built.rglob("*")
        if p.is_file()
    }
    assert {k: v for k, v in got["files"].items() if k != ".gitattributes"} == local


def test_the_token_saved_by_hf_auth_login_is_used(
    built: Path, hub: FakeHub, tmp_path: Path
) -> None:
    env = _env(hub, tmp_path, token=None)
    token_file = Path(env["HF_HOME"]) / "token"  # where `hf auth login` saves it
    token_file.parent.mkdir(parents=True, exist_ok=True)
    token_file.write_text(TOKEN)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "issues_sts.cli.app",
            "push",
            "--repo-id",
            REPO,
            "--dataset",
            str(built),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert ("dataset", REPO) in hub.repos


def test_an_unreachable_hub_is_not_called_a_token_problem(built: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env |= {
        "HF_ENDPOINT": f"http://127.0.0.1:{port}",
        "HF_TOKEN": TOKEN,
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_DISABLE_XET": "1",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "issues_sts.cli.app",
            "push",
            "--repo-id",
            REPO,
            "--dataset",
            str(built),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 7
    line = " ".join(result.stderr.split())
    assert line.startswith("error: cannot reach the Hub") and "network" in line
    assert "token" not in line.split("(")[-1] and TOKEN not in result.stderr


def test_a_folder_that_is_not_a_build_is_a_dataset_problem(tmp_path: Path) -> None:
    (tmp_path / "random").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))} | {
        "HF_TOKEN": TOKEN
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "issues_sts.cli.app",
            "push",
            "--repo-id",
            REPO,
            "--dataset",
            str(tmp_path / "random"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 6 and "no manifest.json" in result.stderr
