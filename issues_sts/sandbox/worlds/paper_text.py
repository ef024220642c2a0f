"""Modern issue texts for the paper-scale world: form templates, fenced logs, long tracebacks,
environment dumps, and the bot comments that fill today's pull-request threads.

The AnglE paper reports that about 61 % of its dataset texts exceed 512 BERT tokens. Those
lengths come from issue forms (`### Describe the bug`, `### Steps to reproduce`, an
environment block) and pasted logs and tracebacks, whose length has a long tail. Here the tail
is a log-normal number of pasted log lines; `LOG_LINES_MU`/`LOG_LINES_SIGMA` are calibrated
with the offline BERT tokenizer (see `tests/test_fakegh_paper.py`, which checks the share).

Speed matters (a full world is about 2.5 million items): every helper draws from a few
`random.Random` calls and joins prebuilt strings; no regular expressions, no formatting of
large templates.
"""

from __future__ import annotations

import math
import random

from issues_sts.sandbox.worlds import text as T
from issues_sts.sandbox.worlds import vocab as V
from issues_sts.sandbox.worlds.text import Topic

# Pasted log lines per bug report: log-normal, median exp(mu). Calibrated so that about 61 %
# of the issues' `title + "\n\n" + body` exceed 512 BERT tokens (the paper's figure).
LOG_LINES_MU = 0.8
LOG_LINES_SIGMA = 1.3
MAX_LOG_LINES = 400

LEVELS = ("DEBUG", "DEBUG", "INFO", "INFO", "INFO", "WARN", "TRACE")
LOG_VERBS = (
    "resolved",
    "loaded",
    "scheduled",
    "retrying",
    "flushed",
    "opened",
    "acquired",
    "released",
    "connected to",
    "waiting on",
    "spawned",
    "finished",
)
LOG_OBJECTS = (
    "worker pool",
    "session",
    "request",
    "batch",
    "segment",
    "shard",
    "manifest",
    "index",
    "lock file",
    "module graph",
    "cache entry",
    "checkpoint",
)

FORM_BUG = (
    (
        "### Describe the bug",
        "### Steps to reproduce",
        "### Expected behavior",
        "### Relevant log output",
        "### Environment",
        "### Additional context",
    ),
    (
        "**Describe the bug**",
        "**To Reproduce**",
        "**Expected behavior**",
        "**Logs**",
        "**System info**",
        "**Additional context**",
    ),
    (
        "## Bug report",
        "## Reproduction",
        "## Expected result",
        "## Actual result",
        "## Versions",
        "## Notes",
    ),
)
FORM_FEATURE = (
    (
        "### Is your feature request related to a problem? Please describe.",
        "### Describe the solution you'd like",
        "### Describe alternatives you've considered",
        "### Additional context",
    ),
    ("## Feature request", "## Motivation", "## Pitch", "## Alternatives"),
)
CHECKLISTS = (
    "- [X] I have searched the existing issues\n- [X] I agree to follow this project's Code of "
    "Conduct",
    "- [x] I have read the documentation\n- [x] I am using the latest released version",
    "### Code of Conduct\n\n- [X] I agree to follow this project's Code of Conduct",
    "<!-- Please fill in every section. Issues without a reproduction may be closed. -->",
)
DUP_CHECKLIST = "- [X] I searched existing issues and this is not a duplicate"
STEPS = (
    "Install the latest release",
    "Create a fresh project with the default settings",
    "Run the command below",
    "Open the generated output",
    "Restart the process and run it again",
    "Set the option in the config file",
    "Wait for the background job to start",
)
# Stock sentences of the small worlds without the words the link stage's duplicate-cue screen
# looks for: in the paper world cue words come from duplicate talk and from INCIDENTAL_CUES at
# a set rate, so that about 2 % of texts pass the screen, as in the rust archive (the issue
# measuring it found 33,000 of 1.77 million texts), not from whatever filler happened to say.
CUE_WORDS = (
    "same",
    "dup",
    "track",
    "reported",
    "favor",
    "favour",
    "follow",
    "superseded",
    "replaced",
)


def cue_free(pool: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x for x in pool if not any(w in x.lower() for w in CUE_WORDS))


