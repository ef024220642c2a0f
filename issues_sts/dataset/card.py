"""The dataset card (README.md): YAML header that `datasets` and the Hub read, and a body
a person reads before trusting the data."""

from __future__ import annotations

from typing import Any

import yaml

from issues_sts.dataset.config import SPLITS
from issues_sts.dataset.export import DEFAULT_FEATURES, POSITIVE_FEATURES, SHARD
from issues_sts.dataset.retrieval_view import (
    CORPUS_FEATURES,
    CORPUS_FILE,
    QREL_FEATURES,
    QRELS_FOLDER,
    QUERIES_FILE,
    QUERY_FEATURES,
)
from issues_sts.dataset.texts import RECIPES

CITATION = """@article{li2023angle,
  title   = {AnglE-optimized Text Embeddings},
  author  = {Li, Xianming and Li, Jing},
  journal = {arXiv preprint arXiv:2309.12871},
  year    = {2023}
}"""

RECIPE = (
    "Each text is an issue's title and body: line endings normalised to `\\n`, NUL characters "
    'removed, both stripped, joined by a blank line (`title + "\\n\\n" + body`, or the title '
    "alone when the body is empty). Code, stack traces, markdown and URLs are kept verbatim. "
    "{recipe} Credentials (GitHub tokens, including classic 40-hex ones where a token goes "
    "(`token=`, `oauth_token:`, `https://TOKEN@`, `curl -u user:TOKEN`; commit SHAs are kept), "
    "AWS/Google/Slack/Stripe/OpenAI/Hugging Face/npm/GitLab/Azure/SendGrid/Twilio/Mailchimp/PyPI/"
    "Square/Telegram/Discord/Artifactory keys, JWTs, passwords in URLs, quoted values of "
    "secret-named keys, private key blocks, bearer and `Authorization` headers) are replaced by "
    "`[REDACTED:<kind>]` before anything is written."
)


SPLIT_METHODS = {
    "random": (
        "by a seeded hash of each cluster's identity (its oldest issue), so a cluster keeps its "
        "split in every later build from a grown store with the same seed and proportions; a few "
        "clusters whose hash lies nearest a cut point are moved to keep each split within half a "
        "point of its share (`splits.balanced_groups`)"
    ),
    "time": (
        "by time (`--split-by time`): clusters ordered by the creation date of their oldest issue, "
        "the oldest to train until it holds its share of positive pairs, the newest to valid and "
        "test"
    ),
}


def _splits_text(config: dict[str, Any], counters: dict[str, int]) -> str:
    method = SPLIT_METHODS[str(config.get("split_by", "random"))]
    text = (
        "Splits: a duplicate cluster and all its issues go to exactly one split (no issue "
        f"crosses splits), {method}."
    )
    if config.get("previous"):
        text += (
            f" Issues of the earlier build `{config['previous']}` keep their split exactly; "
            f"{counters.get('splits.merged_clusters', 0):,} clusters that new links merged across "
            "splits went where most of their earlier pairs were, leaving "
            f"{counters.get('splits.merge_left_out_issues', 0):,} "
            f"earlier issues and {counters.get('splits.merge_dropped_positives', 0):,} positive "
            "pairs out of this version."
        )
    return text


def card_yaml(
    sizes: dict[str, dict[str, int]],
    nbytes: dict[str, dict[str, int]],
    retrieval: dict[str, dict[str, int]] | None = None,
) -> dict[str, Any]:
    def config(name: str, folder: str, features: dict[str, str]) -> dict[str, Any]:
        return {
            "config_name": name,
            "data_files": [
                {"split": s, "path": f"{folder}/{SHARD.format(split=s)}"} for s in SPLITS
            ],
        }

    def info(name: str, features: dict[str, str]) -> dict[str, Any]:
        return {
            "config_name": name,
            "features": [{"name": n, "dtype": t} for n, t in features.items()],
            "splits": [
                {"name": s, "num_bytes": nbytes[name][s], "num_examples": sizes[name][s]}
                for s in SPLITS
            ],
            "dataset_size": sum(nbytes[name].values()),
        }

    configs = [
        config("default", "data", DEFAULT_FEATURES),
        config("positive", "positive", POSITIVE_FEATURES),
    ]
    infos = [info("default", DEFAULT_FEATURES), info("positive", POSITIVE_FEATURES)]
    if retrieval is not None:
        configs += _retrieval_configs(retrieval)
        infos += _retrieval_infos(retrieval)
    return {
        "language": ["en"],
        "pretty_name": "GitHub Issues Similarity (rebuilt with issues-sts)",
        "task_categories": ["sentence-similarity"],
        "tags": ["sts", "duplicate-detection", "github-issues", "long-text"],
        "size_categories": [_size_category(sum(sizes["default"].values()))],
        "configs": configs,
        "dataset_info": infos,
    }


