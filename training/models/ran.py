"""AnglE-RAN's backbone: a PyTorch Recurrent Attention Network behind the `Encoder` contract.

    input_ids ─ token embeddings (pad 0, no positions) ─ LayerNorm ─ dropout
      └ windows of W tokens (plan_windows)           ┐
          layer 1: cell₀ = learned initializer       │ RanLayer: per window, [cell; tokens]
          layer k: cell₀ = last cell of layer k-1    │ self-attention + GLU residual; cell
                                                     ┘ recurrence; memory review over cells
      sentence_embedding = GLU(swish(dense(last or mean cell))) + dense(max-pooled tokens)
      token_embeddings   = last layer's tokens, back in input order

Cost is linear in length: attention never spans more than one window plus its cell.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from issues_sts.errors import TrainingError
from training.models.base import Encoder
from training.models.pooling import masked_max, masked_mean
from training.models.ran_config import RanConfig, preset, read_config
from training.models.ran_layers import GatedLinearUnit, RanLayer
from training.models.ran_windows import WindowLayout, from_windows, plan_windows, to_windows
from training.models.st_format import write_sentence_transformers_files

ENCODER_TYPE = "ran"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"


class RanBackbone(nn.Module):
    """Embeddings and stacked RAN layers; returns token outputs and cells."""

    def __init__(self, config: RanConfig) -> None:
        super().__init__()
        self.config = config
        dim = config.hidden_size
        self.embeddings = nn.Embedding(config.vocab_size, dim, padding_idx=config.pad_token_id)
        self.embedding_norm = nn.LayerNorm(dim, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)
        self.cell_initializer = nn.Parameter(torch.zeros(dim))
        self.layers = nn.ModuleList(RanLayer(config) for _ in range(config.num_layers))

    def forward(
        self, input_ids: Tensor, attention_mask: Tensor
    ) -> tuple[Tensor, Tensor, Tensor, WindowLayout]:
        """-> (windows [B, N, T, D], cells of the last layer [B, N, D], last cell [B, D],
        layout)."""
        layout = plan_windows(attention_mask, self.config.window_size, self.config.min_window_size)
        embedded = self.dropout(self.embedding_norm(self.embeddings(input_ids)))
        windows = to_windows(embedded, layout)
        cell = self.cell_initializer.to(windows.dtype).expand(input_ids.shape[0], -1)
        cells = cell[:, None]
        for layer in self.layers:
            windows, cells, cell = layer(windows, layout.token_mask, layout.window_mask, cell)
        return windows, cells, cell, layout

    def ran_layers(self) -> list[RanLayer]:
        return [layer for layer in self.layers if isinstance(layer, RanLayer)]


class CellPooler(nn.Module):
    """Document embedding: a transformed cell, plus pooled tokens (the reference's fusion)."""

    def __init__(self, config: RanConfig) -> None:
        super().__init__()
        self.config = config
        dim = config.hidden_size
        self.cell_dense = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(config.dropout)
        self.cell_gate = GatedLinearUnit(dim)
        self.token_dense = nn.Linear(dim, dim) if config.token_pooling != "none" else None

    def forward(
        self, windows: Tensor, cells: Tensor, last_cell: Tensor, layout: WindowLayout
    ) -> Tensor:
        cell = (
            last_cell
            if self.config.cell_pooling == "last"
            else masked_mean(cells, layout.window_mask)
        )
        pooled = self.cell_gate(self.dropout(F.silu(self.cell_dense(cell))))
        if self.token_dense is None:
            return pooled
        tokens, mask = windows.flatten(1, 2), layout.token_mask.flatten(1, 2)
        if self.config.token_pooling == "max":
            summary = masked_max(tokens, mask)
        else:
            summary = masked_mean(tokens, mask)
        return pooled + self.token_dense(summary)


class RanEncoder(Encoder):
    """A RAN text encoder (`ran-base`: 768 wide, 83.7M parameters, the paper's ~86M) for AnglE.

    Build one from a preset with `RanEncoder.from_preset("ran-base")`, from MLM pretraining
    (`issues-sts pretrain-ran`), or reload a saved directory with `RanEncoder.load`.
    """

    def __init__(self, config: RanConfig, tokenizer: Any | None = None) -> None:
        super().__init__()
        self.config = config
        self.max_seq_length = config.max_seq_length
        self.backbone = RanBackbone(config)
        self.pooler = CellPooler(config)
        self.tokenizer = tokenizer
        self.apply(lambda module: init_weights(module, config.initializer_range))

    @classmethod
    def from_preset(
        cls,
        name: str,
        tokenizer_path: str | Path | None = None,
        init_embeddings_from: str | Path | None = None,
        **overrides: Any,
    ) -> RanEncoder:
        """A freshly initialised RAN; `init_embeddings_from` copies (or projects) the word
        embeddings of a BERT-vocabulary checkpoint such as the offline MiniLM."""
        encoder = cls(preset(name, **overrides), load_tokenizer(tokenizer_path))
        if init_embeddings_from is not None:
            copy_word_embeddings(encoder, Path(init_embeddings_from))
        return encoder

    @property
    def embedding_dim(self) -> int:
        return self.config.hidden_size

    def forward(self, features: dict[str, Tensor]) -> dict[str, Tensor]:
        input_ids = features["input_ids"]
        attention_mask = features.get("attention_mask")
        if attention_mask is None:
            attention_mask = (input_ids != self.config.pad_token_id).long()
        windows, cells, last_cell, layout = self.backbone(input_ids, attention_mask)
        return {
            "sentence_embedding": self.pooler(windows, cells, last_cell, layout),
            "token_embeddings": from_windows(windows, layout),
        }

    def gradient_checkpointing_enable(self, **_: Any) -> None:
        """Recompute each window step in the backward pass (memory for time on long texts)."""
        for layer in self.backbone.ran_layers():
            layer.gradient_checkpointing = True

    def set_attention_dropout(self, probability: float) -> None:
        for layer in self.backbone.ran_layers():
            layer.step.attention.attention_dropout = probability

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        # the effective length cap (build_ran may have lowered it) travels with the weights
        effective = self.config.with_overrides(max_seq_length=self.max_seq_length)
        config = {"encoder_type": ENCODER_TYPE, **effective.to_dict()}
        (directory / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        state = {name: tensor.detach().contiguous() for name, tensor in self.state_dict().items()}
        save_file(state, str(directory / WEIGHTS_FILE))
        if self.tokenizer is not None:
            self.tokenizer.save_pretrained(str(directory))
        write_sentence_transformers_files(directory, self, pooling=None)

    @classmethod
    def load(cls, directory: Path) -> RanEncoder:
        directory = Path(directory)
        if not is_ran_checkpoint(directory):
            raise TrainingError(
                f"{directory} is not a saved RAN encoder",
                hint="expected config.json with encoder_type 'ran' and model.safetensors",
            )
        # a folder saved without its tokenizer falls back to the shared bert-base-uncased one
        saved_tokenizer = (directory / "tokenizer_config.json").exists()
        tokenizer = load_tokenizer(directory if saved_tokenizer else None)
        encoder = cls(read_config(directory / CONFIG_FILE), tokenizer)
        encoder.load_state_dict(load_file(str(directory / WEIGHTS_FILE)))
        return encoder


def build_ran(
    name_or_path: str | Path, pooling: str | None = None, max_length: int | None = None
) -> RanEncoder:
    """The registry's entry: a preset name (`ran-base`, `ran-tiny`) or a saved RAN folder."""
    if pooling is not None:
        raise TrainingError(
            f"pooling {pooling!r} does not apply to RAN",
            hint="RAN pools its window cells; set cell_pooling/token_pooling in its config instead",
        )
    path = Path(name_or_path)
    encoder = RanEncoder.load(path) if path.is_dir() else RanEncoder.from_preset(str(name_or_path))
    if max_length is not None:
        encoder.max_seq_length = min(max_length, encoder.max_seq_length)
    return encoder


def is_ran_checkpoint(path: str | Path) -> bool:
    """True for a directory written by `RanEncoder.save` (the registry's hook)."""
    config = Path(path) / CONFIG_FILE
    if not config.is_file() or not (Path(path) / WEIGHTS_FILE).is_file():
        return False
    try:
        return json.loads(config.read_text(encoding="utf-8")).get("encoder_type") == ENCODER_TYPE
    except (OSError, json.JSONDecodeError):
        return False


def init_weights(module: nn.Module, std: float) -> None:
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=std)
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, std=std)
        if module.padding_idx is not None:
            nn.init.zeros_(module.weight[module.padding_idx])
    elif isinstance(module, RanBackbone):
        nn.init.normal_(module.cell_initializer, std=std)


