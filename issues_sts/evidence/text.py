"""Text cleaning: remove the parts of a comment that must never yield a link.

References inside code (fenced, indented-by-fence or inline), quoted replies (`> ...`),
HTML comments, struck-through text and issue-template placeholders are copies of
someone else's words, examples or instructions, not the commenter's claim. Removed
regions are replaced by a blank or a neutral token so that the words on either side
do not fuse into a new sentence ("duplicate of `#1` see #2" must not read as
"duplicate of see #2").
"""

from __future__ import annotations

import functools
import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_HTML_CODE = re.compile(r"<(pre|code)\b[^>]*>.*?(?:</\1>|\Z)", re.S | re.I)
_QUOTE_LINE = re.compile(r"^[ \t]{0,3}>[^\n]*$", re.M)
_STRIKE = re.compile(
    r"~~(?!~).+?~~|<(del|s|strike)>.*?</\1>"
    # GitHub strikes one tilde's span too ("~Maybe related to #5?~ Unrelated", conv-21's Qiskit
    # retraction), on one line, the tildes hugging the words: "~/.config and ~/bin" and "~5 s,
    # ~10 at most" strike nothing
    r"|(?<![~\w\\])~(?![~\s])[^~\n]{1,500}?(?<![\s~])~(?![~\w])",
    re.S | re.I,
)
# Template placeholders: `#{issue number}`, `#<number>`, `#NNN`, `#XXXX`, `#issue`; not a URL's
# anchor (".../issues/12#issue-781412721", GitHub's link to an issue's first post: conv-36's
# operator-sdk body kept " -781412721" beside the reference once the anchor's "#issue" went)
_PLACEHOLDER = re.compile(
    r"(?<![\w/])#\s*(?:\{[^}\n]*\}|<[^>\n]*>|\[[^\]\n]*\](?!\()|N{2,}\b|X{2,}\b|x{2,}\b|issue\b|number\b)"
)

# **bold** / *em* / __bold__ / _em_ markers: "**Not** a dupe" must read as "Not a dupe".
_EMPHASIS = re.compile(r"(\*{1,2}|(?<![\w/])_{1,2})(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w/])")

CODE_TOKEN = " CODE "


# Each rule below first asks for the character every match of it contains: most comments have
# no code, quote or markup, and a substring test is far cheaper than a regex pass.
def strip_code(text: str) -> str:
    """Drop fenced and inline code (and HTML <pre>/<code>)."""
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("\n\n", text)
    if "<" in text:
        text = _HTML_CODE.sub(CODE_TOKEN, text)
    return _INLINE_CODE.sub(CODE_TOKEN, text) if "`" in text else text


# GitHub's alerts ("> [!NOTE]" then "> " lines) are the author's own words set in a box, not a
# quoted reply: winget-pkgs' reporters close their own requests with "> [!NOTE]\n> Close with
# reason: **Duplicate**.\n> - See #N" (conv-16)
_ALERT = re.compile(
    r"^[ \t]{0,3}>[ \t]*\[!(?:note|tip|important|warning|caution)\][ \t]*(?:\n|$)"
    r"((?:[ \t]{0,3}>[^\n]*(?:\n|$))*)",
    re.M | re.I,
)
_ALERT_MARKER = re.compile(r"^[ \t]{0,3}>[ \t]?", re.M)


def unwrap_alerts(text: str) -> str:
    """An alert's lines without their `>` markers (a blank line before and after)."""
    if "[!" not in text:
        return text
    return _ALERT.sub(lambda m: "\n" + _ALERT_MARKER.sub("", m.group(1)) + "\n", text)


def strip_quotes(text: str) -> str:
    """Drop quoted reply lines; a blank line keeps the paragraphs around them apart."""
    return _QUOTE_LINE.sub("", text) if ">" in text else text


def quoted_lines(text: str | None) -> str:
    """Only the quoted (`> `) lines of a comment, without their markers, code stripped."""
    body = unwrap_alerts(strip_code(strip_html_comments(text or "")))
    return "\n".join(m.group(0).lstrip(" \t")[1:] for m in _QUOTE_LINE.finditer(body))


def strip_html_comments(text: str) -> str:
    return _HTML_COMMENT.sub(" ", text) if "<!--" in text else text


def strip_strikethrough(text: str) -> str:
    """Struck-through words are retracted words ("~~dup of #4~~ my mistake")."""
    return _STRIKE.sub(" ", text) if "~" in text or "<" in text else text


def strip_emphasis(text: str) -> str:
    return _EMPHASIS.sub(r"\2", text) if "*" in text or "_" in text else text


def strip_placeholders(text: str) -> str:
    return _PLACEHOLDER.sub(" ", text) if "#" in text else text


# An issue form's field ("### Possible duplicates", "### Related issues") up to the next heading:
# the reporter filled in a template, nobody claimed anything.
_FORM_FIELD = re.compile(
    r"^[ \t]*#{1,6}[ \t]*(?:[^\n]{0,40}?\b(?:duplicates?|related\s+(?:issues?|problems?)|"
    r"similar\s+issues?)\b[^\n]{0,40})\n(?:(?![ \t]*#{1,6}[ \t])[^\n]*(?:\n|$))*",
    re.M | re.I,
)


# GitHub's "Reference in new issue" opens an issue whose body is a copy of another thread's
# comment, signed "_Originally posted by @user in <url>_" (the emphasis gone once cleaned): the
# words above the line are that comment's, about that thread ("Duplicate of <url>" there says
# the other thread is one)
_COPIED_COMMENT = re.compile(
    r"\A.*?^[ \t]*_?Originally posted by @[\w-]+(?:\[bot\])? in (?P<url>https?://\S+?)_?[ \t]*$\n?",
    re.M | re.S | re.I,
)


def copied_from_url(text: str) -> str | None:
    """The thread URL of a "Reference in new issue" body's signature, if it is one."""
    if "riginally posted by" not in text:
        return None
    m = _COPIED_COMMENT.match(text)
    return m["url"] if m else None


def copied_from_pull_request(text: str) -> bool:
    """Is this body a pull request's comment made an issue (a reviewer's note)? Its pull request
    is the work under review, never what the new issue duplicates."""
    return "/pull/" in (copied_from_url(text) or "")


def strip_copied_comment(text: str) -> str:
    """An issue body made from another thread's comment, without the copy and its signature
    (whatever the reporter wrote below the signature stays)."""
    if "riginally posted by" not in text:
        return text
    return _COPIED_COMMENT.sub("\n", text, count=1)


def strip_form_fields(text: str) -> str:
    """Drop issue-form sections about possible duplicates or related issues (body only)."""
    return _FORM_FIELD.sub("\n", text)


@functools.lru_cache(maxsize=256)  # a thread's reader cleans the same comment several times
def clean(text: str | None) -> str:
    """The commenter's own, current words: every rule above applied, in a safe order.

    HTML comments go first (templates hide instructions in them), then code (a fence may
    contain `>` or `<!--`), then quotes, strikethrough, placeholders and emphasis markers.
    """
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = strip_html_comments(text)
    text = strip_code(text)
    text = strip_quotes(unwrap_alerts(text))
    text = strip_strikethrough(text)
    return strip_emphasis(strip_placeholders(text))
