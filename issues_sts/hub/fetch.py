"""Read an earlier build back: a local folder, or a Hub dataset id at a revision.

`--previous` and `issues-sts diff` take either. A Hub id may name a revision after ``@``
(a tag such as ``v1``, a branch or a commit); only the files that describe a build are
downloaded (pairs, links, statistics, configuration, card), not the shards.
"""

from __future__ import annotations

import re
from pathlib import Path

from issues_sts.dataset.previous import build_folder
from issues_sts.errors import DatasetError, HubError

BUILD_FILES = ("pairs.parquet", "links.parquet", "stats.json", "build_config.json", "README.md")
_HUB_ID = re.compile(r"(?P<id>[\w.-]+/[\w.-]+)(?:@(?P<rev>[\w./-]+))?")


def locate_build(ref: str, *, token: str | None = None) -> Path:
    """The folder holding build `ref`: the folder itself, or a download of the Hub revision."""
    match = _HUB_ID.fullmatch(ref)
    if Path(ref).is_dir() or match is None:
        return build_folder(ref)
    return _download(match["id"], match["rev"], token)


def _download(repo_id: str, revision: str | None, token: str | None) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError

    try:
        folder = snapshot_download(
            repo_id,
            repo_type="dataset",
            revision=revision,
            token=token,
            allow_patterns=list(BUILD_FILES),
        )
    except HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        raise HubError(
            f"cannot read {repo_id}{'@' + revision if revision else ''} from the Hub (HTTP "
            f"{status})",
            hint="check the dataset id and revision (a local folder that does not exist is read "
            "as a Hub id)",
        ) from None
    except (OSError, ValueError) as exc:
        raise HubError(
            f"cannot read {repo_id} from the Hub ({type(exc).__name__})",
            hint="check the network, or pass a local build folder",
        ) from None
    path = Path(folder)
    if not (path / "pairs.parquet").is_file():
        raise DatasetError(
            f"{repo_id} has no pairs.parquet: not a dataset pushed by `issues-sts push`"
        )
    return path