def load_tokenizer(path: str | Path | None) -> Any:
    """The bert-base-uncased vocabulary tokenizer (the offline MiniLM's by default)."""
    from transformers import AutoTokenizer

    if path is None:
        from issues_sts.dataset import offline_model_path

        path = offline_model_path()
    try:
        return AutoTokenizer.from_pretrained(str(path))
    except (OSError, ValueError) as error:
        raise TrainingError(f"cannot load a tokenizer from {path}: {error}") from error


def copy_word_embeddings(encoder: RanEncoder, checkpoint: Path) -> None:
    """Copy a BERT-vocabulary checkpoint's word embeddings; project them when widths differ.

    Widening (384 -> 768 for MiniLM into ran-base) uses a projection with orthonormal rows,
    so dot products between words survive; narrowing keeps a random orthogonal subspace.
    """
    source = find_word_embeddings(checkpoint)
    target = encoder.backbone.embeddings.weight
    if source.shape[0] != target.shape[0]:
        raise TrainingError(
            f"{checkpoint} has a vocabulary of {source.shape[0]}, RAN expects {target.shape[0]}"
        )
    if source.shape[1] != target.shape[1]:
        size = max(source.shape[1], target.shape[1])
        basis = torch.randn(size, size, generator=torch.Generator().manual_seed(0))
        source = source @ torch.linalg.qr(basis).Q[: source.shape[1], : target.shape[1]]
    with torch.no_grad():
        target.copy_(source.to(target.dtype))


def find_word_embeddings(checkpoint: Path) -> Tensor:
    weights = checkpoint / WEIGHTS_FILE
    if not weights.is_file():
        raise TrainingError(
            f"no {WEIGHTS_FILE} in {checkpoint}", hint="point at a BERT checkpoint folder"
        )
    state = load_file(str(weights))
    for name, tensor in state.items():
        if name.endswith("word_embeddings.weight"):
            return tensor.float()
    raise TrainingError(f"{weights} holds no word_embeddings.weight")