EXPECTED = cue_free(T.EXPECTED)
USE_CASES = cue_free(T.USE_CASES)
USER_LINES = cue_free(T.USER_LINES)
INCIDENTAL_CUES = (
    "Same here on {os}.",
    "Same problem after upgrading to {version}.",
    "I'll keep tracking this one.",
    "Has this been reported upstream as well?",
    "Seeing the same thing with {api}.",
)
INCIDENTAL_RATE = 0.03  # of user comments
PACKAGES = (
    "requests",
    "urllib3",
    "numpy",
    "typing-extensions",
    "protobuf",
    "grpcio",
    "pydantic",
    "attrs",
    "webpack",
    "typescript",
    "eslint",
    "react-dom",
    "tokio",
    "serde",
    "hyper",
    "golang.org/x/net",
)
RUNTIMES = {
    "python": "Python 3.1{}.{}",
    "rust": "rustc 1.7{}.{}",
    "js": "Node.js v2{}.{}.0",
    "go": "go1.2{}.{}",
}


def _log_bank() -> tuple[str, ...]:
    """Log line bodies drawn once (fixed seed): a pasted log is a run of them, so one log costs
    one random draw instead of several per line."""
    rng = random.Random("paper-log-bank")
    return tuple(
        f"{rng.choice(LEVELS):5} {rng.choice(LOG_VERBS)} {rng.choice(LOG_OBJECTS)} "
        f"id={rng.randrange(16**6):06x} took={rng.randrange(1, 4000)}ms"
        for _ in range(4099)
    )


LOG_BANK = _log_bank()


def pasted_log(rng: random.Random, topic: Topic, lines: int) -> str:
    noun = topic.component[1]
    stamp = f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:"
    start, bank, size = rng.randrange(len(LOG_BANK)), LOG_BANK, len(LOG_BANK)
    body = [
        f"{stamp}{i // 60 % 60:02d}:{i % 60:02d}.{i * 37 % 1000:03d}Z [{noun}-{i % 7}] "
        f"{bank[(start + i * 13) % size]}"
        for i in range(lines)
    ]
    body.append(f"{stamp}59:59.999Z ERROR [{noun}] {topic.error_short}")
    return "\n".join(["```console", *body, "```"])


def log_lines(rng: random.Random) -> int:
    return min(MAX_LOG_LINES, int(math.exp(rng.gauss(LOG_LINES_MU, LOG_LINES_SIGMA))))


def long_traceback(rng: random.Random, topic: Topic) -> str:
    """A traceback with a variable number of frames (deep stacks are common in real reports)."""
    _, noun, verb = topic.component
    frames = rng.randrange(2, 9)
    mods = ("core", "runtime", "engine", "dispatch", "handlers", "utils", "io", "internal")
    if topic.lang == "python":
        lines = [
            "Traceback (most recent call last):",
            f'  File "/app/main.py", line {rng.randrange(5, 300)}, in <module>',
            f"    {noun}.{verb}()",
        ]
        for k in range(frames):
            mod = mods[(k + frames) % len(mods)]
            lines += [
                f'  File "/usr/lib/python3.11/site-packages/{noun}s/{mod}.py", line '
                f"{rng.randrange(10, 2000)}, "
                f"in _{verb}_{mod}",
                f"    return self._{mod}.{verb}(*args, **kwargs)",
            ]
        lines.append(topic.error)
    else:
        lines = T.traceback_block(rng, topic).split("\n")[1:-1]
        for k in range(frames):
            mod = mods[(k * 3 + frames) % len(mods)]
            lines.append(
                f"    at {noun}::{mod}::{verb}_{k} "
                f"({noun}/src/{mod}.{topic.lang}:{rng.randrange(10, 2000)})"
            )
    return "\n".join(["```", *lines, "```"])


def environment_dump(rng: random.Random, topic: Topic) -> str:
    runtime = RUNTIMES[topic.lang].format(rng.randrange(0, 4), rng.randrange(0, 10))
    lines = [
        f"OS: {rng.choice(V.OSES)}",
        f"Runtime: {runtime}",
        f"{topic.component[1]} version: {topic.version}",
        f"CPU: {rng.choice(('x86_64', 'arm64', 'aarch64'))} ({rng.choice((4, 8, 12, 16, 32))} "
        "cores)",
        f"Memory: {rng.choice((8, 16, 32, 64))} GB",
    ]
    for package in rng.sample(PACKAGES, rng.randrange(2, 7)):
        lines.append(f"{package}=={T.version(rng)}")
    return "\n".join(["```text", *lines, "```"])


