"""Pair data: loading (built folder, save_to_disk folder, Hub id) and zigzag batches."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from issues_sts.errors import ConfigError, DatasetError, TrainingError

REQUIRED_COLUMNS = ("text1", "text2", "label")


@dataclass(frozen=True)
class PairSet:
    """Pairs of one split, as plain lists (the whole GitHub dataset fits in memory)."""

    text1: list[str]
    text2: list[str]
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.text1)

    def head(self, count: int | None) -> PairSet:
        if count is None or count >= len(self):
            return self
        return PairSet(self.text1[:count], self.text2[:count], self.labels[:count])

    def stratified(self, count: int | None) -> PairSet:
        """`count` pairs with the labels in the split's proportions (each label at least once
        when `count` allows): the first rows of each label, in the split's order. A split's
        first rows may all be negatives, and a correlation over one label means nothing."""
        if count is None or count >= len(self):
            return self
        values, sizes = np.unique(self.labels, return_counts=True)
        wanted = np.maximum(np.floor(sizes / len(self) * count), 1).astype(int)
        while wanted.sum() > count:  # more labels than room: the largest give way
            wanted[np.argmax(wanted)] -= 1
        for i in np.argsort(-sizes):  # what rounding left goes to the largest labels
            if wanted.sum() < count:
                wanted[i] += min(count - wanted.sum(), sizes[i] - wanted[i])
        keep = np.zeros(len(self), dtype=bool)
        for value, n in zip(values, wanted, strict=True):
            keep[np.flatnonzero(self.labels == value)[:n]] = True
        rows = np.flatnonzero(keep)
        return PairSet(
            [self.text1[i] for i in rows], [self.text2[i] for i in rows], self.labels[rows]
        )

    def require_both_labels(self, what: str) -> PairSet:
        """TrainingError unless the pairs hold more than one label: a correlation with a
        constant label, and an ROC curve, are undefined."""
        values = np.unique(self.labels)
        if len(values) < 2:
            raise TrainingError(
                f"{what} holds only label {values[0]:g} pairs ({len(self)}): Spearman, Pearson "
                "and ROC-AUC need both labels",
                hint="evaluate a split with positives and negatives (a built dataset's valid "
                "and test have both)",
            )
        return self


def _load_dataset_dict(source: str):  # -> datasets.DatasetDict
    import datasets

    datasets.disable_progress_bars()  # the trainer shows its own progress
    path = Path(source)
    try:
        if path.is_dir() and (
            (path / "dataset_dict.json").is_file() or (path / "state.json").is_file()
        ):
            return datasets.load_from_disk(str(path))
        if path.is_dir() and (path / "data").is_dir():
            # The built Hub-shaped folder; its README declares `default` (data/) and `positive`.
            _refuse_empty_shards(source, path)
            return datasets.load_dataset(str(path), "default")
        if path.exists():
            return datasets.load_dataset(str(path))
        return datasets.load_dataset(source)  # a Hub id: needs the network
    except DatasetError:
        raise
    except Exception as exc:  # datasets raises many unrelated types for a bad source
        # a missing or unreadable dataset is a dataset problem (6) in every command
        raise DatasetError(
            f"cannot load pairs from {source!r}: "
            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            hint="pass a folder built by `issues-sts build`, a save_to_disk folder, "
            "or a Hub id such as WhereIsAI/github-issue-similarity (needs network)",
        ) from exc


def _refuse_empty_shards(source: str, folder: Path) -> None:
    """A built folder's `data/` shard without rows (builds before `--allow-empty-splits` wrote
    them) is named, rather than `datasets`' "BatchSize must be greater than 0"."""
    import pyarrow.parquet as pq

    empty = []
    for shard in sorted(folder.glob("data/*.parquet")):
        try:
            if pq.ParquetFile(shard).metadata.num_rows == 0:
                empty.append(shard.name.split("-")[0])
        except Exception:  # noqa: BLE001, S112 - an unreadable shard is datasets' to report
            continue
    if empty:
        raise DatasetError(
            f"cannot load pairs from {source!r}: its split(s) {', '.join(empty)} hold no pairs "
            "(an empty Parquet, which `datasets` cannot read)",
            hint="rebuild from more repositories, or with `issues-sts build "
            "--allow-empty-splits`, which leaves empty splits out",
        )


def _left_out(source: str, split: str) -> str:
    """Why a built folder lacks `split`: its build found it empty (stats.json's sizes)."""
    try:
        stats = json.loads((Path(source) / "stats.json").read_text(encoding="utf-8"))
        empty = stats["sizes"]["default"].get(split) == 0
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ""
    if not empty:
        return ""
    return f"; split {split!r} is empty: its build left it out (--allow-empty-splits)"


