"""The import layering of the house, read from the source with `ast` (nothing is imported).
Each rule is a row of `RULES`: the files it applies to and the check. Every rule holds on
the tree, and fails on a copy of the tree where one violating import was added:

- nothing outside cli/ imports the CLI (the stages, the sandbox, training);
- training/ takes from issues_sts only its errors, the public dataset-reading API
  (`issues_sts.dataset`'s own names), the package version and the `Option` marker that ties
  a config field to its CLI option;
- nothing in the product imports the sandbox (the fake GitHub, its worlds, the fake Hub); the
  CLI and the demo import it only inside a function (a command that runs), and only in the
  commands that need it (`SANDBOX_COMMANDS`): `issues-sts links`, `build` or `crawl` never
  loads the fake GitHub (checked on a running process with `-X importtime` too);
- the crawler imports no stage (links, dataset, hub, annotations, retrieval, training): what it
  screens with is `issues_sts.evidence`;
- the link stage imports neither the crawler nor a room above it; the archives it is measured
  on are loaded by `issues_sts.annotations`, which no stage imports;
- `issues_sts.evidence` (what counts as duplicate evidence) is the ground floor: it imports
  only itself, the errors and the shared configuration;
- the dataset does not import the Hub stage (hub/ pushes what dataset/ built; a Hub id to
  build from is downloaded by the CLI, which hands the build a folder), and reaches the link
  stage through its public API only (names imported from `issues_sts.links` itself);
- the store imports no stage: from issues_sts, the store/ package takes only its own modules
  and the errors (the callers pass in what a stage knows, e.g. the status query's predicates);
- the store owns its SQL: no SQL statement and no use of its connection outside store/;
- retrieval (`issues_sts.retrieval`) has a room of its own above the dataset and training: it
  uses training's encoders and the dataset's text recipe, and neither of them imports it, nor
  do the links, the crawler, the store or the Hub stage; it imports neither the CLI nor the
  sandbox.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# every module that is not the CLI: none of them imports it (the sandbox included)
BELOW_CLI = ("issues_sts", "training")
# the product: none of it imports the sandbox (the CLI and the demo only lazily, see below)
PRODUCT = ("issues_sts", "training")
# the modules that may import the sandbox inside a function: the commands that need it
SANDBOX_COMMANDS = frozenset(
    {
        "issues_sts.cli.demo",  # the demo's generated world
        "issues_sts.cli.fake",  # fake-github
        "issues_sts.cli.fakehub",  # fake-hub
        "issues_sts.cli.links",  # links evaluate: the neovim rounds, a crawl of the fake GitHub
        "issues_sts.demo",  # the demo's runner: it serves the fake GitHub
    }
)
# the stages downstream of the crawl: the crawler imports none of them
STAGES = (
    "issues_sts.links",
    "issues_sts.dataset",
    "issues_sts.hub",
    "issues_sts.annotations",
    "issues_sts.retrieval",
    "training",
)
# what the link stage may not import: the crawler, the rooms above it
ABOVE_LINKS = (
    "issues_sts.crawl",
    "issues_sts.annotations",
    "issues_sts.dataset",
    "issues_sts.hub",
    "training",
)
# the rooms below the link stage's measurement: none of them imports issues_sts.annotations
BELOW_ANNOTATIONS = (
    "issues_sts/evidence",
    "issues_sts/store",
    "issues_sts/crawl",
    "issues_sts/links",
    "issues_sts/dataset",
    "issues_sts/hub",
    "issues_sts/retrieval",
    "training",
)
# what issues_sts.evidence may import from the project (the rest is the standard library)
EVIDENCE_MAY_USE = ("issues_sts.evidence", "issues_sts.errors", "issues_sts.config")
# what training/ may import from issues_sts: module -> names (None: the module itself)
TRAINING_MAY_USE = {
    "issues_sts.errors": None,
    "issues_sts.dataset": None,
    "issues_sts": {"__version__"},
    "issues_sts.config": {"Option"},
}
# the packages below retrieval: none of them imports it
BELOW_RETRIEVAL = (
    "issues_sts/dataset",
    "training",
    "issues_sts/links",
    "issues_sts/crawl",
    "issues_sts/store",
    "issues_sts/hub",
)
# what the store may import from issues_sts besides itself: the ground floor, no stage
STORE_MAY_USE = ("issues_sts.errors",)


def imports(source: str, module: str) -> list[tuple[str, str | None]]:
    """(imported module, name or None) for every import in `source`, function bodies included;
    relative imports are resolved against `module` (the dotted name of the file)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: -node.level]
                base = ".".join([*parent, base] if base else parent)
            found += [(base, alias.name) for alias in node.names]
    return found


