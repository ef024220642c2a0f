from __future__ import annotations

from pathlib import Path

import pytest

from issues_sts.errors import ConfigError
from issues_sts.repos import load_repos, parse_repo_name

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_repos_yaml_has_the_papers_55() -> None:
    repos = load_repos(ROOT / "repos.yaml")
    assert len(repos) == 55
    assert repos[0] == "tensorflow/tensorflow" and repos[-1] == "golang/go"
    assert "rust-lang/rust" in repos


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("repos:\n  - a/b\n  - not a repo\n", ":3: 'not a repo' is not an owner/name"),
        ("repos:\n  - a/b\n  - c/d\n  - A/B\n", ":4: A/B is listed twice (first on line 2)"),
        ("repos:\n  - a/b\n  -: [\n", ":3:"),
        ("repo:\n  - a/b\n", ":1: unknown key 'repo'"),
        ("repos: rust-lang/rust\n", ":1: expected a list"),
        ("repos:\n  - {x: 1}\n", ":2: expected owner/name"),
        ("repos: []\n", "no repositories listed"),
        ("repos:\n  - -bad/name\n", ":2:"),
        ("repos:\n  - owner/..\n", ":2:"),
        ("repos:\n  - a/b\nrepos:\n  - c/d\n", ":3: the key 'repos' appears twice"),
    ],
)
def test_malformed_repos_file_is_one_line_naming_the_line(
    tmp_path: Path, text: str, fragment: str
) -> None:
    path = tmp_path / "repos.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_repos(path)
    line = info.value.one_line()
    assert "\n" not in line
    assert fragment in line


def test_bare_list_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("- a/b\n- c/d.e_f\n")
    assert load_repos(path) == ("a/b", "c/d.e_f")
    with pytest.raises(ConfigError, match="does not exist"):
        load_repos(tmp_path / "missing.yaml")


def test_parse_repo_name() -> None:
    assert parse_repo_name(" rust-lang/rust ") == "rust-lang/rust"
    with pytest.raises(ConfigError):
        parse_repo_name("rust-lang")


@pytest.mark.parametrize("name", ["mjl-/mox", "a--b/c", "x/y"])
def test_legacy_owner_names_github_still_serves_are_accepted(name: str) -> None:
    # accounts made before GitHub forbade a trailing or doubled hyphen keep their names
    assert parse_repo_name(name) == name


@pytest.mark.parametrize("name", ["-mjl/mox", "a/", "/b", "a b/c", "a" * 40 + "/c", "a/b/c"])
def test_owner_names_github_never_allowed_are_refused(name: str) -> None:
    with pytest.raises(ConfigError, match="owner/name"):
        parse_repo_name(name)


def test_a_repos_file_that_is_not_text_or_not_a_file_is_a_config_error(tmp_path: Path) -> None:
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8 text") as info:
        load_repos(binary)
    assert info.value.exit_code == 2
    (tmp_path / "dir.yaml").mkdir()
    with pytest.raises(ConfigError, match="is a folder"):
        load_repos(tmp_path / "dir.yaml")


def test_a_repository_given_twice_on_the_command_line_is_refused() -> None:
    from pydantic import ValidationError

    from issues_sts.crawl.config import CrawlConfig

    with pytest.raises(ValidationError, match="given twice"):
        CrawlConfig(repos=("a/b", "c/d", "A/B"))
