"""Publish a built dataset folder to the Hugging Face Hub in one commit.

What is pushed is exactly what `issues-sts build` wrote and listed in `manifest.json`, after
checking every file against its sha256 (a folder edited by hand is refused). Files in the
Hub repository that the build does not have any more (stale shards from an earlier, larger
build) are deleted in the same commit; `.gitattributes` is the Hub's own and is kept.

Versions: the commit goes to `main` or to a branch (created from `main` when new), and the
new revision is tagged with the build's version (`build --version`, v1, v2...) so that
`load_dataset(repo_id, revision="v1")` returns that version's rows later. A tag that already
exists is refused before anything is uploaded: a published version never changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from issues_sts.dataset.export import MANIFEST, read_manifest, sha256
from issues_sts.errors import DatasetError, HubError, HubUnreachable

KEEP_REMOTE = {".gitattributes"}


@dataclass(frozen=True)
class PushResult:
    url: str
    commit_url: str
    uploaded: tuple[str, ...]
    deleted: tuple[str, ...]
    branch: str = "main"
    tag: str | None = None


def built_files(folder: Path) -> list[str]:
    """The manifest's files (and the manifest), after verifying every hash."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise DatasetError(
            f"{folder} is not a dataset built by `issues-sts build` (no manifest.json)",
            hint="run `issues-sts build` first, or pass --dataset DIR",
        )
    for name, meta in sorted(manifest["files"].items()):
        path = folder / name
        if not path.is_file() or sha256(path) != meta["sha256"]:
            raise DatasetError(
                f"{path} differs from the build's manifest",
                hint="rebuild with `issues-sts build`; pushed data must be what the build wrote",
            )
    return sorted([*manifest["files"], "manifest.json"])


def _tag_is_new(api: Any, repo_id: str, tag: str, folder: Path) -> bool:
    """True for a new tag, False when `tag` already holds exactly this build (a repeated push
    then only commits, to clean stale files); a tag holding another build is refused."""
    tags = {ref.name for ref in api.list_repo_refs(repo_id, repo_type="dataset").tags}
    if tag not in tags:
        return True
    published = Path(
        api.hf_hub_download(repo_id, MANIFEST, repo_type="dataset", revision=tag)
    ).read_bytes()
    if published != (folder / MANIFEST).read_bytes():
        raise HubError(
            f"{repo_id} already has a version tagged {tag}, with other data",
            hint="a published version never changes: build with --dataset-version NAME (or push "
            "with --tag NAME)",
        )
    return False


def _transport_errors() -> tuple[type[Exception], ...]:
    """Connection errors of whichever HTTP library huggingface_hub runs on (httpx or httpx2)."""
    errors: list[type[Exception]] = []
    for name in ("httpx2", "httpx"):
        try:
            errors.append(__import__(name).HTTPError)
        except (ImportError, AttributeError):
            continue
    return tuple(errors)


def _describe(exc: Exception) -> str:
    """A one-line reason from a huggingface_hub error, never echoing the token."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"HTTP {status}: {first}" if status else first


def _refusal_hint(exc: Exception) -> str:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status in (401, 403):
        return "the token was refused: check that it has write access to the repository"
    if status is not None and status >= 500:
        return "the Hub failed; run the same command again later"
    return "check --repo-id and that your token has write access"


def push_dataset(
    folder: Path | str,
    repo_id: str,
    token: str | None,
    private: bool = False,
    endpoint: str | None = None,
    *,
    branch: str = "main",
    tag: str | None = None,
) -> PushResult:
    """Create `repo_id` (a dataset repository) if needed, commit the built folder to `branch`
    and tag that revision `tag` (if given)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    folder = Path(folder)
    files = built_files(folder)
    if not token:
        raise HubError(
            "no Hugging Face token",
            hint="pass --token, set HF_TOKEN, or run `hf auth login` (a token with write access)",
        )
    api = HfApi(endpoint=endpoint, token=token)
    failures: tuple[type[Exception], ...] = (OSError, ValueError)
    try:
        repo_url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        new_tag = bool(tag) and _tag_is_new(api, repo_id, str(tag), folder)
        if branch != "main":
            api.create_branch(repo_id, branch=branch, repo_type="dataset", exist_ok=True)
        remote = set(api.list_repo_files(repo_id, repo_type="dataset", revision=branch))
        stale = sorted(remote - set(files) - KEEP_REMOTE)
        operations: list[CommitOperationAdd | CommitOperationDelete] = [
            CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(folder / name))
            for name in files
        ]
        operations += [CommitOperationDelete(path_in_repo=name) for name in stale]
        version = f" {tag}" if tag else ""
        commit = api.create_commit(
            repo_id,
            operations,
            repo_type="dataset",
            revision=branch,
            commit_message=f"issues-sts push{version}: {len(files)} files, "
            f"{len(stale)} stale removed",
        )
        if new_tag and tag:
            api.create_tag(
                repo_id,
                tag=tag,
                revision=commit.oid,
                repo_type="dataset",
                tag_message=f"issues-sts dataset version {tag}",
            )
    except HfHubHTTPError as exc:
        raise HubError(
            f"the Hub refused the push to {repo_id} ({_describe(exc)})", hint=_refusal_hint(exc)
        ) from None
    except _transport_errors() as exc:  # never reached the Hub: not a token problem
        raise HubUnreachable(
            f"cannot reach the Hub at {endpoint or 'https://huggingface.co'} ({_describe(exc)})"
        ) from None
    except failures as exc:
        raise HubError(f"push to {repo_id} failed ({_describe(exc)})") from None
    return PushResult(
        url=str(repo_url),
        commit_url=commit.commit_url,
        uploaded=tuple(files),
        deleted=tuple(stale),
        branch=branch,
        tag=tag,
    )