def module_level_imports(source: str, module: str) -> list[tuple[str, str | None]]:
    """The imports a module runs when it is imported: its top level (conditional blocks and
    `try` included), not function bodies nor `if TYPE_CHECKING:` blocks (never run)."""
    found: list[tuple[str, str | None]] = []
    pending = list(ast.parse(source).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending += node.orelse
        elif isinstance(node, ast.If | ast.Try | ast.With):
            pending += [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt)]
            if isinstance(node, ast.Try):
                pending += [s for h in node.handlers for s in h.body]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found += imports(ast.unparse(node), module)
    return found


def files(*roots: str, root: Path = ROOT) -> list[Path]:
    paths: list[Path] = []
    for name in roots:
        path = root / name
        paths += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return paths


def dotted(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(path: Path) -> list[tuple[str, str | None]]:
    return imports(path.read_text(encoding="utf-8"), dotted(path))


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


Imports = list[tuple[str, str | None]]


def cli_violations(found: Imports) -> list[str]:
    return [
        f"{module}.{name}" if name else module
        for module, name in found
        if within(module, "issues_sts.cli") or (module == "issues_sts" and name == "cli")
    ]


def sandbox_violations(found: Imports) -> list[str]:
    return [
        module
        for module, name in found
        if within(module, "issues_sts.sandbox") or (module == "issues_sts" and name == "sandbox")
    ]


def hub_violations(found: Imports) -> list[str]:
    return [
        f"{module}.{name}" if name else module
        for module, name in found
        if within(module, "issues_sts.hub") or (module == "issues_sts" and name == "hub")
    ]


def links_internals(found: Imports) -> list[str]:
    """Imports of the link stage's modules (`issues_sts.links.stage`...), not of the package."""
    return [
        f"{module}.{name}" if name else module
        for module, name in found
        if module.startswith("issues_sts.links.")
    ]


def _named(module: str, name: str | None) -> str:
    """`from issues_sts import links` names the module issues_sts.links."""
    return f"{module}.{name}" if name else module


def stage_violations(found: Imports) -> list[str]:
    return [
        _named(module, name)
        for module, name in found
        if any(within(module, s) or within(_named(module, name), s) for s in STAGES)
    ]


def evidence_violations(found: Imports) -> list[str]:
    bad = []
    for module, name in found:
        full = _named(module, name)
        project = within(module, "issues_sts") or within(module, "training")
        if project and not any(within(full, ok) or within(module, ok) for ok in EVIDENCE_MAY_USE):
            bad.append(full)
    return bad


def retrieval_violations(found: Imports) -> list[str]:
    return [
        _named(module, name)
        for module, name in found
        if within(module, "issues_sts.retrieval")
        or (module == "issues_sts" and name == "retrieval")
    ]


def training_violations(found: Imports) -> list[str]:
    bad = []
    for module, name in found:
        if not within(module, "issues_sts"):
            continue
        if module not in TRAINING_MAY_USE:
            bad.append(module if name is None else f"{module}.{name}")
            continue
        allowed = TRAINING_MAY_USE[module]
        if allowed is not None and name not in allowed:
            bad.append(f"{module}.{name}")
    return bad


def store_violations(found: Imports) -> list[str]:
    named = [
        f"{module}.{name}" if module == "issues_sts" and name else module for module, name in found
    ]
    return [
        module
        for module in named
        if (within(module, "issues_sts") or within(module, "training"))
        and not within(module, "issues_sts.store")
        and not any(within(module, allowed) for allowed in STORE_MAY_USE)
    ]


def links_upward(found: Imports) -> list[str]:
    """What the link stage may not import: the crawler (archives are loaded by
    `issues_sts.annotations`), the stages above it and its own measurement."""
    return [
        _named(module, name)
        for module, name in found
        if any(within(module, s) or within(_named(module, name), s) for s in ABOVE_LINKS)
    ]


def annotations_violations(found: Imports) -> list[str]:
    return [
        _named(module, name)
        for module, name in found
        if within(module, "issues_sts.annotations")
        or (module == "issues_sts" and name == "annotations")
    ]


def eager_sandbox(source: str, module: str) -> list[str]:
    """Sandbox imports run when the module is imported (every command would load them)."""
    return sandbox_violations(module_level_imports(source, module))


def sandbox_outside_its_commands(source: str, module: str) -> list[str]:
    """Sandbox imports, even lazy ones, in a module that is not one of `SANDBOX_COMMANDS`."""
    return [] if module in SANDBOX_COMMANDS else sandbox_violations(imports(source, module))


Check = Callable[[str, str], list[str]]  # (source, dotted module name) -> the violations


def on_imports(check: Callable[[Imports], list[str]]) -> Check:
    return lambda source, module: check(imports(source, module))


@dataclass(frozen=True)
class Rule:
    roots: tuple[str, ...]  # the files it applies to (folders or files under the repository)
    check: Check
    planted: tuple[str, str]  # (module, import): a violation added to a copy of the tree
    skip: tuple[str, ...] = ()  # dotted modules under `roots` the rule leaves out


RULES: dict[str, Rule] = {
    "nothing below the CLI imports it": Rule(
        BELOW_CLI,
        on_imports(cli_violations),
        ("issues_sts.annotations.evaluate", "from issues_sts.cli import common"),
        skip=("issues_sts.cli", "issues_sts.__main__"),
    ),
    "training uses only errors and the dataset-reading API": Rule(
        ("training",),
        on_imports(training_violations),
        ("training.data", "from issues_sts.links import build_links"),
    ),
    "the product never imports the sandbox": Rule(
        PRODUCT,
        on_imports(sandbox_violations),
        ("issues_sts.annotations.archives", "from issues_sts.sandbox import archive_crawl"),
        skip=("issues_sts.sandbox", "issues_sts.cli", "issues_sts.demo", "issues_sts.__main__"),
    ),
    "the CLI and the demo import the sandbox only when a command runs": Rule(
        ("issues_sts/cli", "issues_sts/demo.py"),
        eager_sandbox,
        (
            "issues_sts.cli.links",
            "from issues_sts.sandbox.archive_crawl import crawl_archive_store",
        ),
    ),
    "only the commands that need the sandbox import it": Rule(
        ("issues_sts/cli", "issues_sts/demo.py"),
        sandbox_outside_its_commands,
        ("issues_sts.cli.build", "def f():\n    from issues_sts.sandbox import stores\n"),
    ),
    "the crawler imports no stage": Rule(
        ("issues_sts/crawl",),
        on_imports(stage_violations),
        ("issues_sts.crawl.plan", "from issues_sts.annotations import archives"),
    ),
    "the link stage imports neither the crawler nor what is above it": Rule(
        ("issues_sts/links",),
        on_imports(links_upward),
        ("issues_sts.links.stage", "from issues_sts.crawl.rows import issue_rows"),
    ),
    "no stage imports its measurement (annotations)": Rule(
        BELOW_ANNOTATIONS,
        on_imports(annotations_violations),
        ("issues_sts.dataset.build", "def f():\n    from ..annotations import labels\n"),
    ),
    "evidence imports nothing above it": Rule(
        ("issues_sts/evidence",),
        on_imports(evidence_violations),
        ("issues_sts.evidence.screen", "from issues_sts.links import LinkConfig"),
    ),
    "the dataset does not import the Hub": Rule(
        ("issues_sts/dataset",),
        on_imports(hub_violations),
        ("issues_sts.dataset.export", "from ..hub import push"),
    ),
    "the dataset uses the link stage's public API": Rule(
        ("issues_sts/dataset",),
        on_imports(links_internals),
        ("issues_sts.dataset.build", "from issues_sts.links.model import LinkConfig"),
    ),
    "nothing below retrieval imports it": Rule(
        BELOW_RETRIEVAL,
        on_imports(retrieval_violations),
        ("issues_sts.links.stage", "from ..retrieval import metrics"),
    ),
    "retrieval imports neither the CLI nor the sandbox": Rule(
        ("issues_sts/retrieval",),
        on_imports(lambda found: cli_violations(found) + sandbox_violations(found)),
        ("issues_sts.retrieval.bm25", "from ..sandbox import worlds"),
    ),
    "the store imports no stage": Rule(
        ("issues_sts/store",),
        on_imports(store_violations),
        ("issues_sts.store.frames", "from issues_sts import dataset"),
    ),
    "only the store speaks SQL": Rule(
        ("issues_sts", "training"),
        lambda source, module: sql_violations(source),
        ("issues_sts.links.stage", 'rows = store.conn.execute("SELECT 1 FROM issues LIMIT 1")'),
        skip=("issues_sts.store",),
    ),
}


def violations(rule: Rule, root: Path = ROOT) -> dict[str, list[str]]:
    """Per file under `root` the rule applies to, what it reports."""
    found = {}
    for path in files(*rule.roots, root=root):
        module = dotted(path, root)
        if any(within(module, skipped) for skipped in rule.skip):
            continue
        bad = rule.check(path.read_text(encoding="utf-8"), module)
        if bad:
            found[str(path.relative_to(root))] = bad
    return found


@pytest.mark.parametrize("name", RULES)
def test_the_rule_holds(name: str) -> None:
    assert violations(RULES[name]) == {}


@pytest.mark.parametrize("name", RULES)
def test_the_rule_is_not_vacuous(name: str) -> None:
    """Every folder a rule names is there, with Python files in it."""
    for root in RULES[name].roots:
        assert files(root), f"{root} holds no module"


def _copy(tmp: Path) -> Path:
    """The repository's Python files (product, sandbox, training) in a temporary folder."""
    keep = shutil.ignore_patterns("__pycache__", "*.graphql", "*.json", "*.txt", "*.md", "*.gz")
    for package in ("issues_sts", "training"):
        shutil.copytree(ROOT / package, tmp / package, ignore=keep)
    return tmp


@pytest.mark.parametrize("name", RULES)
def test_the_rule_fails_on_a_planted_violation(name: str, tmp_path: Path) -> None:
    """A copy of the tree with one violating import added to one real module: the rule
    reports that module and no other."""
    rule = RULES[name]
    module, planted = rule.planted
    tree = _copy(tmp_path)
    path = tree / (module.replace(".", "/") + ".py")
    assert path.is_file(), f"{module} is not a module of the tree"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + planted + "\n", encoding="utf-8")
    assert list(violations(rule, tree)) == [str(path.relative_to(tree))]


