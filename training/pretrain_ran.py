"""Masked-language-model pretraining of a RAN on issue texts, for users without the paper's
RAN checkpoint (it is Keras-only and lives off PyPI).

    issues-sts pretrain-ran --dataset data/rust/dataset --out runs/ran-mlm \\
        --model ran-base --steps 20000 --max-length 1024

The texts come from a crawl store (`--store`: every issue's title and body, built with the
dataset's own text recipe and secret redaction) or a built dataset folder (`--dataset`: the
unique texts of `--splits`, `train` by default, so valid/test texts stay unseen). The output
folder is a RAN encoder that `issues-sts train --model DIR` fine-tunes with AnglE;
the MLM head is saved beside it (`mlm_head.safetensors`) and ignored by the trainer.

Texts longer than `--max-length` are cut into segments of that length (each with [CLS] and
[SEP]) instead of truncated, so RAN sees the long issues whole. Masking follows BERT: 15 % of
real tokens are predicted, of which 80 % become [MASK], 10 % a random token and 10 % stay;
[CLS]/[SEP]/[PAD] are never chosen. Like the reference RAN pretraining, the decoder is tied
to the token embeddings.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from torch import Tensor, nn

from issues_sts.errors import ConfigError, DatasetError, TrainingError
from training.config import PretrainConfig
from training.models.ran import RanEncoder, build_ran, copy_word_embeddings
from training.models.ran_config import RanConfig
from training.progress import TrainProgress, warning
from training.schedule import effective_warmup, linear_schedule

HEAD_FILE = "mlm_head.safetensors"
#: texts tokenised per call while streaming segments
TOKENIZE_CHUNK = 256


class MaskedLMHead(nn.Module):
    """swish(dense) -> LayerNorm -> logits against the (tied) token embeddings."""

    def __init__(self, embeddings: nn.Embedding, eps: float) -> None:
        super().__init__()
        dim = embeddings.embedding_dim
        self.dense = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim, eps=eps)
        self.embeddings = embeddings
        self.bias = nn.Parameter(torch.zeros(embeddings.num_embeddings))

    def forward(self, hidden: Tensor) -> Tensor:
        return self.norm(F.silu(self.dense(hidden))) @ self.embeddings.weight.T + self.bias


class RanForMaskedLM(nn.Module):
    """A RAN encoder with an MLM head; `forward` returns the mean loss over masked tokens."""

    def __init__(self, encoder: RanEncoder) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = MaskedLMHead(encoder.backbone.embeddings, encoder.config.layer_norm_eps)

    def forward(self, input_ids: Tensor, attention_mask: Tensor, labels: Tensor) -> Tensor:
        tokens = self.encoder({"input_ids": input_ids, "attention_mask": attention_mask})
        chosen = labels != -100
        # logits only where a token is predicted: the vocabulary product dominates otherwise
        logits = self.head(tokens["token_embeddings"][chosen])
        return F.cross_entropy(logits.float(), labels[chosen])

    def head_state(self) -> dict[str, Tensor]:
        return {
            name: tensor.detach().contiguous()
            for name, tensor in self.head.state_dict().items()
            if not name.startswith("embeddings.")
        }


def load_texts(source: Path, splits: tuple[str, ...], limit: int | None = None) -> list[str]:
    """Unique issue texts from a crawl store or a built dataset folder, in a stable order."""
    source = Path(source)
    if (source / "crawl.sqlite").is_file():
        texts = _store_texts(source)
    elif (source / "data").is_dir():
        texts = _dataset_texts(source, splits)
    else:
        raise DatasetError(
            f"{source} is neither a crawl store nor a built dataset folder",
            hint="pass --store a folder with crawl.sqlite (issues-sts crawl) or --dataset one "
            "with data/*.parquet (issues-sts build)",
        )
    return texts[:limit] if limit is not None else texts


def _store_texts(store_dir: Path) -> list[str]:
    from issues_sts.dataset import store_texts

    return store_texts(store_dir)


def _dataset_texts(folder: Path, splits: tuple[str, ...]) -> list[str]:
    import polars as pl

    files = [f for split in splits for f in sorted((folder / "data").glob(f"{split}-*.parquet"))]
    if not files:
        raise ConfigError(
            f"no parquet files for splits {list(splits)} in {folder / 'data'}",
            hint="choose --splits among the dataset's (a built one: train, valid, test)",
        )
    frame = pl.concat([pl.read_parquet(f, columns=["text1", "text2"]) for f in files])
    both = pl.concat([frame["text1"], frame["text2"]]).unique(maintain_order=True)
    return [text for text in both.to_list() if text]


def mask_tokens(
    input_ids: Tensor,
    attention_mask: Tensor,
    special_ids: list[int],
    mask_id: int,
    vocab_size: int,
    probability: float,
    generator: torch.Generator,
) -> tuple[Tensor, Tensor]:
    """BERT's 80/10/10 masking; every text gets at least one prediction target."""
    candidates = attention_mask.bool() & ~torch.isin(input_ids, torch.tensor(special_ids))
    draw = torch.rand(input_ids.shape, generator=generator)
    chosen = candidates & (draw < probability)
    # a short text can draw nothing: force its first candidate so no row is silent
    first = candidates & (candidates.long().cumsum(dim=1) == 1)
    chosen |= first & ~chosen.any(dim=1, keepdim=True)
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, -100))
    action = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator)
    masked = torch.where(chosen & (action < 0.8), torch.full_like(input_ids, mask_id), input_ids)
    masked = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, masked)
    return masked, labels