def bug_body(rng: random.Random, topic: Topic, style: int) -> str:
    """A bug report written with an issue form: intro, steps, code, log, traceback, environment."""
    w = T.words(topic) | {
        "alt": rng.choice(("on Linux", "with the previous release", "on my laptop"))
    }
    head = FORM_BUG[style % len(FORM_BUG)]
    steps = "\n".join(
        f"{k + 1}. {step}" for k, step in enumerate(rng.sample(STEPS, rng.randrange(2, 5)))
    )
    parts = [
        head[0],
        "",
        rng.choice(T.BUG_INTROS).format(**w),
        "",
        head[1],
        "",
        steps,
        "",
        T.code_block(rng, topic, usage=False),
        "",
        head[2],
        "",
        rng.choice(EXPECTED).format(**w),
        "",
        head[3],
        "",
        long_traceback(rng, topic),
    ]
    lines = log_lines(rng)
    if lines:
        parts += ["", pasted_log(rng, topic, lines)]
    parts += ["", head[4], "", environment_dump(rng, topic)]
    if rng.random() < 0.3:
        parts += ["", head[5], "", rng.choice(USE_CASES).format(**w, n=rng.randrange(3, 40))]
    parts += ["", DUP_CHECKLIST if rng.random() < 0.02 else rng.choice(CHECKLISTS)]
    return "\n".join(parts)


def feature_body(rng: random.Random, topic: Topic, style: int) -> str:
    w = T.words(topic)
    head = FORM_FEATURE[style % len(FORM_FEATURE)]
    use_cases = " ".join(rng.sample(USE_CASES, 3)).format(**w, n=rng.randrange(3, 40))
    parts = [
        head[0],
        "",
        rng.choice(T.FEATURE_INTROS).format(**w),
        use_cases,
        "",
        head[1],
        "",
        T.code_block(rng, topic, usage=True),
        "",
        head[2],
        "",
        rng.choice(USE_CASES).format(**w, n=rng.randrange(3, 40)),
        "",
        head[3],
        "",
        environment_dump(rng, topic),
        "",
        rng.choice(CHECKLISTS),
    ]
    if rng.random() < 0.4:  # a log of the current workaround
        parts[-1:-1] = [pasted_log(rng, topic, log_lines(rng)), ""]
    return "\n".join(parts)


def issue_body(rng: random.Random, topic: Topic, style: int) -> str:
    return (
        feature_body(rng, topic, style) if topic.kind == "feature" else bug_body(rng, topic, style)
    )


PR_SECTIONS = ("## What does this PR do?", "## Why", "## How was it tested?", "## Checklist")


def pull_request_body(rng: random.Random, topic: Topic, ref: int | None) -> str:
    w = T.words(topic)
    fixes = f"Fixes #{ref}" if ref else "No linked issue."
    changes = "\n".join(
        f"- {rng.choice(('handle', 'refactor', 'test', 'document'))} the {topic.component[0]} "
        f"path in `{topic.api}` ({k + 1})"
        for k in range(rng.randrange(1, 6))
    )
    return "\n".join(
        [
            PR_SECTIONS[0],
            "",
            fixes,
            "",
            changes,
            "",
            PR_SECTIONS[1],
            "",
            f"The {w['component']} {w['symptom']} {w['trigger']}.",
            "",
            PR_SECTIONS[2],
            "",
            "```console",
            f"$ make test  # {rng.randrange(100, 9000)} passed, 0 failed",
            "```",
            "",
            PR_SECTIONS[3],
            "",
            "- [x] Tests added\n- [x] Changelog entry\n- [ ] Docs updated",
        ]
    )


# -- comments ------------------------------------------------------------------------------------
def comment_count(rng: random.Random, mean: float) -> int:
    """A heavy-tailed (log-normal) number of comments with the given mean; a few threads have
    hundreds, most have a handful, many have none."""
    sigma = 1.1
    mu = math.log(mean + 0.5) - sigma * sigma / 2
    return min(2000, int(math.exp(rng.gauss(mu, sigma))))


