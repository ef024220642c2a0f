"""The GitHub token in every malformed shape, through every way it reaches a crawl (--token,
GITHUB_TOKEN, GH_TOKEN, the GitHub CLI's hosts.yml): surrounding whitespace is dropped and the
crawl works; whitespace inside is refused with exit 5 before any request. In no case does the
token appear anywhere the process writes: stdout, stderr (with --debug tracebacks), the JSON
log, the store's files."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from issues_sts.crawl.token import api_host, clean_token, find_token, gh_token
from issues_sts.errors import BadCredentials
from issues_sts.sandbox.github.server import FakeGitHub
from issues_sts.sandbox.github.settings import FakeSettings
from issues_sts.secrets import ScrubbedStream, Scrubber
from tests.cli_process import Outcome, run
from tests.crawl_support import small_world

# a token of GitHub's shape, put together at run time so that no secret scanner takes the
# source for a leaked credential
SECRET = "ghp_" + "Q7wXk2Lm9PzR4tYv8" + "NbC3dFh6JsA1eGu5k"
CUT = 14  # where the malformed shapes put whitespace inside
# What must never be written: the token, and each long piece of a token cut by whitespace.
NEEDLES = (SECRET, SECRET[:CUT], SECRET[CUT:])

STRIPPED = {
    "trailing newline": SECRET + "\n",
    "trailing tab": SECRET + "\t",
    "CR LF": SECRET + "\r\n",
    "leading space": "  " + SECRET,
}
INSIDE = {
    "inner space": SECRET[:CUT] + " " + SECRET[CUT:],
    "inner tab": SECRET[:CUT] + "\t" + SECRET[CUT:],
    "inner CR": SECRET[:CUT] + "\r" + SECRET[CUT:] + "\n",
}
SOURCES = ("--token", "GITHUB_TOKEN", "GH_TOKEN", "gh hosts.yml")


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    settings = FakeSettings(tokens=frozenset({SECRET}))
    with FakeGitHub(small_world(repos=1, issues=20), settings) as gh:
        yield gh


def _crawl(gh: FakeGitHub, tmp: Path, source: str, shape: str, *extra: str) -> Outcome:
    args = [*extra, "crawl", "--api-url", gh.api_url, "--repo", next(iter(gh.corpus.repos))]
    args += ["--store", str(tmp / "store"), "--log", str(tmp / "log.jsonl")]
    env = {"GH_CONFIG_DIR": str(tmp / "gh")}  # never the real user's
    if source == "--token":
        args += ["--token", shape]
    elif source == "gh hosts.yml":
        (tmp / "gh").mkdir()
        hosts = {api_host(gh.api_url): {"user": "me", "oauth_token": shape}}
        (tmp / "gh" / "hosts.yml").write_text(yaml.safe_dump(hosts))
    else:
        env[source] = shape
    return run(args, **env)


def _written(result: Outcome, tmp: Path) -> dict[str, bytes]:
    """Everything the run wrote: its two streams and every file under `tmp` it made."""
    found = {"stdout": result.out.encode(), "stderr": result.err.encode()}
    for path in tmp.rglob("*"):
        if path.is_file() and path.parent.name != "gh":  # the input we planted
            found[str(path.relative_to(tmp))] = path.read_bytes()
    return found


def _assert_nowhere(result: Outcome, tmp: Path) -> None:
    for where, data in _written(result, tmp).items():
        for needle in NEEDLES:
            assert needle.encode() not in data, f"{needle[:6]}... written to {where}"


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("shape", STRIPPED, ids=str)
def test_surrounding_whitespace_is_dropped_and_the_crawl_works(
    github: FakeGitHub, tmp_path: Path, source: str, shape: str
) -> None:
    result = _crawl(github, tmp_path, source, STRIPPED[shape])
    assert result.code == 0, result.err[-2000:]
    assert "no token" not in result.err  # it crawled with the token, not anonymously
    assert (tmp_path / "log.jsonl").stat().st_size > 0 and (tmp_path / "store").is_dir()
    _assert_nowhere(result, tmp_path)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("shape", INSIDE, ids=str)
def test_whitespace_inside_is_refused_with_5_before_any_request_even_in_a_traceback(
    github: FakeGitHub, tmp_path: Path, source: str, shape: str
) -> None:
    before = len(github.log)
    result = _crawl(github, tmp_path, source, INSIDE[shape], "--debug")
    assert result.code == 5, result.err[-2000:]
    assert "Traceback" in result.err  # --debug shows it, and keeps the status
    error = result.error_lines
    assert len(error) == 1 and "inside it" in error[0]
    named = "gh's hosts.yml" if source == "gh hosts.yml" else source
    assert f"the token from {named}" in error[0]
    assert len(github.log) == before  # refused before the first request
    _assert_nowhere(result, tmp_path)


def test_a_refused_token_is_one_line_without_debug(github: FakeGitHub, tmp_path: Path) -> None:
    result = _crawl(github, tmp_path, "GITHUB_TOKEN", INSIDE["inner space"])
    assert result.code == 5 and "Traceback" not in result.err
    assert [line for line in result.err.splitlines() if line.strip()] == result.error_lines
    _assert_nowhere(result, tmp_path)


def test_a_token_the_server_rejects_stays_out_of_a_debug_traceback(
    github: FakeGitHub, tmp_path: Path
) -> None:
    wrong = SECRET[::-1]
    args = ["--debug", "crawl", "--api-url", github.api_url, "--store", str(tmp_path / "s")]
    result = run([*args, "--repo", next(iter(github.corpus.repos)), "--token", wrong + "\n"])
    assert result.code == 5 and "Traceback" in result.err and "rejected" in result.err
    assert wrong not in result.out + result.err


# -- the pieces, table-driven ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [(SECRET + "\n", SECRET), ("\t" + SECRET + "\r\n", SECRET), (SECRET, SECRET)],
)
def test_clean_token_strips(raw: str, cleaned: str) -> None:
    assert clean_token(raw, "--token") == cleaned


@pytest.mark.parametrize(
    "raw",
    [
        *INSIDE.values(),
        "",
        " \n",
        SECRET[:5] + "\x00" + SECRET[5:],
        SECRET[:20] + "\u00e9" + SECRET[20:],  # an HTTP header cannot carry it
        "e",  # masked, a one-letter "token" garbled every line written
        "0",
        SECRET[:7],
    ],
)
def test_clean_token_refuses_without_quoting(raw: str) -> None:
    with pytest.raises(BadCredentials) as caught:
        clean_token(raw, "GH_TOKEN")
    assert caught.value.exit_code == 5 and "GH_TOKEN" in caught.value.one_line()
    assert all(piece not in caught.value.one_line() for piece in NEEDLES)


@pytest.mark.parametrize("short", ["e", "0", "abc"])
def test_a_refused_short_token_leaves_the_error_line_readable(
    github: FakeGitHub, tmp_path: Path, short: str
) -> None:
    result = _crawl(github, tmp_path, "--token", short)
    assert result.code == 5 and "***" not in result.err
    assert "fewer than 8 characters" in result.error_lines[0]


@pytest.mark.parametrize(
    "url", ["http://x:{token}@127.0.0.1:9", "http://127.0.0.1:9/?access_token={token}"]
)
def test_a_token_in_the_api_url_is_refused_and_never_saved(tmp_path: Path, url: str) -> None:
    args = ["crawl", "--api-url", url.format(token=SECRET), "--repo", "a/b"]
    result = run([*args, "--store", str(tmp_path / "store")])
    assert result.code == 2 and "must not carry a user, a password or a query" in result.err
    assert not (tmp_path / "store").exists()
    _assert_nowhere(result, tmp_path)


def test_tokens_come_from_the_flag_then_the_environment_then_gh(tmp_path: Path) -> None:
    (tmp_path / "hosts.yml").write_text(
        yaml.safe_dump({"github.com": {"user": "me", "oauth_token": "from-gh-cli"}})
    )
    gh_env = {"GH_CONFIG_DIR": str(tmp_path)}
    api = "https://api.github.com"
    flag, env = {"GITHUB_TOKEN": "env-token", **gh_env}, {"GH_TOKEN": "env-token-b", **gh_env}
    assert find_token("flag-token", api, flag).source == "--token"  # type: ignore[union-attr]
    assert find_token(None, api, {"GITHUB_TOKEN": "env-token-a", **env}).value == "env-token-a"  # type: ignore[union-attr]
    assert find_token(None, api, {"GITHUB_TOKEN": " \n", **gh_env}).value == "from-gh-cli"  # type: ignore[union-attr]
    assert find_token(None, "https://ghe.example.com/api/v3", gh_env) is None  # another host
    assert find_token(None, api, {"GH_CONFIG_DIR": str(tmp_path / "none")}) is None


def test_gh_hosts_files_old_and_new(tmp_path: Path) -> None:
    path = tmp_path / "hosts.yml"
    path.write_text(yaml.safe_dump({"github.com": {"oauth_token": "old", "user": "me"}}))
    assert gh_token("github.com", path) == "old"
    users = {"users": {"me": {"oauth_token": "new"}}, "user": "me"}
    path.write_text(yaml.safe_dump({"github.com": users}))
    assert gh_token("github.com", path) == "new"
    path.write_text(yaml.safe_dump({"github.com": {"user": "me"}}))  # gh keeps it in a keyring
    assert gh_token("github.com", path) is None
    path.write_text("{not yaml")
    assert gh_token("github.com", path) is None
    assert api_host("https://api.github.com") == "github.com"
    assert api_host("https://ghe.example.com/api/v3") == "ghe.example.com"


def test_the_scrubber_knows_every_shape_and_the_stream_applies_it() -> None:
    scrub = Scrubber([INSIDE["inner tab"], STRIPPED["trailing newline"]])
    text = f"b'Bearer {SECRET}\\n' {SECRET[:CUT]} and {SECRET[CUT:]} {INSIDE['inner tab']}"
    assert all(needle not in scrub(text) for needle in NEEDLES)
    assert scrub("nothing secret, short words: ghp is") == "nothing secret, short words: ghp is"
    sink = io.StringIO()
    ScrubbedStream(sink, scrub).write(f"error: {SECRET}\n")
    assert sink.getvalue() == "error: ***\n"
