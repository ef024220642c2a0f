"""A loopback fake of the Hugging Face Hub, for tests and the offline demo.

It is a real HTTP server on 127.0.0.1 that answers the endpoints the real
`huggingface_hub` client (and `datasets.load_dataset`) use to create a repository, upload
files (regular files inline in the commit, or Git LFS objects through the batch API with the
Xet path disabled: ``HF_HUB_DISABLE_XET=1``; or, with ``lfs=False``, every file inline in the
commit, which any client accepts), commit, list, describe and download:

    POST /api/repos/create                       POST /api/validate-yaml
    POST /api/{type}s/{id}/preupload/{rev}       POST /{prefix}{id}.git/info/lfs/objects/batch
    PUT  /_fake/lfs/{oid}                        POST /api/{type}s/{id}/commit/{rev}
    GET  /api/{type}s/{id}[/revision/{rev}]      GET  /api/{type}s/{id}/tree/{rev}[/{path}]
    POST /api/{type}s/{id}/paths-info/{rev}      GET  /api/whoami-v2
    HEAD|GET /{prefix}{id}/resolve/{rev}/{path}  (Range requests supported)
    POST /api/{type}s/{id}/branch/{branch}       POST /api/{type}s/{id}/tag/{rev}
    GET  /api/{type}s/{id}/refs

State lives in memory: repositories, their commits (each a full snapshot), branches, tags
and LFS objects. A revision is `main`, a branch, a tag or a commit sha, as on the Hub.
Writes need ``Authorization: Bearer <token>`` with the server's token; private repositories
are invisible (404) without it, as on the Hub. Unknown routes answer 404 and are recorded in
`FakeHub.unknown`, so a test can see what a newer client asked for.

    with serve_fake_hub(token="hf_test") as hub:
        os.environ["HF_ENDPOINT"] = hub.url   # before importing huggingface_hub
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

LFS_SUFFIXES = (".parquet", ".png", ".arrow", ".bin", ".safetensors")
PREFIX = {"dataset": "datasets/", "space": "spaces/", "model": ""}


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class StoredFile:
    data: bytes
    lfs: bool

    @property
    def oid(self) -> str:
        return git_blob_sha1(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def entry(self, path: str) -> dict[str, Any]:
        item: dict[str, Any] = {
            "type": "file",
            "path": path,
            "size": len(self.data),
            "oid": self.oid,
        }
        if self.lfs:
            item["lfs"] = {"oid": self.sha256, "size": len(self.data), "pointerSize": 134}
        return item


@dataclass
class Repo:
    repo_id: str
    repo_type: str
    private: bool
    commits: list[tuple[str, dict[str, StoredFile]]] = field(default_factory=list)  # main's history
    branches: dict[str, str] = field(default_factory=dict)  # other branches: name -> head sha
    tags: dict[str, str] = field(default_factory=dict)  # name -> commit sha
    side: dict[str, dict[str, StoredFile]] = field(
        default_factory=dict
    )  # commits on other branches

    def snapshot(self, revision: str) -> tuple[str, dict[str, StoredFile]] | None:
        if revision in ("main", "HEAD", "refs/heads/main"):
            return self.commits[-1]
        name = revision.removeprefix("refs/heads/").removeprefix("refs/tags/")
        sha = self.branches.get(name) or self.tags.get(name) or revision
        found = next((c for c in self.commits if c[0] == sha), None)
        return found or ((sha, self.side[sha]) if sha in self.side else None)

    def add_commit(self, branch: str, sha: str, files: dict[str, StoredFile]) -> None:
        if branch == "main":
            self.commits.append((sha, files))
        else:
            self.side[sha] = files
            self.branches[branch] = sha


class FakeHub:
    """The server's state; thread-safe through one lock."""

    def __init__(
        self, token: str | None = "hf_fake_token", user: str = "tester", lfs: bool = True
    ) -> None:
        self.token = token
        # lfs=False answers "regular" for every file: the client then commits contents inline and
        # never takes its Xet upload path, which this fake does not speak (Xet on, in-process use).
        self.lfs_enabled = lfs
        self.user = user
        self.url = ""
        self.repos: dict[tuple[str, str], Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.unknown: list[str] = []
        self.commit_count = 0
        self.lock = threading.Lock()

    def create(self, repo_type: str, repo_id: str, private: bool) -> Repo:
        repo = Repo(repo_id, repo_type, private)
        first = hashlib.sha1(f"init {repo_type} {repo_id}".encode()).hexdigest()
        # Like the Hub, a new repository starts with a .gitattributes routing binaries to LFS.
        attributes = StoredFile(b"*.parquet filter=lfs diff=lfs merge=lfs -text\n", lfs=False)
        repo.commits.append((first, {".gitattributes": attributes}))
        self.repos[(repo_type, repo_id)] = repo
        return repo

    def files(self, repo_type: str, repo_id: str) -> dict[str, bytes]:
        """The latest snapshot's files of a repository (for tests)."""
        return self.files_at(repo_type, repo_id, "main")

    def files_at(self, repo_type: str, repo_id: str, revision: str) -> dict[str, bytes]:
        """The files of a repository at a branch, tag or commit (for tests)."""
        snapshot = self.repos[(repo_type, repo_id)].snapshot(revision)
        if snapshot is None:
            raise KeyError(f"{repo_id} has no revision {revision}")
        return {p: f.data for p, f in snapshot[1].items()}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    # -- plumbing ---------------------------------------------------------------------
    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `unknown`
        return

    @property
    def hub(self) -> FakeHub:
        return self.server.hub

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(
        self,
        status: int,
        payload: Any = None,
        *,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        body = (
            raw if raw is not None else json.dumps(payload if payload is not None else {}).encode()
        )
        self.send_response(status)
        self.send_header(
            "Content-Type", "application/json" if raw is None else "application/octet-stream"
        )
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":  # a HEAD answer has headers only
            self.wfile.write(body)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        # The client picks its exception class from X-Error-Code (RepoNotFound, EntryNotFound...).
        code = code or {401: "Unauthorized", 404: "RepoNotFound", 409: "Conflict"}.get(
            status, "Error"
        )
        self._send(
            status, {"error": message}, headers={"X-Error-Code": code, "X-Error-Message": message}
        )

    def _authorized(self) -> bool:
        if self.hub.token is None:
            return True
        return self.headers.get("Authorization", "") == f"Bearer {self.hub.token}"

    def _repo(self, repo_type: str, repo_id: str) -> Repo | None:
        repo = self.hub.repos.get((repo_type.rstrip("s"), repo_id))
        if repo is None or (repo.private and not self._authorized()):
            return None
        return repo

    # -- dispatch -----------------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        body = self._body() if method in ("POST", "PUT") else b""
        with self.hub.lock:
            for verb, pattern, handler in _ROUTES:
                match = re.fullmatch(pattern, path)
                if match and method in verb.split("|"):
                    handler(self, method, match, query, body)
                    return
            self.hub.unknown.append(f"{method} {self.path}")
        self._error(404, f"fake hub: no route for {method} {path}")

    # -- endpoints ----------------------------------------------------------------------
    def whoami(self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes) -> None:
        if not self._authorized():
            return self._error(401, "Invalid credentials")
        self._send(
            200,
            {
                "type": "user",
                "name": self.hub.user,
                "orgs": [],
                "auth": {"accessToken": {"role": "write"}},
            },
        )

    def create_repo(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        if not self._authorized():
            return self._error(401, "Invalid credentials")
        data = json.loads(body or b"{}")
        repo_type = data.get("type") or "model"
        repo_id = f"{data.get('organization') or self.hub.user}/{data['name']}"
        url = f"{self.hub.url}/{PREFIX[repo_type]}{repo_id}"
        if (repo_type, repo_id) in self.hub.repos:  # the Hub names the existing repo's url too
            return self._send(
                409,
                {"error": "You already created this repo", "url": url},
                headers={"X-Error-Message": "You already created this repo"},
            )
        self.hub.create(
            repo_type, repo_id, data.get("visibility") == "private" or bool(data.get("private"))
        )
        self._send(200, {"url": url, "name": repo_id})

    def validate_yaml(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        self._send(200, {"errors": [], "warnings": []})

    def preupload(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        repo = self._repo(m["type"], m["id"])
        if repo is None or not self._authorized():
            return self._error(404 if repo is None else 401, "Repository not found")
        snapshot = repo.snapshot(m["rev"])
        current = snapshot[1] if snapshot else {}
        files = []
        for item in json.loads(body)["files"]:
            lfs = self.hub.lfs_enabled and (
                item["path"].endswith(LFS_SUFFIXES) or item["size"] > 10_000_000
            )
            old = current.get(item["path"])
            oid = (old.sha256 if old.lfs else old.oid) if old else None
            files.append(
                {
                    "path": item["path"],
                    "uploadMode": "lfs" if lfs else "regular",
                    "shouldIgnore": False,
                    "oid": oid,
                }
            )
        self._send(200, {"files": files, "commitOid": snapshot[0] if snapshot else None})

    def lfs_batch(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        if not self._authorized():
            return self._error(401, "Invalid credentials")
        objects = []
        for obj in json.loads(body)["objects"]:
            entry: dict[str, Any] = {"oid": obj["oid"], "size": obj["size"], "authenticated": True}
            if obj["oid"] not in self.hub.lfs:
                entry["actions"] = {
                    "upload": {"href": f"{self.hub.url}/_fake/lfs/{obj['oid']}", "header": {}}
                }
            objects.append(entry)
        self._send(200, {"transfer": "basic", "objects": objects})

    def lfs_put(self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes) -> None:
        if hashlib.sha256(body).hexdigest() != m["oid"]:
            return self._error(400, "sha256 mismatch")
        self.hub.lfs[m["oid"]] = body
        self._send(200, {})

    def commit(self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes) -> None:
        repo = self._repo(m["type"], m["id"])
        if repo is None or not self._authorized():
            return self._error(404 if repo is None else 401, "Repository not found")
        rev = m["rev"]
        if rev not in ("main", *repo.branches):
            return self._error(404, f"Invalid rev id: {rev}", "RevisionNotFound")
        base = repo.snapshot(rev)
        files = dict(base[1]) if base else {}
        summary = ""
        for line in body.splitlines():
            item = json.loads(line)
            key, value = item["key"], item["value"]
            if key == "header":
                summary = value.get("summary", "")
            elif key == "file":
                files[value["path"]] = StoredFile(base64.b64decode(value["content"]), lfs=False)
            elif key == "lfsFile":
                if value["oid"] not in self.hub.lfs:
                    return self._error(400, f"LFS object {value['oid']} was never uploaded")
                files[value["path"]] = StoredFile(self.hub.lfs[value["oid"]], lfs=True)
            elif key == "deletedFile":
                if files.pop(value["path"], None) is None:
                    return self._error(404, "A file with this name doesn't exist", "EntryNotFound")
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                files = {p: f for p, f in files.items() if not p.startswith(prefix)}
        self.hub.commit_count += 1
        sha = hashlib.sha1(f"{repo.repo_id} {self.hub.commit_count} {summary}".encode()).hexdigest()
        repo.add_commit(rev, sha, files)
        prefix = "" if repo.repo_type == "model" else f"{repo.repo_type}s/"
        self._send(
            200,
            {
                "commitUrl": f"{self.hub.url}/{prefix}{repo.repo_id}/commit/{sha}",
                "commitOid": sha,
                "pullRequestUrl": None,
                "success": True,
            },
        )

    def create_branch(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        repo = self._repo(m["type"], m["id"])
        if repo is None or not self._authorized():
            return self._error(404 if repo is None else 401, "Repository not found")
        start = repo.snapshot(json.loads(body or b"{}").get("startingPoint") or "main")
        if start is None:
            return self._error(404, "Invalid rev id", "RevisionNotFound")
        if m["branch"] == "main" or m["branch"] in repo.branches:
            return self._error(409, f"Reference already exists: refs/heads/{m['branch']}")
        repo.side.setdefault(start[0], start[1])
        repo.branches[m["branch"]] = start[0]
        self._send(200, {})

    def create_tag(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        repo = self._repo(m["type"], m["id"])
        if repo is None or not self._authorized():
            return self._error(404 if repo is None else 401, "Repository not found")
        target = repo.snapshot(m["rev"])
        tag = json.loads(body or b"{}").get("tag", "")
        if target is None:
            return self._error(404, f"Invalid rev id: {m['rev']}", "RevisionNotFound")
        if not tag or tag in repo.tags:
            return self._error(409, f"Tag reference {tag} already exists")
        repo.tags[tag] = target[0]
        self._send(200, {})

    def refs(self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes) -> None:
        repo = self._repo(m["type"], m["id"])
        if repo is None:
            return self._error(404, "Repository not found")
        heads = {"main": repo.commits[-1][0], **repo.branches}
        self._send(
            200,
            {
                "branches": [
                    {"name": n, "ref": f"refs/heads/{n}", "targetCommit": sha}
                    for n, sha in heads.items()
                ],
                "tags": [
                    {"name": n, "ref": f"refs/tags/{n}", "targetCommit": sha}
                    for n, sha in repo.tags.items()
                ],
                "converts": [],
            },
        )

    def repo_info(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        repo = self._repo(m["type"], m["id"])
        snapshot = repo.snapshot(m["rev"] or "main") if repo else None
        if repo is None or snapshot is None:
            return self._error(404, "Repository not found")
        sha, files = snapshot
        self._send(
            200,
            {
                "id": repo.repo_id,
                "_id": repo.repo_id,
                "author": repo.repo_id.split("/")[0],
                "sha": sha,
                "private": repo.private,
                "gated": False,
                "disabled": False,
                "downloads": 0,
                "likes": 0,
                "tags": [],
                "lastModified": "2024-01-01T00:00:00.000Z",
                "createdAt": "2024-01-01T00:00:00.000Z",
                "siblings": [
                    {"rfilename": p, "size": len(f.data)} for p, f in sorted(files.items())
                ],
                "cardData": {},
                "usedStorage": sum(len(f.data) for f in files.values()),
            },
        )

    def tree(self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes) -> None:
        repo = self._repo(m["type"], m["id"])
        snapshot = repo.snapshot(m["rev"]) if repo else None
        if snapshot is None:
            return self._error(404, "Repository or revision not found")
        base = (m["path"] or "").strip("/")
        recursive = q.get("recursive", ["false"])[0].lower() in ("1", "true")
        entries = _tree_entries(snapshot[1], base, recursive)
        if base and not entries and base not in snapshot[1]:
            return self._error(404, "Entry not found", "EntryNotFound")
        self._send(200, entries)

    def paths_info(
        self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes
    ) -> None:
        repo = self._repo(m["type"], m["id"])
        snapshot = repo.snapshot(m["rev"]) if repo else None
        if snapshot is None:
            return self._error(404, "Repository or revision not found")
        try:
            paths = json.loads(body).get("paths", [])
        except ValueError:
            paths = parse_qs(body.decode()).get("paths", [])
        files = snapshot[1]
        out = []
        for p in paths:
            p = p.strip("/")
            if p in files:
                out.append(files[p].entry(p))
            elif any(name.startswith(p + "/") for name in files) or p == "":
                out.append(
                    {"type": "directory", "path": p, "oid": hashlib.sha1(p.encode()).hexdigest()}
                )
        self._send(200, out)

    def resolve(self, method: str, m: re.Match[str], q: dict[str, list[str]], body: bytes) -> None:
        repo = self._repo(m["type"] or "models", m["id"])
        snapshot = repo.snapshot(m["rev"]) if repo else None
        if snapshot is None:
            return self._error(404, "Repository not found")
        stored = snapshot[1].get(m["path"])
        if stored is None:
            return self._error(404, "Entry not found", "EntryNotFound")
        etag = stored.sha256 if stored.lfs else stored.oid
        headers = {"X-Repo-Commit": snapshot[0], "ETag": f'"{etag}"', "Accept-Ranges": "bytes"}
        if stored.lfs:
            headers |= {"X-Linked-Etag": f'"{etag}"', "X-Linked-Size": str(len(stored.data))}
        data, content_range = _ranged(stored.data, self.headers.get("Range"))
        if content_range:
            headers["Content-Range"] = content_range
        self._send(206 if content_range else 200, raw=data, headers=headers)


def _tree_entries(files: dict[str, StoredFile], base: str, recursive: bool) -> list[dict[str, Any]]:
    prefix = base + "/" if base else ""
    entries: dict[str, dict[str, Any]] = {}
    for path, stored in sorted(files.items()):
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix) :].split("/")
        for depth in range(1, len(rest)):
            folder = prefix + "/".join(rest[:depth])
            if recursive or depth == 1:
                entries.setdefault(
                    folder,
                    {
                        "type": "directory",
                        "path": folder,
                        "oid": hashlib.sha1(folder.encode()).hexdigest(),
                        "size": 0,
                    },
                )
        if recursive or len(rest) == 1:
            entries[path] = stored.entry(path)
    return list(entries.values())


def _ranged(data: bytes, header: str | None) -> tuple[bytes, str | None]:
    """The bytes a `Range: bytes=a-b` header asks for, and the Content-Range to answer."""
    match = re.fullmatch(r"bytes=(\d+)-(\d*)", header or "")
    if not match:
        return data, None
    start = int(match[1])
    stop = min(int(match[2]) + 1 if match[2] else len(data), len(data))
    return data[start:stop], f"bytes {start}-{max(stop - 1, start)}/{len(data)}"


_ID = r"(?P<id>[\w.-]+/[\w.-]+)"
_TYPE = r"(?P<type>datasets|models|spaces)"
_ROUTES: list[tuple[str, str, Any]] = [
    ("GET", r"/api/whoami-v2", _Handler.whoami),
    ("POST", r"/api/repos/create", _Handler.create_repo),
    ("POST", r"/api/validate-yaml", _Handler.validate_yaml),
    ("POST", rf"/api/{_TYPE}/{_ID}/preupload/(?P<rev>[^/]+)", _Handler.preupload),
    ("POST", rf"/api/{_TYPE}/{_ID}/commit/(?P<rev>[^/]+)", _Handler.commit),
    ("POST", rf"/api/{_TYPE}/{_ID}/paths-info/(?P<rev>[^/]+)", _Handler.paths_info),
    ("GET", rf"/api/{_TYPE}/{_ID}/tree/(?P<rev>[^/]+)(?P<path>/.*)?", _Handler.tree),
    ("POST", rf"/api/{_TYPE}/{_ID}/branch/(?P<branch>[^/]+)", _Handler.create_branch),
    ("POST", rf"/api/{_TYPE}/{_ID}/tag/(?P<rev>[^/]+)", _Handler.create_tag),
    ("GET", rf"/api/{_TYPE}/{_ID}/refs", _Handler.refs),
    ("GET", rf"/api/{_TYPE}/{_ID}(?:/revision/(?P<rev>[^/]+))?", _Handler.repo_info),
    ("POST", rf"/(?:datasets/|spaces/)?{_ID}\.git/info/lfs/objects/batch", _Handler.lfs_batch),
    ("PUT", r"/_fake/lfs/(?P<oid>[0-9a-f]{64})", _Handler.lfs_put),
    (
        "GET|HEAD",
        rf"/(?:(?P<type>datasets|spaces)/)?{_ID}/resolve/(?P<rev>[^/]+)/(?P<path>.+)",
        _Handler.resolve,
    ),
]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, hub: FakeHub, port: int) -> None:
        self.hub = hub
        super().__init__(("127.0.0.1", port), _Handler)


@contextmanager
def serve_fake_hub(
    token: str | None = "hf_fake_token", port: int = 0, *, lfs: bool = True
) -> Iterator[FakeHub]:
    """Run a fake Hub on 127.0.0.1 (a free port unless given) for the duration of the block.

    `lfs=True` needs a client with ``HF_HUB_DISABLE_XET=1`` (set before importing
    huggingface_hub); `lfs=False` works with any client (every file committed inline)."""
    hub = FakeHub(token=token, lfs=lfs)
    server = _Server(hub, port)
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="fake-hub", daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a loopback fake Hugging Face Hub.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token", default="hf_fake_token")
    parser.add_argument(
        "--no-lfs", action="store_true", help="commit every file inline (clients with Xet on)"
    )
    args = parser.parse_args()
    with serve_fake_hub(token=args.token, port=args.port, lfs=not args.no_lfs) as hub:
        print(f"fake hub at {hub.url} (token {args.token}); Ctrl-C to stop", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