def build_model(config: PretrainConfig) -> RanForMaskedLM:
    torch.manual_seed(config.seed)
    if Path(config.model).is_dir():
        if config.overrides:
            raise ConfigError(
                "--set changes the shape of a fresh RAN only",
                hint=f"drop --set, or start from a preset instead of {config.model}",
            )
        encoder = build_ran(config.model)
    else:
        encoder = RanEncoder.from_preset(config.model, **config.overrides)
    if config.init_embeddings_from is not None:
        copy_word_embeddings(encoder, config.init_embeddings_from)
    encoder.max_seq_length = min(config.max_length, encoder.max_seq_length)
    return RanForMaskedLM(encoder)


@dataclass
class PretrainResult:
    output: Path
    losses: list[float]
    texts: int
    seconds: float
    tokens: int

    @property
    def first_loss(self) -> float:
        return sum(self.losses[:10]) / len(self.losses[:10])

    @property
    def last_loss(self) -> float:
        return sum(self.losses[-10:]) / len(self.losses[-10:])


def _device(name: str | None) -> torch.device:
    """`--device`, chosen as `train` chooses it: cuda when available unless told."""
    if name is not None and name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(
            f"--device {name}: this torch has no CUDA device to use",
            hint="leave --device out to train on the CPU",
        )
    return torch.device(name or ("cuda" if torch.cuda.is_available() else "cpu"))


def pretrain(
    config: PretrainConfig, texts: list[str] | None = None, progress: bool = True
) -> PretrainResult:
    """Run MLM pretraining and save the encoder; `texts` skips reading `config.data`."""
    texts = texts if texts is not None else load_texts(config.data, config.splits, config.max_texts)
    if not texts:
        raise TrainingError(f"no texts to pretrain on in {config.data}")
    device = _device(config.device)
    model = build_model(config).to(device)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        linear_schedule(
            effective_warmup(config.warmup_steps, config.steps, warn=warning), config.steps
        ),
    )
    losses, tokens, started = [], 0, time.perf_counter()
    with TrainProgress(config.steps, enabled=progress, label="MLM", unit="tok") as bar:
        for features in _batches(model.encoder, texts, config):
            loss = model(**{key: value.to(device) for key, value in features.items()})
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            losses.append(float(loss.item()))
            tokens += int(features["attention_mask"].sum())
            bar.advance(losses[-1], tokens / (time.perf_counter() - started))
    result = PretrainResult(
        config.output, losses, len(texts), time.perf_counter() - started, tokens
    )
    save_pretrained(model, config, result)
    return result


