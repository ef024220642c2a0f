"""A small hand-made crawl store for the build tests (real SQLite, written by Store.write_page).

acme/widgets
  #3 canonical; #5 "Closing as a duplicate of #3"; #7 "Duplicate of #5"  -> cluster {3, 5, 7}
  #2 canonical; #9 "Duplicate of #2"; #13 "Duplicate of #2"              -> cluster {2, 9, 13}
  #10 is a pull request that says "Duplicate of #2"                        -> excluded
  #4 mentions #6 (so 4 and 6 reference each other: never a negative)
  #11 carries credentials; #12 is a tombstone; #8 has CRLF line endings and code
acme/gadgets
  #1 canonical; #4 "Duplicate of #1"; #6 "Duplicate of #1"               -> cluster {1, 4, 6}
  #7 canonical; #8 "Duplicate of #7"                                      -> cluster {7, 8}
"""

from __future__ import annotations

from pathlib import Path

from issues_sts.sandbox.stores import raw_comment, raw_issue, write_store

WIDGETS = "acme/widgets"
GADGETS = "acme/gadgets"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5" * 3 + "xYz123"
AWS_KEY = "AKIA" + "ABCDEFGHIJKLMNOP"
BODY_WITH_SECRETS = (
    'Reproduce with\n```\ncurl -H "Authorization: token '
    + GITHUB_TOKEN
    + '" https://api.github.com\n'
    "export AWS_ACCESS_KEY_ID=" + AWS_KEY + "\n```\n"
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)

_DUPLICATES = {
    WIDGETS: {
        5: "Closing as a duplicate of #3",
        7: "Duplicate of #5",
        9: "Duplicate of #2",
        13: "Duplicate of #2",
    },
    GADGETS: {4: "Duplicate of #1", 6: "Duplicate of #1", 8: "Duplicate of #7"},
}


def _body(repo: str, number: int) -> str:
    topic = "parser panics on nested generics" if number % 2 else "installer fails behind a proxy"
    return (
        f"When I run the {topic} case in {repo} issue {number}, it breaks.\n\n```rust\n"
        f"fn main() {{ let x{number} = 1; }}\n```"
    )


def make_store(root: Path, *, with_duplicates: bool = True) -> Path:
    """Write the store described above into `root` and return `root`."""
    issues = {
        WIDGETS: [
            raw_issue(WIDGETS, n, f"Widget problem {n}", _body(WIDGETS, n))
            for n in range(1, 14)
            if n != 10
        ],
        GADGETS: [
            raw_issue(GADGETS, n, f"Gadget problem {n}", _body(GADGETS, n)) for n in range(1, 11)
        ],
    }
    issues[WIDGETS].append(
        raw_issue(WIDGETS, 10, "Fix widget 2", "This PR fixes it", pull_request=True)
    )
    by_number = {raw["number"]: raw for raw in issues[WIDGETS]}
    by_number[4]["body"] = "Looks related to #6, same stack trace."
    by_number[11]["body"] = BODY_WITH_SECRETS
    by_number[8]["body"] = "Line one\r\nLine two\r\n```\r\ncode();\r\n```\r\n"
    comments: dict[str, list[dict[str, object]]] = {WIDGETS: [], GADGETS: []}
    comment_id = 1000
    if with_duplicates:
        for repo, dups in _DUPLICATES.items():
            for number, text in dups.items():
                comment_id += 1
                comments[repo].append(raw_comment(repo, number, comment_id, text))
        comments[WIDGETS].append(raw_comment(WIDGETS, 10, 2000, "Duplicate of #2"))
    store = write_store(root, issues, comments)  # type: ignore[arg-type]
    store.mark_tombstone(WIDGETS, 12, "deleted")
    store.close()
    return root