def load_pairs(
    source: str, split: str, limit: int | None = None, *, option: str = "--split"
) -> PairSet:
    """Load one split's (text1, text2, label) pairs; `limit` keeps the first rows. `split`
    must be a split the dataset has (a usage error, exit 2, otherwise); `option` is the
    command-line option that chose it, named in that error."""
    loaded = _load_dataset_dict(source)
    if not hasattr(loaded, "keys"):  # a single save_to_disk Dataset has no splits
        table = loaded
    else:
        if split not in loaded:
            raise ConfigError(
                f"{source!r} has no split {split!r} (it has {', '.join(loaded.keys())})"
                + _left_out(source, split),
                hint=f"choose {option} among those",
            )
        table = loaded[split]
    missing = [c for c in REQUIRED_COLUMNS if c not in table.column_names]
    if missing:
        raise DatasetError(
            f"split {split!r} of {source!r} lacks columns {', '.join(missing)}",
            hint="training needs text1, text2 and label (the dataset's default config)",
        )
    if limit is not None:
        table = table.select(range(min(limit, len(table))))
    pairs = PairSet(
        list(table["text1"]), list(table["text2"]), np.asarray(table["label"], dtype=np.float32)
    )
    if len(pairs) == 0:
        raise DatasetError(
            f"split {split!r} of {source!r} is empty",
            hint="rebuild it from more repositories, or choose another split",
        )
    return pairs


def eval_pairs(
    source: str,
    split: str,
    limit: int | None = None,
    *,
    option: str = "--split",
    limit_option: str = "--max-eval-pairs",
) -> PairSet:
    """The pairs to evaluate on: `limit` of them drawn stratified, both labels required."""
    pairs = load_pairs(source, split, None, option=option).stratified(limit)
    what = f"split {split!r} of {source!r}" + (f" ({limit_option} {limit})" if limit else "")
    return pairs.require_both_labels(what)


def text_id(token_ids: Sequence[int]) -> int:
    """A stable 63-bit id of a token sequence: equal texts get equal ids on every process."""
    digest = hashlib.blake2b(
        np.asarray(token_ids, dtype=np.int64).tobytes(), digest_size=8
    ).digest()
    return int.from_bytes(digest, "little") & (2**63 - 1)


@dataclass(frozen=True)
class Batch:
    """One zigzag batch: rows 2i / 2i+1 are pair i's texts, each row carries its pair's label."""

    features: dict[str, torch.Tensor]
    labels: torch.Tensor
    text_ids: torch.Tensor

    @property
    def pairs(self) -> int:
        return int(self.labels.shape[0] // 2)

    def to(self, device: torch.device) -> Batch:
        features = {k: v.to(device, non_blocking=True) for k, v in self.features.items()}
        return Batch(features, self.labels.to(device), self.text_ids.to(device))


class ZigzagCollator:
    """Turns a list of pair indices into a `Batch` through the encoder's own `tokenize`.

    Identical texts are detected on token ids after truncation, like the reference: two
    issues that differ only beyond `max_length` look identical to the model, so they are.
    """

    def __init__(
        self,
        pairs: PairSet,
        tokenize: Callable[[list[str], int | None], dict[str, torch.Tensor]],
        max_length: int | None,
    ) -> None:
        self.pairs = pairs
        self.tokenize = tokenize
        self.max_length = max_length

    def __call__(self, indices: Sequence[int]) -> Batch:
        texts: list[str] = []
        for i in indices:
            texts += [self.pairs.text1[i], self.pairs.text2[i]]
        features = self.tokenize(texts, self.max_length)
        labels = torch.from_numpy(np.repeat(self.pairs.labels[list(indices)], 2))
        ids = features["input_ids"]
        mask = features["attention_mask"].bool()
        text_ids = torch.tensor([text_id(ids[r][mask[r]].tolist()) for r in range(ids.shape[0])])
        return Batch(features, labels, text_ids)


def epoch_order(size: int, seed: int, epoch: int, rank: int = 0, world: int = 1) -> list[int]:
    """This process's pair order for one epoch: a seeded permutation, split across ranks.

    Depends only on (seed, epoch), never on global RNG state, so a resumed run sees the same
    batches; with several processes each rank takes every `world`-th index.
    """
    generator = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    order = torch.randperm(size, generator=generator).tolist()
    # Equal shares keep every rank at the same step count (DDP would hang otherwise).
    return order[: size - size % world][rank::world]


def batches(order: list[int], batch_size: int) -> list[list[int]]:
    """Consecutive batches; a last batch of a single pair is dropped (no pair to rank against)."""
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    return [c for c in chunks if len(c) >= 2]
