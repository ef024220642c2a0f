"""Texts of the generated world: titles, bodies (templates, code, tracebacks, logs), comments.

A `Topic` is what an issue is *about*; a duplicate is rendered from its canonical's topic with
other wording, other code and other environment details, so the pair is semantically related
without being a copy.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from issues_sts.sandbox.worlds import vocab as V


@dataclass(frozen=True)
class Topic:
    kind: str  # "bug" or "feature"
    lang: str
    component: tuple[str, str, str]
    error: str
    trigger: str
    symptom: str
    feature: str
    version: str
    # the report's one specific thing (a setting, a hook, a call of the reporter's own code):
    # a rare word that a retelling keeps at `Retelling.detail`, as real duplicates share a
    # function name or an option while the rest of their words differ
    detail: str = ""

    @property
    def api(self) -> str:
        _, noun, verb = self.component
        return {
            "python": f"{noun}.{verb}()",
            "rust": f"{noun.capitalize()}::{verb}()",
            "js": f"{noun}.{verb}()",
            "go": f"{noun}.{verb.capitalize()}()",
        }[self.lang]

    @property
    def error_short(self) -> str:
        return self.error if len(self.error) <= 70 else self.error[:67].rstrip() + "..."


def _fill(rng: random.Random) -> dict[str, str]:
    return {
        "key": rng.choice(V.KEYS),
        "attr": rng.choice(V.ATTRS),
        "path": rng.choice(V.PATHS),
        "hex": f"{rng.randrange(128, 256):x}",
        "pos": str(rng.randrange(2, 4096)),
        "secs": str(rng.choice((5, 10, 30, 60, 120))),
        "big": str(rng.randrange(1024, 65535)),
        "env": rng.choice(V.ENVS),
        "version": version(rng),
    }


def new_topic(rng: random.Random, lang: str, kind: str) -> Topic:
    fill = _fill(rng)
    return Topic(
        kind=kind,
        lang=lang,
        component=rng.choice(V.COMPONENTS),
        error=rng.choice(V.ERRORS[lang]).format(**fill),
        trigger=rng.choice(V.TRIGGERS).format(**fill),
        symptom=rng.choice(V.SYMPTOMS),
        feature=rng.choice(V.FEATURES),
        version=fill["version"],
        detail=detail(rng),
    )


DETAIL_SUFFIXES = ("limit", "mode", "hook", "buffer", "retries", "prefix", "level", "handler")


def detail(rng: random.Random) -> str:
    """A made-up identifier (`velmar_hook`): thousands of them, so two reports share one only
    when they are about the same thing."""
    return f"{rng.choice(V.SYLLABLES)}{rng.choice(V.SYLLABLES)}_{rng.choice(DETAIL_SUFFIXES)}"


DETAIL_LINES = (
    "It only goes wrong with `{detail}` set in our settings.",
    "The failing call goes through `{detail}` in our code.",
    "Removing `{detail}` from the config makes it pass.",
    "The last frame of our own code before the error is `{detail}`.",
    "We hit it from `{detail}`, which wraps {api}.",
)


def detail_line(rng: random.Random, topic: Topic) -> str:
    return rng.choice(DETAIL_LINES).format(**words(topic))


def version(rng: random.Random) -> str:
    return f"{rng.randrange(0, 4)}.{rng.randrange(0, 20)}.{rng.randrange(0, 10)}"


# -- titles ----------------------------------------------------------------------------------
BUG_TITLES = (
    "{api} {symptom} {trigger}",
    "{error_short} in {component} {trigger}",
    "{Component} {symptom} {trigger}",
    "[Bug]: {error_short} when using {api}",
    "`{api}` {symptom} {trigger}",
    "Getting `{error_short}` from the {component}",
    "{component}: {error_short}",
    "Regression in {version}: {api} {symptom}",
    "{Component} broken {trigger}",
    'Error "{error_short}" {trigger}',
)
FEATURE_TITLES = (
    "Feature request: support {feature} in the {component}",
    "Add {feature} to {api}",
    "[Feature] {feature} for the {component}",
    "Would it be possible to have {feature}?",
    "Support {feature} in {api}",
    "{Component}: please add {feature}",
)


def words(topic: Topic) -> dict[str, str]:
    label = topic.component[0]
    return {
        "api": topic.api,
        "component": label,
        "Component": label[0].upper() + label[1:],
        "symptom": topic.symptom,
        "trigger": topic.trigger,
        "error": topic.error,
        "error_short": topic.error_short,
        "feature": topic.feature,
        "version": topic.version,
        "detail": topic.detail,
    }


def title(rng: random.Random, topic: Topic) -> str:
    pool = BUG_TITLES if topic.kind == "bug" else FEATURE_TITLES
    return rng.choice(pool).format(**words(topic))


# -- bodies ----------------------------------------------------------------------------------
BUG_INTROS = (
    "{api} {symptom} {trigger}.",
    "I'm hitting `{error_short}` in the {component} {trigger}.",
    "Since {version} the {component} {symptom} for me {trigger}.",
    "Hi, thanks for the project! Unfortunately {api} {symptom} {trigger}.",
    "Our CI started failing today: the {component} {symptom} {trigger}.",
    "When I call {api} {trigger}, it {symptom} and prints the error below.",
    "Not sure if this is a bug or a misconfiguration on my side, but the {component} {symptom} "
    "{trigger}.",
)
EXPECTED = (
    "I expected {api} to finish normally, as it did before {version}.",
    "It should not fail; the same input works {alt}.",
    "No error, and the {component} should keep working.",
    "I would expect either a clear error message or a successful run.",
)
FEATURE_INTROS = (
    "It would be great if the {component} supported {feature}.",
    "Is there a plan to add {feature}? Right now I work around it by wrapping {api}.",
    "Many tools in this space offer {feature}; having it in the {component} would help us a lot.",
    "**Is your feature request related to a problem?** I can't find a way to get {feature} from "
    "{api}.",
)
USE_CASES = (
    "We run the {component} in CI on every commit, so this matters for us.",
    "Our team has {n} services using {api} and we keep writing the same wrapper.",
    "This came up while migrating from another tool that already does it.",
    "For large projects this would save a lot of time.",
    "I looked through the docs and the changelog up to {version} but found nothing.",
    "Right now the only option is to patch the {component} locally.",
    "A colleague asked about this too, so I'm opening an issue to track it.",
    "Without it, scripting around {api} is quite awkward.",
)
CLOSINGS = (
    "Happy to open a PR if this sounds reasonable.",
    "Thanks for considering!",
    "Would you accept a contribution for this?",
    "Let me know if you need more details.",
)
TEMPLATE_LEFTOVERS = (
    "<!-- Please search existing issues before opening a new one. If this is a duplicate, write: "
    "Duplicate of # -->",
    "<!-- Thanks for filing! Is this a duplicate? Link it like: Duplicate of #(issue number) -->",
    "- [ ] I have searched the issue tracker for duplicates",
    "- [x] I searched existing issues and this is not a duplicate",
)


def issue_body(rng: random.Random, topic: Topic, style: int) -> str:
    """A bug report or feature request in one of three repository template styles."""
    w = words(topic) | {
        "alt": rng.choice(("on Linux", "with the previous release", "on my laptop"))
    }
    if topic.kind == "feature":
        intro = rng.choice(FEATURE_INTROS).format(**w)
        use_case = rng.choice(USE_CASES).format(**w, n=rng.randrange(3, 40))
        use_case += " " + detail_line(rng, topic)
        sketch = code_block(rng, topic, usage=True)
        parts = [intro, use_case, "", "For example:", "", sketch, "", rng.choice(CLOSINGS)]
        return "\n".join(parts + _leftover(rng))
    intro = rng.choice(BUG_INTROS).format(**w)
    expected = rng.choice(EXPECTED).format(**w) + " " + detail_line(rng, topic)
    trace = traceback_block(rng, topic)
    env = environment(rng, topic)
    code = code_block(rng, topic, usage=False)
    if style == 0:
        parts = [
            "**Describe the bug**",
            intro,
            "",
            "**To Reproduce**",
            code,
            "",
            trace,
            "",
            "**Expected behavior**",
            expected,
            "",
            "**Environment**",
            env,
        ]
    elif style == 1:
        parts = [
            "### What happened?",
            "",
            intro,
            "",
            "### Steps to reproduce",
            "",
            code,
            "",
            "### Relevant log output",
            "",
            log_block(rng, topic),
            "",
            trace,
            "",
            "### Version",
            "",
            env,
            "",
            "### Code of Conduct",
            "",
            "- [X] I agree to follow this project's Code of Conduct",
        ]
    else:
        parts = [intro, "", code, "", "Output:", "", trace, "", expected, "", env]
    if rng.random() < 0.08:
        parts += ["", full_log(rng, topic)]
    return "\n".join(parts + _leftover(rng))


def full_log(rng: random.Random, topic: Topic) -> str:
    """A long pasted log in a collapsed <details> block: the long tail of issue lengths."""
    _, noun, verb = topic.component
    count = rng.randrange(40, 220)
    lines = [
        f"[{i * 37 % 60:02d}.{i * 7919 % 1000:03d}] DEBUG {noun}: {verb} step {i} "
        f"(queue={rng.randrange(0, 64)}, took {rng.randrange(1, 900)}ms)"
        for i in range(count)
    ]
    lines.append(f"[{count % 60:02d}.000] ERROR {topic.error_short}")
    return "\n".join(
        ["<details><summary>Full log</summary>", "", "```", *lines, "```", "", "</details>"]
    )


def _leftover(rng: random.Random) -> list[str]:
    return ["", rng.choice(TEMPLATE_LEFTOVERS)] if rng.random() < 0.25 else []


def environment(rng: random.Random, topic: Topic) -> str:
    runtime = {
        "python": "Python 3.1{}",
        "rust": "rustc 1.{}0.0",
        "js": "Node.js 2{}.x",
        "go": "go1.2{}",
    }
    return "\n".join(
        [
            f"- OS: {rng.choice(V.OSES)}",
            f"- Version: {topic.version if rng.random() < 0.6 else version(rng)}",
            f"- Runtime: {runtime[topic.lang].format(rng.randrange(0, 4))}",
        ]
    )


def code_block(rng: random.Random, topic: Topic, *, usage: bool) -> str:
    _, noun, verb = topic.component
    var = rng.choice(("cfg", "opts", "item", "data", "ctx", "job", "payload", "state"))
    value = rng.choice(('"./input"', "42", '"eu-west-1"', "None", "[]", '"utf-8"'))
    lines = {
        "python": (
            "python",
            [
                f"from {noun}s import {noun.capitalize()}",
                "",
                f"{var} = {noun.capitalize()}({rng.choice(V.KEYS)}={value})",
                f"result = {var}.{verb}()",
                "print(result)",
            ],
        ),
        "rust": (
            "rust",
            [
                "fn main() {",
                f"    let {var} = {noun.capitalize()}::new();",
                f"    let out = {var}.{verb}().unwrap();",
                '    println!("{:?}", out);',
                "}",
            ],
        ),
        "js": (
            "js",
            [
                f"const {{ {noun} }} = require('{noun}');",
                "",
                f"const {var} = {{ {rng.choice(V.KEYS)}: {value} }};",
                f"{noun}.{verb}({var}).then(console.log);",
            ],
        ),
        "go": (
            "go",
            [
                "func main() {",
                f"\t{var}, err := {noun}.{verb.capitalize()}(ctx)",
                "\tif err != nil {",
                "\t\tlog.Fatal(err)",
                "\t}",
                f"\tfmt.Println({var})",
                "}",
            ],
        ),
    }[topic.lang]
    lang, body = lines
    if usage:
        body = [
            *body[:-1],
            f"# with {topic.feature}" if lang == "python" else f"// with {topic.feature}",
            body[-1],
        ]
    return "\n".join([f"```{lang}", *body, "```"])


def traceback_block(rng: random.Random, topic: Topic) -> str:
    _, noun, verb = topic.component
    line = lambda: rng.randrange(12, 900)  # noqa: E731 - tiny local helper
    frames = {
        "python": [
            "Traceback (most recent call last):",
            f'  File "app.py", line {line()}, in {topic.detail or "<module>"}',
            f"    {noun}.{verb}()",
            f'  File "site-packages/{noun}s/core.py", line {line()}, in {verb}',
            f"    return self._{verb}_impl(*args)",
            topic.error,
        ],
        "rust": [
            topic.error,
            f"note: src/{noun}/mod.rs:{line()}:{rng.randrange(5, 60)}",
            "stack backtrace:",
            f"   0: {noun}::{verb}",
            f"   1: {noun}::{verb}_inner",
            f"   2: app::{topic.detail or 'main'}",
        ],
        "js": [
            topic.error,
            f"    at {noun}.{verb} "
            f"(node_modules/{noun}/lib/{noun}.js:{line()}:{rng.randrange(3, 40)})",
            f"    at {topic.detail or 'main'} (src/app.js:{line()}:9)",
            "    at process.processTicksAndRejections "
            f"(node:internal/process/task_queues:{line()}:5)",
        ],
        "go": [
            topic.error,
            "",
            "goroutine 1 [running]:",
            f"{noun}.{verb.capitalize()}(...)",
            f"\t/go/src/internal/{noun}/{noun}.go:{line()} +0x{rng.randrange(16, 4096):x}",
            f"main.{topic.detail or 'main'}(...)",
        ],
    }[topic.lang]
    return "\n".join(["```", *frames, "```"])


def log_block(rng: random.Random, topic: Topic) -> str:
    level_lines = [
        f"INFO  starting {topic.component[0]} v{topic.version}",
        f"DEBUG {topic.component[1]}: {topic.component[2]} via {topic.detail or 'main'} attempt "
        f"{rng.randrange(1, 4)}",
        f"WARN  slow {topic.component[2]} ({rng.randrange(200, 9000)} ms)",
        f"ERROR {topic.error_short}",
    ]
    stamp = (
        f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(0, 24):02d}:"
    )
    return "\n".join(
        ["```shell", *(f"{stamp}{i:02d}:0{i}Z {text}" for i, text in enumerate(level_lines)), "```"]
    )


# -- comments --------------------------------------------------------------------------------
USER_LINES = (
    "I can reproduce this on {os}.",
    "Same here after upgrading to {version}.",
    "Any update on this?",
    "+1, this is blocking us.",
    "A workaround for now is to pin the previous release.",
    "Here's a smaller reproduction:\n\n```\n{api}\n```\n\nstill fails the same way.",
    "Also seeing this on {os}, with a slightly different stack trace.",
)
MAINTAINER_LINES = (
    "Thanks for the report! Could you share the full output with `--verbose`?",
    "Looks like the {component} is the culprit; I'll take a look this week.",
    "Could you try the latest main branch? A related fix landed yesterday.",
    "Confirmed. The {api} path doesn't handle this case.",
    "I'm not able to reproduce with the snippet above on {os}. Which version are you on?",
    "Fixed in {version}, please reopen if you still see it.",
)
FEATURE_USER_LINES = (
    "+1, we'd use {feature} every day.",
    "Any news on this? It would simplify our setup a lot.",
    "I hacked around it with a wrapper around {api} for now.",
    "Would love this too, especially for the {component}.",
)
FEATURE_MAINTAINER_LINES = (
    "Sounds reasonable. A PR is welcome; the {component} lives under `src/`.",
    "We discussed this in the last sync: {feature} is on the roadmap for {version}.",
    "Not sure this belongs in core; could it be a plugin?",
    "Thanks for the suggestion! Labeling as enhancement.",
)
MAINTAINERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


STALE = (
    "This issue has been automatically marked as stale because it has not had recent activity. "
    "It will be closed if no further activity occurs. Thank you for your contributions."
)


def chatter(rng: random.Random, topic: Topic, association: str) -> str:
    """A comment that is not about duplicates, in the voice of a maintainer or a user."""
    w = words(topic) | {"os": rng.choice(V.OSES)}
    maintainer = association in MAINTAINERS
    pool: tuple[str, ...]
    if topic.kind == "feature":
        pool = FEATURE_MAINTAINER_LINES if maintainer else FEATURE_USER_LINES
    else:
        pool = MAINTAINER_LINES if maintainer else USER_LINES
    return rng.choice(pool).format(**w)


PR_TITLES = (
    "Fix {error_short} in {component}",
    "{component}: handle the case {trigger}",
    "Add {feature}",
    "Refactor {api} internals",
    "docs: clarify how {api} behaves {trigger}",
)
PR_BODIES = (
    "Fixes #{issue number}\n\n## Changes\n\n- handle the edge case in {api}\n"
    "- add a regression test",
    "Closes #{ref}\n\nThis makes the {component} robust {trigger}.",
    "## Summary\n\nRework {api}.\n\n## Related issues\n\nFixes #\n\n## Checklist\n\n- [x] tests\n"
    "- [ ] docs",
    "Resolves #{ref}. Tested on {os}.",
)


def pull_request_text(rng: random.Random, topic: Topic, ref: int | None) -> tuple[str, str]:
    w = words(topic) | {"os": rng.choice(V.OSES), "ref": str(ref or 1)}
    body_pool = PR_BODIES if ref else (PR_BODIES[0], PR_BODIES[2])
    body = rng.choice(body_pool)
    return rng.choice(PR_TITLES).format(**w), body.replace("{issue number}", "\0").format(
        **w
    ).replace("\0", "{issue number}")


@dataclass(frozen=True)
class Retelling:
    """How far a new report of a known problem strays from the first one: the chance that each
    detail is the same. Real duplicates share less than their canonical's exact words: another
    reporter meets the bug another way, sees another error line of it, names another version
    (`python -m benchmarks.difficulty` measures how alike real duplicates are)."""

    error: float = 0.5
    trigger: float = 0.35
    symptom: float = 0.25
    version: float = 0.3
    feature: float = 0.6
    detail: float = 0.9


RETELLING = Retelling()


def reword(rng: random.Random, topic: Topic, how: Retelling = RETELLING) -> Topic:
    """The same problem as `topic`, as another reporter would meet it: the same component and
    API; its error, trigger, symptom, version (a feature: its wording) each kept only at the
    rate `how` gives."""
    fill = _fill(rng)
    keep = lambda share: rng.random() < share  # noqa: E731 - tiny local helper
    return Topic(
        topic.kind,
        topic.lang,
        topic.component,
        topic.error if keep(how.error) else rng.choice(V.ERRORS[topic.lang]).format(**fill),
        topic.trigger if keep(how.trigger) else rng.choice(V.TRIGGERS).format(**fill),
        topic.symptom if keep(how.symptom) else rng.choice(V.SYMPTOMS),
        topic.feature if keep(how.feature) else rng.choice(V.FEATURES),
        topic.version if keep(how.version) else fill["version"],
        topic.detail if keep(how.detail) else detail(rng),
    )


def sibling(rng: random.Random, topic: Topic) -> Topic:
    """Another problem of the same component: a same-topic issue that is not a duplicate (the
    hard negatives real trackers are full of). Its trigger always differs; its error mostly."""
    fresh = new_topic(rng, topic.lang, topic.kind)
    return Topic(
        topic.kind,
        topic.lang,
        topic.component,
        topic.error if rng.random() < 0.25 else fresh.error,
        fresh.trigger
        if fresh.trigger != topic.trigger
        else rng.choice(V.TRIGGERS).format(**_fill(rng)),
        fresh.symptom,
        fresh.feature,
        fresh.version,
        fresh.detail,
    )


# -- a report by someone who describes it differently ------------------------------------------
VAGUE_OPENINGS = (
    "Hi all, not sure if this is the right place to ask.",
    "This started a few days ago and I can't figure out why.",
    "Sorry if this is a silly question.",
    "I'm new to this project, so bear with me.",
    "Something changed recently and now my setup is broken.",
)
VAGUE_PROBLEMS = (
    "When I use the {noun} stuff, the whole thing {symptom}.",
    "My script {symptom} as soon as it gets to the {noun} part.",
    "Everything {symptom} once I enable {noun}, it worked fine last month.",
    "The program just {symptom}, it seems to be somewhere around {noun}.",
    "I get a weird failure and then it {symptom}.",
    "The {noun} part {symptom} right after it starts, every single time.",
    "It {symptom} halfway through and I have to kill it.",
)
VAGUE_DETAILS = (
    "I'm on {os}, installed with the default options.",
    "No idea what the error means, I only see a red line in the terminal.",
    "I tried reinstalling and restarting, no luck.",
    "It doesn't happen every time, maybe one run in three.",
    "A friend on {os} says it works for them.",
    "I can share my project if that helps.",
    "The last thing it prints is an error about {noun}.",
    "The last thing it prints is `{error_short}`.",
)
# the one specific thing a vague report still names, more often than not
VAGUE_DETAIL = ("I have `{detail}` in my setup, if that matters.", 0.6)


def terse_body(rng: random.Random, topic: Topic) -> str:
    """A short report without the repository's template or a reproduction: what happened,
    the error as the reporter saw it, the one thing they know about their setup."""
    w = words(topic)
    intro = rng.choice(BUG_INTROS if topic.kind == "bug" else FEATURE_INTROS).format(**w)
    parts = [intro, detail_line(rng, topic)]
    if topic.kind == "bug":
        parts.insert(1, traceback_block(rng, topic))
    return "\n\n".join(parts)


def vague_body(rng: random.Random, topic: Topic) -> str:
    """A short report in a user's own words: no template, no trace, few of the terms the
    first report used."""
    w = words(topic) | {"noun": topic.component[1], "os": rng.choice(V.OSES)}
    details = rng.sample(VAGUE_DETAILS, rng.randrange(1, 4))
    lines = [rng.choice(VAGUE_OPENINGS), rng.choice(VAGUE_PROBLEMS), *details]
    if rng.random() < VAGUE_DETAIL[1]:
        lines.append(VAGUE_DETAIL[0])
    return " ".join(line.format(**w) for line in lines)


VAGUE_TITLES = (
    "{noun} not working",
    "Help: it {symptom}",
    "Problem after update",
    "Weird behaviour with {noun}",
    "Can't get {noun} to work {trigger}",
    "Is this a bug?",
)


def vague_title(rng: random.Random, topic: Topic) -> str:
    return rng.choice(VAGUE_TITLES).format(**words(topic), noun=topic.component[1])