@pytest.mark.parametrize(
    ("source", "module", "caught"),
    [
        ("from issues_sts.sandbox.corpus import Corpus", "issues_sts.cli.fake", True),
        ("try:\n    import issues_sts.sandbox\nexcept ImportError:\n    pass\n", "m", True),
        ("if True:\n    from issues_sts import sandbox\n", "issues_sts.cli.demo", True),
        ("if TYPE_CHECKING:\n    from issues_sts.sandbox.corpus import Corpus\n", "m", False),
        ("def f():\n    from issues_sts.sandbox.hub import serve_fake_hub\n", "m", False),
        ("class C:\n    def f(self):\n        import issues_sts.sandbox\n", "m", False),
    ],
)
def test_lazy_means_inside_a_function(source: str, module: str, caught: bool) -> None:
    assert bool(eager_sandbox(source, module)) is caught


@pytest.mark.parametrize("command", [["links", "--help"], ["build", "--help"], ["crawl", "--help"]])
def test_a_command_without_the_sandbox_does_not_load_it(command: list[str]) -> None:
    """What the rules above promise, seen from a running process: `issues-sts links ...`,
    `build` and `crawl` import no module of the sandbox (`-X importtime` lists every import)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "issues_sts", *command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = [line for line in run.stderr.splitlines() if "issues_sts.sandbox" in line]
    assert loaded == []
    assert "issues_sts.cli.links" in run.stderr  # the listing is the one of the whole app


@pytest.mark.parametrize(
    ("source", "module", "check"),
    [
        (
            "from issues_sts.links.vocabulary import CUE",
            "issues_sts.crawl.candidates",
            stage_violations,
        ),
        ("def f():\n    from issues_sts import links\n", "issues_sts.crawl.feed", stage_violations),
        ("from ..dataset import build", "issues_sts.crawl.runner", stage_violations),
        ("import issues_sts.hub.push", "issues_sts.crawl.client", stage_violations),
        ("from training import config", "issues_sts.crawl.runner", stage_violations),
        (
            "from issues_sts.crawl.runner import Runner",
            "issues_sts.evidence.screen",
            evidence_violations,
        ),
        ("from ..links.model import Thread", "issues_sts.evidence.patterns", evidence_violations),
        (
            "def f():\n    import issues_sts.dataset\n",
            "issues_sts.evidence.vocabulary",
            evidence_violations,
        ),
        ("from issues_sts import hub", "issues_sts.evidence.text", evidence_violations),
        ("from issues_sts.store import Store", "issues_sts.evidence.replies", evidence_violations),
        ("from ..cli import common", "issues_sts.evidence.gated", evidence_violations),
        ("import training.config", "issues_sts.evidence.screen", evidence_violations),
        (
            "from issues_sts.sandbox import worlds",
            "issues_sts.evidence.patterns",
            evidence_violations,
        ),
        ("from issues_sts.cli.common import console", "issues_sts.dataset.build", cli_violations),
        ("def f():\n    import issues_sts.cli.app\n", "issues_sts.crawl.runner", cli_violations),
        ("from ..cli import common", "issues_sts.links.stage", cli_violations),
        ("from issues_sts import cli", "issues_sts.store.store", cli_violations),
        ("from issues_sts.store import Store", "training.pretrain_ran", training_violations),
        ("from issues_sts.dataset.texts import issue_texts", "training.data", training_violations),
        ("from issues_sts import demo", "training.data", training_violations),
        ("from issues_sts.config import command_line", "training.config", training_violations),
        ("from issues_sts.sandbox.hub import FakeHub", "issues_sts.hub.push", sandbox_violations),
        ("from ..sandbox.github import server", "issues_sts.crawl.client", sandbox_violations),
        (
            "def f():\n    from issues_sts.hub.fetch import locate_build\n",
            "issues_sts.dataset.build",
            hub_violations,
        ),
        ("from ..hub import push", "issues_sts.dataset.export", hub_violations),
        ("from issues_sts import hub", "issues_sts.dataset.card", hub_violations),
        (
            "from issues_sts.links.stage import LinkConsumer",
            "issues_sts.dataset.scan",
            links_internals,
        ),
        (
            "def f():\n    from ..links.model import LinkConfig\n",
            "issues_sts.dataset.build",
            links_internals,
        ),
        (
            "def f():\n    from issues_sts.links.vocabulary import says_duplicate\n",
            "issues_sts.store.status",
            store_violations,
        ),
        ("from ..crawl.threads import rest_login", "issues_sts.store.store", store_violations),
        ("from issues_sts import dataset", "issues_sts.store.frames", store_violations),
        ("import issues_sts.evidence", "issues_sts.store.codec", store_violations),
        ("from training.config import TrainConfig", "issues_sts.store.schema", store_violations),
        ("from issues_sts.retrieval import bm25", "issues_sts.dataset.build", retrieval_violations),
        (
            "def f():\n    from issues_sts.retrieval.encode import encode_texts\n",
            "training.evaluation",
            retrieval_violations,
        ),
        ("from issues_sts import retrieval", "issues_sts.hub.push", retrieval_violations),
        ("from ..retrieval import metrics", "issues_sts.links.stage", retrieval_violations),
        ("from issues_sts.cli import common", "issues_sts.retrieval.encode", cli_violations),
        ("from ..sandbox import worlds", "issues_sts.retrieval.bm25", sandbox_violations),
    ],
)
def test_each_rule_catches_a_violation(
    source: str, module: str, check: Callable[[Imports], list[str]]
) -> None:
    """The checks above are not vacuous: an import of each kind planted in a real module's
    source (the file on disk is not written) is reported."""
    path = ROOT / (module.replace(".", "/") + ".py")
    planted = path.read_text(encoding="utf-8") + "\n" + source + "\n"
    assert check(imports(planted, module)) != []


# statements as the store writes them (upper-case keywords), not English ("Create the repository")
SQL = re.compile(
    r"^\s*(SELECT\s.+\sFROM\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s"
    r"|CREATE\s+(TABLE|INDEX)\s|PRAGMA\s|VACUUM\b)",
    re.DOTALL,
)


def sql_violations(source: str) -> list[str]:
    """SQL statements written as string literals, and uses of a connection attribute."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            found.append(node.value[:40])
        elif isinstance(node, ast.Attribute) and node.attr in ("conn", "_conn"):
            found.append(f".{node.attr}")
    return found


@pytest.mark.parametrize(
    "source",
    [
        'rows = store.conn.execute("SELECT 1 FROM issues LIMIT 1")',
        'sql = "UPDATE meta SET value=? WHERE key=?"',
        "store._conn.close()",
    ],
)
def test_the_sql_rule_catches_a_violation(source: str) -> None:
    assert sql_violations(source) != []
