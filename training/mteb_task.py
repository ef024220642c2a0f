"""The built dataset as an MTEB pair-classification task, so that any embedding model can be
scored on it the way the field scores everything else (`mteb` is an optional dependency).

    import mteb
    from sentence_transformers import SentenceTransformer
    from training.mteb_task import github_issue_similarity_task

    task = github_issue_similarity_task("data/dataset")            # a local build: offline
    results = mteb.evaluate(SentenceTransformer("runs/angle/best"), task, cache=None)
    results.task_results[0].scores["test"][0]["max_ap"]

The task reads the split through `training.data.load_pairs` (a built folder, a save_to_disk
folder or a Hub id), so a local build needs no network. Pairs are (text1, text2) with the
0/1 label; MTEB reports average precision (`max_ap`, its main score for this task type),
best-threshold accuracy and F1 for cosine, dot, Euclidean and Manhattan similarity.

`github_issue_retrieval_task(dataset, split)` is the build's retrieval view (configs `corpus`,
`queries`, `qrels`, read with `datasets.load_dataset`) as an MTEB `AbsTaskRetrieval`: each
query's candidates are handed to MTEB as its `top_ranked` documents, so MTEB ranks exactly
the protocol's candidates (earlier issues of the same repository, `earlier_candidates`) and
not the whole corpus. Its `hit_rate_at_k` is the field's recall rate that
`issues-sts evaluate --task retrieval` reports as `recall@k`; `ndcg_at_10` is the main score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from issues_sts.dataset import earlier_candidates
from issues_sts.errors import TrainingError
from training.data import load_pairs

TASK_NAME = "GitHubIssueSimilarityPC"
RETRIEVAL_TASK_NAME = "GitHubIssueDuplicateRetrieval"
RETRIEVAL_DESCRIPTION = (
    "For a GitHub issue closed as a duplicate, find the earlier issue it duplicates among every "
    "earlier issue of its repository, as built by issues-sts (time-aware candidates)."
)
DESCRIPTION = (
    "Duplicate GitHub issues (label 1) against other issues of the same repositories (label 0), "
    "as built by issues-sts: long texts with code, logs and tracebacks."
)
CITATION = r"""@article{li2023angle,
  author = {Li, Xianming and Li, Jing},
  journal = {arXiv preprint arXiv:2309.12871},
  title = {AnglE-optimized Text Embeddings},
  year = {2023},
}"""


def _require_mteb() -> None:
    try:
        import mteb  # noqa: F401  # an optional dependency
    except ImportError as exc:
        raise TrainingError("mteb is not installed", hint="pip install mteb") from exc


def _metadata(source: str, split: str, **task: Any) -> Any:
    """What both tasks say of themselves; `task` holds what differs (name, type, score...)."""
    from mteb.abstasks.task_metadata import TaskMetadata

    return TaskMetadata(
        # Where the data comes from; the tasks' `load_data` reads it, not `datasets`' loader.
        dataset={"path": source, "revision": _revision(source)},
        category="t2t",
        modalities=["text"],
        eval_splits=[split],
        eval_langs=["eng-Latn"],
        date=("2010-01-01", "2026-12-31"),
        domains=["Programming", "Written"],
        license="not specified",
        annotations_creators="derived",
        dialect=[],
        sample_creation="found",
        bibtex_citation=CITATION,
        **task,
    )


def github_issue_similarity_task(
    dataset: str | Path, split: str = "test", max_pairs: int | None = None
) -> Any:
    """An MTEB `AbsTaskPairClassification` over `split` of `dataset` (ready to evaluate)."""
    _require_mteb()
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    source = str(dataset)

    class GitHubIssueSimilarityPC(AbsTaskPairClassification):  # type: ignore[misc, valid-type]
        def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
            if self.data_loaded:
                return
            from datasets import Dataset

            pairs = load_pairs(source, split, max_pairs)
            labels = [int(label >= 0.5) for label in pairs.labels.tolist()]
            self.dataset = {
                split: Dataset.from_dict(
                    {"sentence1": pairs.text1, "sentence2": pairs.text2, "labels": labels}
                )
            }
            self.data_loaded = True

    GitHubIssueSimilarityPC.metadata = _metadata(
        source,
        split,
        name=TASK_NAME,
        description=DESCRIPTION,
        reference="https://huggingface.co/datasets/WhereIsAI/github-issue-similarity",
        type="PairClassification",
        main_score="max_ap",
        task_subtypes=[],
    )
    return GitHubIssueSimilarityPC()


def github_issue_retrieval_task(dataset: str | Path, split: str = "test") -> Any:
    """An MTEB `AbsTaskRetrieval` over `split` of the build's retrieval view."""
    _require_mteb()
    from mteb.abstasks.retrieval import AbsTaskRetrieval

    source = str(dataset)

    class GitHubIssueDuplicateRetrieval(AbsTaskRetrieval):  # type: ignore[misc, valid-type]
        k_values = (1, 5, 10, 20)

        def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
            if self.data_loaded:
                return
            self.dataset = {"default": {split: _retrieval_split(source, split)}}  # type: ignore[dict-item]
            self.data_loaded = True

    GitHubIssueDuplicateRetrieval.metadata = _metadata(
        source,
        split,
        name=RETRIEVAL_TASK_NAME,
        description=RETRIEVAL_DESCRIPTION,
        reference="https://arxiv.org/abs/2309.12871",
        type="Retrieval",
        main_score="ndcg_at_10",
        task_subtypes=["Duplicate Detection"],
    )
    return GitHubIssueDuplicateRetrieval()


def _retrieval_split(source: str, split: str) -> dict[str, Any]:
    """MTEB's split data: corpus (id, text: the pair text, no title to prepend), queries,
    relevant_docs, and top_ranked (each query's candidates, the protocol's)."""
    import datasets
    from datasets import Dataset

    def load(config: str, part: str) -> Any:
        try:
            return datasets.load_dataset(source, config, split=part)
        except Exception as exc:  # datasets raises many unrelated types for a bad source
            raise TrainingError(
                f"cannot load the retrieval view's {config!r} of {source!r}: "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                hint="build it again with `issues-sts build` (older builds lack the view)",
            ) from None

    corpus = load("corpus", "corpus").to_polars()
    qrels = load("qrels", split)
    queries = load("queries", "queries").filter(lambda row: row["split"] == split)
    relevant: dict[str, dict[str, int]] = {}
    for query, doc, score in zip(
        qrels["query-id"], qrels["corpus-id"], qrels["score"], strict=True
    ):
        relevant.setdefault(query, {})[doc] = int(score)
    queries = queries.filter(lambda row: row["_id"] in relevant)
    if len(queries) == 0:
        raise TrainingError(
            f"split {split!r} of {source!r} has no retrieval query", hint="choose another split"
        )
    ids = corpus["_id"].to_list()
    candidates = earlier_candidates(corpus, list(queries["_id"]))
    return {
        "corpus": Dataset.from_dict({"id": ids, "text": corpus["text"].to_list()}),
        "queries": Dataset.from_dict({"id": queries["_id"], "text": queries["text"]}),
        "relevant_docs": relevant,
        "top_ranked": {
            query: [ids[row] for row in rows]
            for query, rows in zip(queries["_id"], candidates, strict=True)
        },
    }


def _revision(source: str) -> str:
    """A local build's manifest hash names its content; anything else is 'main'."""
    manifest = Path(source) / "manifest.json"
    if manifest.is_file():
        import hashlib

        return hashlib.sha256(manifest.read_bytes()).hexdigest()[:12]
    return "main"