def user_comment(rng: random.Random, topic: Topic, association: str) -> str:
    """Chatter, sometimes with a pasted log or traceback of the commenter's own."""
    if association not in T.MAINTAINERS and rng.random() < INCIDENTAL_RATE:
        text = rng.choice(INCIDENTAL_CUES).format(**T.words(topic), os=rng.choice(V.OSES))
    elif topic.kind == "bug" and association not in T.MAINTAINERS:
        text = rng.choice(USER_LINES).format(**T.words(topic), os=rng.choice(V.OSES))
    else:
        text = T.chatter(rng, topic, association)
    roll = rng.random()
    if roll < 0.12:
        text += "\n\n" + pasted_log(rng, topic, min(60, log_lines(rng)))
    elif roll < 0.2:
        text += "\n\nMy traceback:\n\n" + long_traceback(rng, topic)
    return text


BOT_NAMES = (
    "codecov[bot]",
    "github-actions[bot]",
    "netlify[bot]",
    "vercel[bot]",
    "linux-foundation-easycla[bot]",
    "google-cla[bot]",
    "sonarcloud[bot]",
    "dependabot[bot]",
    "mergify[bot]",
    "pre-commit-ci[bot]",
)


def bot_comment(rng: random.Random, bot: str, topic: Topic, number: int) -> str:
    """What CI, coverage, CLA and preview bots post on a pull request (long, repetitive)."""
    if bot.startswith("codecov"):
        rows = "\n".join(
            f"| `{topic.component[1]}/{m}.py` | `{rng.uniform(40, 100):.2f}% "
            f"<{rng.uniform(0, 100):.2f}%>` | `{rng.choice(('+', '-'))}{rng.uniform(0, 3):.2f}%` |"
            for m in rng.sample(("core", "api", "io", "cli", "utils", "types", "config"), 4)
        )
        return (
            f"## Codecov Report\nAttention: Patch coverage is `{rng.uniform(50, 100):.2f}%` with "
            f"`{rng.randrange(0, 30)} lines` in your changes missing coverage.\n\n"
            f"| Files | Coverage | Δ |\n|---|---|---|\n{rows}\n\n"
            f"Continue to review full report in Codecov by Sentry."
        )
    if "cla" in bot:
        return (
            "Thanks for your pull request! It looks like this may be your first contribution. "
            "Before we can look at it, you'll need to sign a Contributor License Agreement (CLA). "
            ":memo: Please visit the CLA page to sign. Once you've signed, reply here with "
            "`@cla-bot check`."
        )
    if bot in ("netlify[bot]", "vercel[bot]"):
        return (
            f"### Deploy Preview for *{topic.component[1]}-docs* ready!\n\n| Name | Link |\n"
            "|---|---|\n"
            f"| Latest commit | {rng.randrange(16**7):07x} |\n"
            f"| Latest deploy log | build #{number}{rng.randrange(100)} |"
        )
    if bot.startswith("github-actions"):
        failed = rng.randrange(0, 4)
        return (
            f"**CI summary** for {rng.randrange(16**7):07x}: {rng.randrange(40, 400)} jobs, "
            f"{failed} failed.\n\n"
            + (
                "\n".join(
                    f"- :x: `test ({rng.choice(V.OSES)})`: {topic.error_short}"
                    for _ in range(failed)
                )
                or "All checks passed."
            )
        )
    if bot.startswith("sonarcloud"):
        return (
            f"Quality Gate passed. {rng.randrange(0, 9)} New issues, {rng.randrange(0, 3)} "
            f"Security Hotspots, {rng.uniform(0, 100):.1f}% Coverage on New Code"
        )
    if bot.startswith("mergify"):
        return (
            "This pull request has been removed from the queue: the CI checks did not succeed. "
            "Please fix them."
        )
    if bot.startswith("pre-commit"):
        return "[pre-commit.ci] auto fixes from pre-commit.com hooks; for more information, see https://pre-commit.ci"
    return (
        f"Bumps {rng.choice(PACKAGES)} from {T.version(rng)} to {T.version(rng)}. Release "
        "notes and commits below."
    )
