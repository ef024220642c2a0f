"""BM25 over issue texts through the bm25s library (no scorer written here).

`BM25Tokenizer` is the one tokenizer of both the indexed texts and the queries, bm25s's
own `tokenize` with these settings:

- lowercase, then tokens are runs of two or more word characters (bm25s's default pattern
  ``(?u)\\b\\w\\w+\\b``: `snake_case` and `E0308` stay one token, one-letter tokens go);
- English stopwords removed (bm25s's list);
- English Snowball stemming (PyStemmer), so `crashed`, `crashes` and `crashing` all meet as `crash`.

`BM25Index` indexes a list of texts with bm25s's Lucene variant (k1 1.5, b 0.75): the
document frequencies and the average length are those of the indexed texts, so a caller
that wants per-repository statistics indexes one repository. `scores(query, candidates)`
returns the library's scores of the rows named in `candidates` (an earlier issue of the
query's repository is one row), in that order. `save` and `load` keep an index on disk
(bm25s's own files, memory-mapped when loaded): `issues-sts index` saves one per repository,
so a `similar --method hybrid` question costs a load, not an indexing of every text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer

K1 = 1.5
B = 0.75
METHOD = "lucene"


@dataclass(frozen=True)
class BM25Tokenizer:
    """Texts -> lists of tokens; see the module docstring for what each setting does."""

    lower: bool = True
    stopwords: str | None = "en"
    stemmer: str | None = "english"
    _stem: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stemmer is not None:
            object.__setattr__(self, "_stem", Stemmer.Stemmer(self.stemmer))

    def __call__(self, texts: Sequence[str]) -> list[list[str]]:
        if not texts:
            return []
        tokens = bm25s.tokenize(
            list(texts),
            lower=self.lower,
            stopwords=self.stopwords,
            stemmer=self._stem,
            return_ids=False,
            show_progress=False,
        )
        return [list(row) for row in tokens]


class BM25Index:
    """bm25s's BM25 over `texts`; rows are addressed by their position in `texts`."""

    def __init__(
        self,
        texts: Sequence[str],
        tokenizer: BM25Tokenizer | None = None,
        *,
        k1: float = K1,
        b: float = B,
        method: str = METHOD,
    ) -> None:
        if not texts:
            raise ValueError("BM25 needs at least one text to index")
        self.tokenizer = tokenizer or BM25Tokenizer()
        self.size = len(texts)
        self.model = bm25s.BM25(k1=k1, b=b, method=method)
        self.model.index(self.tokenizer(texts), show_progress=False)

    def save(self, folder: Path) -> None:
        """bm25s's files of this index into `folder` (the tokenizer's settings are this
        module's defaults, which `load` assumes)."""
        self.model.save(str(folder))

    @classmethod
    def load(cls, folder: Path, tokenizer: BM25Tokenizer | None = None) -> BM25Index:
        """An index `save` wrote, its arrays memory-mapped."""
        index = cls.__new__(cls)
        index.tokenizer = tokenizer or BM25Tokenizer()
        index.model = bm25s.BM25.load(str(folder), mmap=True)
        index.size = int(index.model.scores["num_docs"])
        return index

    def scores(
        self, query: str, candidates: np.ndarray | Sequence[int] | None = None
    ) -> np.ndarray:
        """BM25 scores (float32) of the `candidates` rows (all rows if None) for `query`."""
        return self.token_scores(self.tokenizer([query])[0], candidates)

    def token_scores(
        self, tokens: list[str], candidates: np.ndarray | Sequence[int] | None = None
    ) -> np.ndarray:
        """As `scores`, for a query already tokenized; tokens no indexed text has add 0."""
        known = self.model.get_tokens_ids(tokens)
        everything = (
            self.model.get_scores_from_ids(known)
            if known
            else np.zeros(self.size, dtype=np.float32)
        )
        if candidates is None:
            return np.asarray(everything, dtype=np.float32)
        return np.asarray(everything, dtype=np.float32)[np.asarray(candidates, dtype=np.int64)]