def _retrieval_files(retrieval: dict[str, dict[str, int]]) -> dict[str, dict[str, str]]:
    """The retrieval view's configs (retrieval_view.py): config -> (split -> file). A split
    without rows is not declared (its file is still written): `datasets` refuses to load an
    empty split ("corresponds to no data"), and a config without any split is left out."""
    files = {
        "corpus": {"corpus": CORPUS_FILE},
        "queries": {"queries": QUERIES_FILE},
        "qrels": {s: f"{QRELS_FOLDER}/{SHARD.format(split=s)}" for s in SPLITS},
    }
    kept = {
        name: {s: path for s, path in splits.items() if retrieval[name].get(s, 0) > 0}
        for name, splits in files.items()
    }
    return {name: splits for name, splits in kept.items() if splits}


_RETRIEVAL_FEATURES = {"corpus": CORPUS_FEATURES, "queries": QUERY_FEATURES, "qrels": QREL_FEATURES}


def _retrieval_configs(retrieval: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    return [
        {
            "config_name": name,
            "data_files": [{"split": s, "path": path} for s, path in files.items()],
        }
        for name, files in _retrieval_files(retrieval).items()
    ]


def _retrieval_infos(retrieval: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    return [
        {
            "config_name": name,
            "features": [{"name": n, "dtype": t} for n, t in _RETRIEVAL_FEATURES[name].items()],
            "splits": [
                {
                    "name": s,
                    "num_bytes": retrieval[f"{name}_bytes"][s],
                    "num_examples": retrieval[name][s],
                }
                for s in files
            ],
            "dataset_size": sum(retrieval[f"{name}_bytes"].values()),
        }
        for name, files in _retrieval_files(retrieval).items()
    ]


def _size_category(n: int) -> str:
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < limit:
            return label
    return "1M<n<10M"


def _table(stats: dict[str, Any]) -> str:
    rows = [
        "| Split | #Positive | #Negative | Total | > 512 tokens | median tokens | paper #Pos / "
        "#Neg / Total | paper > 512 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in SPLITS:
        t, lengths = stats["table"][s], stats["token_lengths"][s]
        rows.append(
            f"| {s} | {t['positive']:,} | {t['negative']:,} | {t['total']:,} | "
            f"{lengths['share_longer_than_threshold']:.2f} % | {lengths.get('p50', 0):.0f} | "
            f"{t['paper_positive']:,} / {t['paper_negative']:,} / {t['paper_total']:,} | "
            f"{lengths['paper_share_longer_than_512']:.2f} % |"
        )
    return "\n".join(rows)


def _quantiles(stats: dict[str, Any]) -> str:
    keys = ("texts", "mean", "min", "p5", "p25", "p50", "p75", "p95", "max")
    rows = ["| Split | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for s in SPLITS:
        lengths = stats["token_lengths"][s]
        rows.append(f"| {s} | " + " | ".join(f"{lengths.get(k, 0):,.0f}" for k in keys) + " |")
    return "\n".join(rows)


def _per_repository(stats: dict[str, Any]) -> str:
    rows = [
        "| Repository | " + " | ".join(f"{s} +/-" for s in SPLITS) + " |",
        "|---|" + "---:|" * len(SPLITS),
    ]
    for repo, splits in sorted(stats["per_repository"].items()):
        cells = [
            f"{splits.get(s, {}).get('positive', 0)}/{splits.get(s, {}).get('negative', 0)}"
            for s in SPLITS
        ]
        rows.append(f"| {repo} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _counters(counters: dict[str, int]) -> str:
    lines = [f"| `{k}` | {v:,} |" for k, v in sorted(counters.items()) if v]
    return "\n".join(["| counter | count |", "|---|---:|", *lines]) if lines else "(none)"


def render_card(
    sizes: dict[str, dict[str, int]],
    nbytes: dict[str, dict[str, int]],
    stats: dict[str, Any],
    counters: dict[str, int],
    command: str,
    config: dict[str, Any],
    *,
    changes: str | None = None,
    retrieval: dict[str, dict[str, int]] | None = None,
) -> str:
    """The full README.md text; `changes` is the "Changes since vN" section (diff.py);
    `retrieval` the retrieval view's rows and bytes (`retrieval_view.write_view`)."""
    version = config.get("version")
    header = yaml.safe_dump(
        card_yaml(sizes, nbytes, retrieval), sort_keys=False, allow_unicode=True
    )
    repos = len(stats["per_repository"])
    incomplete_note = _incomplete_text(stats.get("incomplete_repositories") or [])
    recipe = str(config.get("text_recipe", "raw"))
    long_share = stats["token_lengths"]["train"]["share_longer_than_threshold"]
    long_threshold = stats["long_threshold"]
    return f"""---
{header}---

# GitHub Issues Similarity (rebuilt){f" {version}" if version else ""}

Pairs of GitHub issues labelled 1 when maintainers closed one as a duplicate of the other and 0
for two issues of the same split with no duplicate link and no reference between them,
built the way the AnglE paper describes its GitHub Issues Similarity dataset, from {repos}
repositories.{incomplete_note}
Config `default`: `text1`, `text2`, `label` (int64). Config `positive`: the label-1 pairs as
`anchor`, `positive`. Splits `train` / `valid` / `test`.

```python
from datasets import load_dataset
pairs = load_dataset("<this repo or folder>")                # default config
positives = load_dataset("<this repo or folder>", "positive")
```
{_version_text(version)}{_retrieval_text(retrieval, counters)}
## Statistics

Ours next to Table 1 of the paper. Token lengths use the BERT uncased tokenizer with
special tokens, counted once per text occurrence in a pair.

{_table(stats)}

![log token length per split](token_lengths.png)

Token length quantiles:

{_quantiles(stats)}

Pairs per repository (positive/negative, by the repository of `text1`):

{_per_repository(stats)}

## How it was built

```bash
{command}
```

Effective configuration (also in `build_config.json`):

```json
{_json(config)}
```

Texts (recipe `{recipe}`): {RECIPE.format(recipe=RECIPES[recipe])}

Positives: one pair per duplicate link the link stage kept as usable (issue to issue, present
in the crawl, the thread's current canonical), the duplicate paired with its cluster's canonical
issue. Negatives: sampled with a fixed seed inside each split, mostly from the same repository,
never two members of one duplicate cluster, never two issues that mention each other.
{_splits_text(config, counters)}
{("" if changes is None else chr(10) + changes + chr(10))}
## Provenance

`pairs.parquet` lists every pair with `split`, `label`, `repo1`, `number1`, `repo2`, `number2`,
`url1`, `url2`, the link `signal` and `confidence`, so each pair can be traced to GitHub.
`links.parquet` holds every candidate duplicate link and why it was kept or excluded;
`stats.json` every number of this card; `manifest.json` the sha256 of every file.

Counters (what each stage kept, dropped and redacted):

{_counters(counters)}

## Limitations

- Labels come from maintainers' duplicate decisions as the link stage reads them: a label-0 pair
  is "never marked as a duplicate", not "verified different"; some negatives are undetected
  duplicates. The link stage's precision and recall were measured (`issues-sts links evaluate`)
  against threads labelled by AI assistant readers following a written brief, blind to the
  extractor, not by people; no person checked those labels or the pairs here.
- Issues are public but written by people: names, e-mail addresses and other personal data in
  issue texts are kept; only credentials are redacted, by pattern, so unusual formats can slip.
- Long texts: {long_share:.2f} % of train texts exceed
  {long_threshold} tokens (the paper: 61.03 %); a 512-token BERT model sees those truncated.
- The crawl is a snapshot: issues edited, deleted or transferred later differ from GitHub today.

## Citation

```bibtex
{CITATION}
```
"""


def _retrieval_text(retrieval: dict[str, dict[str, int]] | None, counters: dict[str, int]) -> str:
    """The retrieval view's section: its configs, the protocol and what it left out."""
    if retrieval is None:
        return ""
    rows = "\n".join(
        f"| {s} | {counters.get(f'retrieval.{s}_queries', 0):,} | "
        f"{retrieval['qrels'][s]:,} | "
        f"{counters.get(f'retrieval.{s}_left_out_no_earlier_relevant', 0):,} | "
        f"{counters.get(f'retrieval.{s}_left_out_no_created_at', 0):,} |"
        for s in SPLITS
    )
    return f"""
## Retrieval view

Duplicate retrieval as the duplicate-bug-report field measures it: for a new report, find
the earlier one among every earlier issue of its tracker. Three more configs, in the layout
BEIR and MTEB use:

- `corpus` (split `corpus`, {retrieval["corpus"]["corpus"]:,} issues): `_id`
  (`owner/name#number`), `title`, `text`, `repo`, `number`, `created_at`. Every issue of the
  built repositories that has a text (no pull requests, no deleted or transferred issues),
  with the same text and redaction as the pairs. `text` is the whole pair text, title
  included; `title` repeats its first line for display: do not join the two.
- `queries` (split `queries`): `_id`, `text`, `split`.
- `qrels` (splits `train` / `valid` / `test`): `query-id`, `corpus-id`, `score` (always 1),
  `split`.

The protocol:

- *Queries*: every issue on the duplicate side of a positive pair in the split, once.
- *Candidates* for a query: every corpus issue of the query's repository created strictly
  before the query, the query itself excluded; issues of every split are candidates, as in a
  real tracker.
- *Relevant*: every issue of the query's duplicate cluster (its canonical issue and the
  canonical's other duplicates) that is a candidate: same repository, created before the query.
- A query with no earlier relevant issue is left out, and counted below.
- *Metrics*: Recall@1, 5, 10 and 20 (the share of queries with at least one relevant issue
  in the top k: the field's "recall rate"), MRR@10 and nDCG@10, x100, each with a bootstrap
  95 % interval, overall and per repository: `issues-sts evaluate --task retrieval
  --dataset <this folder> --split test`.

| split | queries | qrels | left out: no earlier relevant issue | left out: no creation time |
|---|---:|---:|---:|---:|
{rows}

```python
from datasets import load_dataset
corpus = load_dataset("<this repo or folder>", "corpus", split="corpus")
queries = load_dataset("<this repo or folder>", "queries", split="queries")
qrels = load_dataset("<this repo or folder>", "qrels", split="test")
```
"""


def _incomplete_text(incomplete: list[dict[str, str]]) -> str:
    """The warning of a build made with --allow-incomplete: which repositories it lacks."""
    if not incomplete:
        return ""
    rows = "\n".join(f"| {m['repo']} | {m['status']} |" for m in incomplete)
    return (
        f"\n\n**Incomplete crawl.** This build was made with `--allow-incomplete` from a store in "
        f"which {len(incomplete)} repositories were not crawled to the end; their issues are "
        f"missing or partial here (also in `stats.json`, `incomplete_repositories`):\n\n"
        f"| repository | crawl status |\n|---|---|\n{rows}\n"
    )


def _version_text(version: Any) -> str:
    if not version:
        return ""
    return (
        f"\nThis is version `{version}`; `issues-sts push` tags the Hub revision with it, so "
        f'`load_dataset("<this repo>", revision="{version}")` gets exactly these rows back.\n'
    )


def _json(config: dict[str, Any]) -> str:
    import json

    return json.dumps(config, indent=2, sort_keys=True)
