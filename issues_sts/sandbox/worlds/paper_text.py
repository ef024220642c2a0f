"""Issue texts for the paper-scale world, era by era: free prose (before 2017), markdown
templates with pasted logs (2017-2023), issue forms (2024 on), the talk under them, and the
bot comments that fill pull-request threads.

Lengths are drawn first and texts filled to them: each era's body and comment lengths are
log-normal with the median and spread measured in a real archive of its time (`eras.ERAS`;
`python -m benchmarks.calibration` compares them). A body takes its style's parts in order
(what a reporter writes first) until it is long enough; a longer one ends with a pasted log,
trace or code sized to the rest, which is where real long issues get their length.

Cue words (what the link stage's screen looks for) and references come only where an era's
rate puts them: the stock sentences are filtered free of cue words (`cue_free`), and incidental
cues ("Same here on macOS."), references ("See also #12.") and claims that make no link ("I
have the same problem as #12.") are added at the rates measured in the archives.

Speed matters (a full world is about 2.1 million items and 10 million comments): every helper
draws from a few `random.Random` calls and joins prebuilt strings; no regular expressions.
"""

from __future__ import annotations

import random
import zlib

from issues_sts.sandbox.worlds import text as T
from issues_sts.sandbox.worlds import vocab as V
from issues_sts.sandbox.worlds.eras import Era
from issues_sts.sandbox.worlds.text import Topic

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
# looks for: in the paper world cue words come from duplicate talk and from the incidental cues
# below at each era's measured rate, not from whatever filler happened to say.
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
    "filed",
    "opened",
    "consolidat",
    "continu",
    "landed",
    "merged",
)


def cue_free(pool: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x for x in pool if not any(w in x.lower() for w in CUE_WORDS))


EXPECTED = cue_free(T.EXPECTED)
USE_CASES = cue_free(T.USE_CASES)
USER_LINES = cue_free(T.USER_LINES)
MAINTAINER_LINES = cue_free(T.MAINTAINER_LINES)
INTROS = cue_free(T.BUG_INTROS)
# Sentences that fill a comment or a prose body to its drawn length (cue-free, tested).
FILLER = cue_free(
    (
        "I traced it to the {component}; the {api} call is where it goes wrong.",
        "It only happens {trigger}, never on a clean checkout.",
        "Setting a breakpoint in {api} shows the state is already wrong before the call.",
        "The docs for {api} do not mention this case at all.",
        "Reverting to the previous release makes it go away.",
        "I tried clearing the cache and rebuilding from scratch, no change.",
        "We see it on about one run in ten, so it may be timing related.",
        "The {component} logs nothing useful even at the debug level.",
        "A minimal project reproduces it, so it is not our setup.",
        "This blocks our upgrade to {version}.",
        "Looking at the code, the error path in {api} never releases the lock.",
        "I can put together a smaller example if that helps.",
        "Happy to test a patch on our side.",
        "The behaviour changed somewhere between the last two releases.",
        "Thanks for looking into it!",
        "It works when I call {api} twice, which is odd.",
        "Could this be a race in the {component}?",
        "I think the fix belongs in the {component}, not in the callers.",
        "On {os} the output is different but the failure is the same kind.",
        "Here is what I get with the verbose flag on:",
    )
)
# Cue words that make no claim (a thread with one still has to be read): measured shares of
# the screen's words in the archives' comments put "same" first, then "dup", "favor", "track".
INCIDENTAL_CUES = (
    "Same here on {os}.",
    "Same problem after upgrading to {version}.",
    "Seeing the same thing with {api}.",
    "I get the same error {trigger}.",
    "Same for me, the {component} {symptom}.",
    "The dedup step in {api} is where it slows down.",
    "Deduplicating the inputs first did not help.",
    "I'm in favor of making this the default.",
    "I'll keep track of this in our internal tracker.",
    "Has this been reported upstream as well?",
    "The crash reported above also happens on {os}.",
)
# References that claim nothing: a related issue, a cause, a pull request.
REFERENCES = (
    "See also {ref}.",
    "Related: {ref}",
    "This might be related to {ref}.",
    "Probably caused by the change in {ref}.",
    "cc {ref}",
    "There is some background in {ref}.",
    "Possibly connected to {ref}, but the trace is different.",
)
# A bystander's "same problem as #N": a claim about their own problem, which links nothing.
ME_TOO = (
    "I have the same problem as {ref}.",
    "I have the same issue as {ref} on {os}.",
    "I'm seeing the same error as {ref}.",
)
# A form question that carries a cue word in every report that fills it in (neovim's asks
# whether Vim "behaves the same").
FORM_CUE_QUESTIONS = (
    "### Does the previous release behave the same?",
    "### Is the behaviour the same with a clean config?",
)
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
    # where in the bank a log starts follows the report's detail: the same problem logs the same
    # lines (as real logs of one bug do), so a retelling that keeps the detail shares them
    bank, size = LOG_BANK, len(LOG_BANK)
    start = zlib.crc32(f"{noun}:{topic.detail}".encode()) % size if topic.detail else 0
    # lines tagged by thread in one-character pieces, not by a word: a word on every line of a
    # long log (the component's, a "worker") would outweigh everything else two reports share in
    # a BM25 score
    body = [
        f"{stamp}{i // 60 % 60:02d}:{i % 60:02d}.{i * 37 % 1000:03d}Z [T-{i % 7}:{i % 3}] "
        f"{bank[(start + i * 13) % size]}"
        for i in range(lines)
    ]
    body.append(f"{stamp}59:59.999Z ERROR [{noun}] {topic.error_short}")
    return "\n".join(["```console", *body, "```"])


