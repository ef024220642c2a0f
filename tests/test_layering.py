"""The import layering of the house, read from the source with `ast` (nothing is imported):

- nothing under crawl/, links/, dataset/, hub/, store/, demo.py or training/ imports the CLI;
- training/ takes from issues_sts only its errors, the public dataset-reading API
  (`issues_sts.dataset`'s own names), the package version and the `Option` marker that ties
  a config field to its CLI option;
- nothing in the product imports the sandbox (the fake GitHub, its worlds, the fake Hub);
- the dataset does not import the Hub stage (hub/ pushes what dataset/ built; a Hub id to
  build from is downloaded by the CLI, which hands the build a folder);
- the crawler imports no stage (links, dataset, hub, training): what it screens with is
  `issues_sts.evidence`;
- `issues_sts.evidence` (what counts as duplicate evidence) is the ground floor: it imports
  only itself, the errors and the shared configuration, never a stage, the store, the CLI or
  the sandbox;
- the dataset reaches the link stage through its public API only (names imported from
  `issues_sts.links` itself, the per-part API included), never through its modules;
- the store imports no stage: from issues_sts, the store/ package takes only its own modules
  and the errors (the callers pass in what a stage knows, e.g. the status query's predicates);
- the store owns its SQL: no SQL statement and no use of its connection outside store/;
- retrieval (`issues_sts.retrieval`) has a room of its own above the dataset and training:
  it uses training's encoders and the dataset's text recipe, and neither of them imports it,
  nor do the links, the crawler, the store or the Hub stage; it imports neither the CLI nor
  the sandbox.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BELOW_CLI = (
    "issues_sts/crawl",
    "issues_sts/retrieval",
    "issues_sts/links",
    "issues_sts/dataset",
    "issues_sts/hub",
    "issues_sts/store",
    "issues_sts/demo.py",
    "issues_sts/report.py",
    "training",
)
PRODUCT = (
    "issues_sts/crawl",
    "issues_sts/retrieval",
    "issues_sts/links",
    "issues_sts/dataset",
    "issues_sts/hub",
    "issues_sts/store",
    "training",
)
# the stages downstream of the crawl: the crawler imports none of them
STAGES = ("issues_sts.links", "issues_sts.dataset", "issues_sts.hub", "training")
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


def files(*roots: str) -> list[Path]:
    paths: list[Path] = []
    for root in roots:
        path = ROOT / root
        paths += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return paths


def dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
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


@pytest.mark.parametrize("path", files(*BELOW_CLI), ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_below_the_cli_imports_it(path: Path) -> None:
    assert cli_violations(module_imports(path)) == []


@pytest.mark.parametrize("path", files("training"), ids=lambda p: str(p.relative_to(ROOT)))
def test_training_uses_only_errors_and_the_dataset_reading_api(path: Path) -> None:
    assert training_violations(module_imports(path)) == []


@pytest.mark.parametrize("path", files(*PRODUCT), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_product_never_imports_the_sandbox(path: Path) -> None:
    assert sandbox_violations(module_imports(path)) == []


@pytest.mark.parametrize("path", files("issues_sts/crawl"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_crawler_imports_no_stage(path: Path) -> None:
    assert stage_violations(module_imports(path)) == []


@pytest.mark.parametrize(
    "path", files("issues_sts/evidence"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_evidence_imports_nothing_above_it(path: Path) -> None:
    assert evidence_violations(module_imports(path)) == []


def test_the_ground_floor_exists() -> None:
    """The evidence rule is not vacuous: the package is there, with its modules."""
    assert len(files("issues_sts/evidence")) >= 5


@pytest.mark.parametrize(
    "path", files("issues_sts/dataset"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_dataset_does_not_import_the_hub(path: Path) -> None:
    assert hub_violations(module_imports(path)) == []


@pytest.mark.parametrize(
    "path", files("issues_sts/dataset"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_dataset_uses_the_link_stage_public_api(path: Path) -> None:
    assert links_internals(module_imports(path)) == []


@pytest.mark.parametrize("path", files(*BELOW_RETRIEVAL), ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_below_retrieval_imports_it(path: Path) -> None:
    assert retrieval_violations(module_imports(path)) == []


def test_the_retrieval_room_exists() -> None:
    """The retrieval rules are not vacuous: the package is there, with its modules."""
    assert len(files("issues_sts/retrieval")) >= 5


@pytest.mark.parametrize("path", files("issues_sts/store"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_store_imports_no_stage(path: Path) -> None:
    assert store_violations(module_imports(path)) == []


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
            "from issues_sts.links.stage import part_links",
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
# every module of the product and its sandbox but the store's own
OUTSIDE_THE_STORE = [
    path for path in files("issues_sts", "training") if not within(dotted(path), "issues_sts.store")
]


def sql_violations(source: str) -> list[str]:
    """SQL statements written as string literals, and uses of a connection attribute."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            found.append(node.value[:40])
        elif isinstance(node, ast.Attribute) and node.attr in ("conn", "_conn"):
            found.append(f".{node.attr}")
    return found


@pytest.mark.parametrize("path", OUTSIDE_THE_STORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_store_speaks_sql(path: Path) -> None:
    assert sql_violations(path.read_text(encoding="utf-8")) == []


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
