"""The `readers` text recipe: HTML comments go, code and everything visible stays; `raw`
keeps today's texts byte for byte."""

from __future__ import annotations

import polars as pl
import pytest

from issues_sts.dataset.texts import issue_text, issue_texts, strip_html_comments

TEMPLATE = (
    "<!-- Please describe the bug. -->\n\n### Steps\n<!--\nNumbered steps,\nplease.\n-->\n"
    "1. run it\n"
)
CASES = [
    # body, expected body under `readers`, comments removed
    (TEMPLATE, "### Steps\n1. run it", 2),
    ("before <!-- hidden --> after", "before  after", 1),
    (
        "```html\n<!-- kept: code -->\n```\nnote <!-- gone -->",
        "```html\n<!-- kept: code -->\n```\nnote",
        1,
    ),
    ("~~~~\n<!-- in tildes\n~~~\n-->\n~~~~\ntail", "~~~~\n<!-- in tildes\n~~~\n-->\n~~~~\ntail", 0),
    ("use `<!-- x -->` in HTML <!-- y -->", "use `<!-- x -->` in HTML", 1),
    ("text\n<!-- never closed\nrest of body\n", "text", 1),
    ("a\n\n<!-- c -->\n\n\n\nb", "a\n\nb", 1),
    ("a -> b and <!- not a comment", "a -> b and <!- not a comment", 0),
]


@pytest.mark.parametrize(("body", "expected", "removed"), CASES)
def test_readers_recipe_drops_only_invisible_comments(
    body: str, expected: str, removed: int
) -> None:
    assert strip_html_comments(body)[1] == removed
    assert issue_text("T", body) == ("T\n\n" + expected if expected else "T")


@pytest.mark.parametrize(("body", "expected", "removed"), CASES)
def test_raw_recipe_keeps_the_body(body: str, expected: str, removed: int) -> None:
    raw = issue_text("T", body, "raw")
    assert raw == "T\n\n" + body.strip()


def test_vectorised_recipes_agree_with_the_one_issue_function() -> None:
    bodies = [b for b, _, _ in CASES] + [None, "plain\r\nbody", "<!-- only a comment -->"]
    issues = pl.DataFrame(
        {
            "repo": "o/r",
            "number": list(range(1, len(bodies) + 1)),
            "is_pull_request": False,
            "title": "T",
            "body": bodies,
            "html_url": None,
            "tombstone": None,
            "created_at": "2024-01-01T00:00:00Z",
        },
        schema_overrides={"body": pl.Utf8, "html_url": pl.Utf8, "tombstone": pl.Utf8},
    )
    for recipe in ("readers", "raw"):
        texts, counters = issue_texts(issues, recipe)  # type: ignore[arg-type]
        assert texts["text"].to_list() == [issue_text("T", b, recipe) for b in bodies]  # type: ignore[arg-type]
        assert texts["created_at"].to_list() == ["2024-01-01T00:00:00Z"] * len(bodies)
    readers, counters = issue_texts(issues, "readers")
    assert counters["html_comments_removed"] == sum(n for _, _, n in CASES) + 1
    assert counters["texts_with_html_comments"] == sum(1 for _, _, n in CASES if n) + 1
    assert counters["html_comment_chars_removed"] > 0
