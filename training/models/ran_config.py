"""Configuration and presets of the Recurrent Attention Network (RAN) backbone.

`ran-base` lands on the paper's 86M parameters (AnglE-RAN_base, Li et al. 2023) with the
BERT width and vocabulary: 768 wide, 12 heads x 64 (q/k/v width 768) and 7 RAN layers.
A layer holds 14 D^2 weights (window attention q/k/v/o 4 + GLU residual 2, cell GLU 2,
memory review q/k/v/o 4 + GLU 2; LayerNorms and biases are small), 8.3M; with 23.4M token
embeddings (30522 x 768) and the 2.4M output cell transform that is 83.7M, -2.6 % of 86M.
Six layers would give 75.5M (-12 %), eight 92.0M (+7 %); wider heads (8 x 256, the
reference README's example) would need 4.7 layers. 7 x (12 x 64) is the closest BERT-like
choice; `tests/test_ran.py` checks the count.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from issues_sts.errors import ConfigError

CellPooling = Literal["last", "mean"]
TokenPooling = Literal["max", "mean", "none"]

#: the bert-base-uncased vocabulary, shared with the BERT backbone's tokenizer
BERT_VOCAB_SIZE = 30522


@dataclass(frozen=True)
class RanConfig:
    """Shape and behaviour of a RAN encoder; saved as `config.json` next to its weights."""

    vocab_size: int = BERT_VOCAB_SIZE
    hidden_size: int = 768
    num_layers: int = 7
    num_heads: int = 12
    head_size: int = 64
    window_size: int = 256
    #: a tail shorter than this merges into the previous window
    min_window_size: int = 16
    dropout: float = 0.1
    attention_dropout: float = 0.0
    #: document embedding: the last window's cell, or the mean of all window cells
    cell_pooling: CellPooling = "last"
    #: pooled tokens added to the transformed cell (the reference's "cell transform")
    token_pooling: TokenPooling = "max"
    pad_token_id: int = 0
    #: a practical cap: RAN's cost is linear in length, the tokenizer still needs a bound
    max_seq_length: int = 4096
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02
    rope_base: float = 10000.0

    def __post_init__(self) -> None:
        checks = {
            "hidden_size, num_heads, head_size and num_layers must be positive": min(
                self.hidden_size, self.num_heads, self.head_size, self.num_layers
            )
            > 0,
            "head_size must be even (rotary positions rotate pairs)": self.head_size % 2 == 0,
            "min_window_size must be >= 1 and smaller than window_size": 1
            <= self.min_window_size
            < self.window_size,
            "dropout rates must lie in [0, 1)": 0 <= self.dropout < 1
            and 0 <= self.attention_dropout < 1,
            "cell_pooling must be last or mean": self.cell_pooling in ("last", "mean"),
            "token_pooling must be max, mean or none": self.token_pooling
            in ("max", "mean", "none"),
            "max_seq_length must be positive": self.max_seq_length > 0,
        }
        for message, ok in checks.items():
            if not ok:
                raise ConfigError(f"invalid RAN config: {message}")

    @property
    def attention_width(self) -> int:
        return self.num_heads * self.head_size

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RanConfig:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown RAN config keys {unknown}; expected some of {sorted(known)}"
            )
        return cls(**data)

    def with_overrides(self, **changes: Any) -> RanConfig:
        return replace(self, **changes)


PRESETS: dict[str, RanConfig] = {
    "ran-base": RanConfig(),
    # Small enough for unit tests and CPU proxy runs, windows short enough that tests
    # exercise the recurrence with a handful of tokens.
    "ran-tiny": RanConfig(
        hidden_size=64,
        num_layers=2,
        num_heads=4,
        head_size=16,
        window_size=16,
        min_window_size=4,
        max_seq_length=1024,
    ),
    # The CPU proxy's size: real windows (64 tokens) on texts cut at a few hundred tokens.
    "ran-small": RanConfig(
        hidden_size=128,
        num_layers=2,
        num_heads=4,
        head_size=32,
        window_size=64,
        min_window_size=16,
        max_seq_length=2048,
    ),
}


def preset(name: str, **overrides: Any) -> RanConfig:
    """The named preset (`ran-base`, `ran-tiny`), optionally with some fields changed."""
    if name not in PRESETS:
        raise ConfigError(f"unknown RAN preset {name!r}; choose one of {sorted(PRESETS)}")
    return PRESETS[name].with_overrides(**overrides)


def read_config(path: Path) -> RanConfig:
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("encoder_type", None)
    return RanConfig.from_dict(data)