def split_segments(ids: list[int], body: int, min_piece: int = 8) -> list[list[int]]:
    """A text's token ids cut into pieces of at most `body` tokens, so a long issue is read
    whole rather than truncated; a last piece shorter than `min_piece` is dropped."""
    pieces = [ids[start : start + body] for start in range(0, max(len(ids), 1), body)]
    return [piece for index, piece in enumerate(pieces) if index == 0 or len(piece) >= min_piece]


def segment_stream(
    texts: list[str], tokenizer: Any, max_length: int, seed: int
) -> Iterator[list[int]]:
    """Endless shuffled passes over the texts' segments ([CLS] piece [SEP]), tokenised a few
    hundred texts at a time so memory stays flat on a large store."""
    shuffler = random.Random(seed)
    while True:
        order = shuffler.sample(range(len(texts)), len(texts))
        for start in range(0, len(order), TOKENIZE_CHUNK):
            chunk = [texts[i] for i in order[start : start + TOKENIZE_CHUNK]]
            encoded = tokenizer(chunk, add_special_tokens=False, verbose=False)["input_ids"]
            segments = [
                [tokenizer.cls_token_id, *piece, tokenizer.sep_token_id]
                for ids in encoded
                for piece in split_segments(ids, max_length - 2)
            ]
            shuffler.shuffle(segments)
            yield from segments


def pad_batch(segments: list[list[int]], pad_id: int) -> tuple[Tensor, Tensor]:
    """Right-padded ids and attention mask for a list of segments."""
    width = max(len(segment) for segment in segments)
    ids = torch.full((len(segments), width), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, segment in enumerate(segments):
        ids[row, : len(segment)] = torch.tensor(segment, dtype=torch.long)
        mask[row, : len(segment)] = 1
    return ids, mask


def _batches(
    encoder: RanEncoder, texts: list[str], config: PretrainConfig
) -> Iterator[dict[str, Tensor]]:
    """`config.steps` masked batches of segments (seeded)."""
    tokenizer = encoder.tokenizer
    special = sorted({tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id})
    generator = torch.Generator().manual_seed(config.seed)
    stream = segment_stream(texts, tokenizer, config.max_length, config.seed)
    for _ in range(config.steps):
        segments = [next(stream) for _ in range(config.batch_size)]
        input_ids, attention_mask = pad_batch(segments, tokenizer.pad_token_id)
        masked, labels = mask_tokens(
            input_ids, attention_mask, special, tokenizer.mask_token_id,
            encoder.config.vocab_size, config.mask_probability, generator,
        )  # fmt: skip
        yield {"input_ids": masked, "attention_mask": attention_mask, "labels": labels}


def save_pretrained(model: RanForMaskedLM, config: PretrainConfig, result: PretrainResult) -> None:
    output = config.output
    model.encoder.save(output)
    save_file(model.head_state(), str(output / HEAD_FILE))
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(config).items()}
    (output / "pretrain_config.json").write_text(json.dumps(settings, indent=2) + "\n")
    log = {
        "texts": result.texts,
        "steps": len(result.losses),
        "seconds": round(result.seconds, 2),
        "tokens": result.tokens,
        "first_loss": result.first_loss,
        "last_loss": result.last_loss,
        "perplexity_last": math.exp(min(result.last_loss, 50.0)),
        "losses": result.losses,
    }
    (output / "pretrain_log.json").write_text(json.dumps(log, indent=2) + "\n")


def parse_settings(settings: list[str]) -> dict[str, Any]:
    """`["window_size=128", "token_pooling=mean"]` -> typed RanConfig overrides."""
    fields = RanConfig.__dataclass_fields__
    overrides: dict[str, Any] = {}
    for setting in settings:
        key, _, value = setting.partition("=")
        if key not in fields or not value:
            raise ConfigError(
                f"bad --set {setting!r}", hint=f"use FIELD=VALUE with FIELD one of {sorted(fields)}"
            )
        kind = type(getattr(RanConfig(), key))
        try:
            overrides[key] = kind(value)
        except ValueError:
            raise ConfigError(f"--set {key} expects a {kind.__name__}, got {value!r}") from None
    return overrides
