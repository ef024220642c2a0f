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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from issues_sts.errors import TrainingError
from training.data import load_pairs

TASK_NAME = "GitHubIssueSimilarityPC"
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


def github_issue_similarity_task(
    dataset: str | Path, split: str = "test", max_pairs: int | None = None
) -> Any:
    """An MTEB `AbsTaskPairClassification` over `split` of `dataset` (ready to evaluate)."""
    try:
        from mteb.abstasks.pair_classification import AbsTaskPairClassification
        from mteb.abstasks.task_metadata import TaskMetadata
    except ImportError as exc:
        raise TrainingError("mteb is not installed", hint="pip install mteb") from exc

    source = str(dataset)
    metadata = TaskMetadata(
        name=TASK_NAME,
        description=DESCRIPTION,
        reference="https://huggingface.co/datasets/WhereIsAI/github-issue-similarity",
        # Where the pairs come from; `load_data` below reads them, not `datasets.load_dataset`.
        dataset={"path": source, "revision": _revision(source)},
        type="PairClassification",
        category="t2t",
        modalities=["text"],
        eval_splits=[split],
        eval_langs=["eng-Latn"],
        main_score="max_ap",
        date=("2010-01-01", "2026-12-31"),
        domains=["Programming", "Written"],
        task_subtypes=[],
        license="not specified",
        annotations_creators="derived",
        dialect=[],
        sample_creation="found",
        bibtex_citation=CITATION,
    )

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

    GitHubIssueSimilarityPC.metadata = metadata
    return GitHubIssueSimilarityPC()


def _revision(source: str) -> str:
    """A local build's manifest hash names its content; anything else is 'main'."""
    manifest = Path(source) / "manifest.json"
    if manifest.is_file():
        import hashlib

        return hashlib.sha256(manifest.read_bytes()).hexdigest()[:12]
    return "main"