def log_for(rng: random.Random, topic: Topic, chars: int) -> str:
    """A pasted log about `chars` long (a line is about 90 characters)."""
    return pasted_log(rng, topic, max(1, chars // 90))


def long_traceback(rng: random.Random, topic: Topic) -> str:
    """A traceback with a variable number of frames (deep stacks are common in real reports)."""
    _, noun, verb = topic.component
    frames = rng.randrange(2, 9)
    mods = ("core", "runtime", "engine", "dispatch", "handlers", "utils", "io", "internal")
    if topic.lang == "python":
        lines = [
            "Traceback (most recent call last):",
            f'  File "/app/main.py", line {rng.randrange(5, 300)}, in {topic.detail or "<module>"}',
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


def _prose_parts(rng: random.Random, topic: Topic, w: dict[str, str]) -> list[str]:
    """A free-form report, as written before templates: what happened, code, the error."""
    intro = rng.choice(INTROS if topic.kind == "bug" else T.FEATURE_INTROS).format(**w)
    parts = [intro, rng.choice(FILLER).format(**w), T.code_block(rng, topic, usage=False)]
    if topic.kind == "bug":
        parts += [long_traceback(rng, topic), rng.choice(EXPECTED).format(**w)]
    return parts + [rng.choice(FILLER).format(**w), rng.choice(USE_CASES).format(**w)]


def _feature_parts(rng: random.Random, topic: Topic, w: dict[str, str], form: int) -> list[str]:
    """A feature request under the headings of a form (0) or a template (1)."""
    head = FORM_FEATURE[form]
    return [
        f"{head[0]}\n\n{rng.choice(T.FEATURE_INTROS).format(**w)}",
        f"{head[1]}\n\n{T.code_block(rng, topic, usage=True)}",
        f"{head[2]}\n\n{rng.choice(USE_CASES).format(**w)}",
        f"{head[3]}\n\n{rng.choice(FILLER).format(**w)}",
    ]


def _template_parts(rng: random.Random, topic: Topic, w: dict[str, str]) -> list[str]:
    """A markdown template with bold headings (the 2017-2023 kind)."""
    if topic.kind == "feature":
        return _feature_parts(rng, topic, w, 1)
    head = FORM_BUG[1]
    return [
        f"{head[0]}\n{rng.choice(INTROS).format(**w)}",
        f"{head[4]}\n{environment_dump(rng, topic)}",
        f"{head[1]}\n{T.code_block(rng, topic, usage=False)}",
        f"{head[2]}\n{rng.choice(EXPECTED).format(**w)}",
        f"{head[3]}\n{long_traceback(rng, topic)}",
        f"{head[5]}\n{rng.choice(FILLER).format(**w)}",
    ]


def _form_parts(rng: random.Random, topic: Topic, w: dict[str, str], style: int) -> list[str]:
    """An issue form: headings GitHub renders from the repository's form (2024 on)."""
    if topic.kind == "feature":
        return _feature_parts(rng, topic, w, 0)
    head = FORM_BUG[0 if style % 2 == 0 else 2]
    steps = "\n".join(
        f"{k + 1}. {step}" for k, step in enumerate(rng.sample(STEPS, rng.randrange(2, 5)))
    )
    return [
        f"{head[0]}\n\n{rng.choice(INTROS).format(**w)}",
        f"{head[1]}\n\n{steps}\n\n{T.code_block(rng, topic, usage=False)}",
        f"{head[2]}\n\n{rng.choice(EXPECTED).format(**w)}",
        f"{head[4]}\n\n{environment_dump(rng, topic)}",
        f"{head[3]}\n\n{long_traceback(rng, topic)}",
        rng.choice(CHECKLISTS),
    ]


def issue_body(rng: random.Random, topic: Topic, era: Era, style: int) -> str:
    """A report of the era's style, filled to a length drawn from the era's distribution; a
    body the era's rate picks says a cue word (prose: "the same happens ...", a form: its
    "behave the same?" question)."""
    target = era.body_length(rng)
    w = T.words(topic) | {"os": rng.choice(V.OSES)}
    if era.body_style == "prose":
        parts = _prose_parts(rng, topic, w)
    elif era.body_style == "template":
        parts = _template_parts(rng, topic, w)
    else:
        parts = _form_parts(rng, topic, w, style)
    parts.insert(min(2, len(parts)), T.detail_line(rng, topic))
    if rng.random() < era.body_cue:
        cue = (
            f"{rng.choice(FORM_CUE_QUESTIONS)}\n\n{rng.choice(('Yes', 'No', 'Not tested'))}"
            if era.body_style == "form"
            else rng.choice(INCIDENTAL_CUES).format(**w)
        )
        parts.insert(1, cue)
    kept = [parts[0]]
    size = len(parts[0])
    for part in parts[1:]:  # what fits (a part may overshoot the length by a fifth)
        if size + len(part) <= target * 1.2:
            kept.append(part)
            size += len(part) + 2
    while target - size > 60:
        if target - size >= 300:  # the long tail: a pasted log, trace or code
            kept.append(log_for(rng, topic, target - size))
            break
        kept.append(rng.choice(FILLER).format(**w))
        size += len(kept[-1]) + 2
    return "\n\n".join(kept)


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
def comment_text(
    rng: random.Random, topic: Topic, association: str, era: Era, ref: str | None = None
) -> str:
    """A comment filled to a length drawn from the era's distribution: chatter, more
    sentences, a pasted log in a long one; an incidental cue word at the era's rate, and `ref`
    (a reference that claims nothing) when given."""
    w = T.words(topic) | {"os": rng.choice(V.OSES)}
    target = era.comment_length(rng)
    if association in T.MAINTAINERS:
        first = rng.choice(MAINTAINER_LINES if topic.kind == "bug" else T.FEATURE_MAINTAINER_LINES)
    else:
        first = rng.choice(USER_LINES if topic.kind == "bug" else T.FEATURE_USER_LINES)
    sentences = [first.format(**w)]
    if rng.random() < era.cue_rate:
        sentences.append(rng.choice(INCIDENTAL_CUES).format(**w))
    if ref is not None:
        sentences.append(rng.choice(REFERENCES).format(ref=ref))
    size = sum(map(len, sentences))
    paste = 0
    while size < target:
        if size >= 600 and target - size >= 300:  # a long one pastes the rest
            paste = target - size
            break
        sentence = rng.choice(FILLER).format(**w)
        sentences.append(sentence)
        size += len(sentence) + 1
    text = " ".join(sentences)
    return text + "\n\n" + log_for(rng, topic, paste) if paste else text


def me_too(rng: random.Random, topic: Topic, ref: str) -> str:
    return rng.choice(ME_TOO).format(ref=ref, os=rng.choice(V.OSES))


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
