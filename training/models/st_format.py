"""Every saved encoder is also a sentence-transformers model.

`Encoder.save(dir)` calls `write_sentence_transformers_files(dir, ...)`, so that

    SentenceTransformer(dir)                          # BERT with cls / avg / max / last pooling
    SentenceTransformer(dir, trust_remote_code=True)  # RAN, or BERT with cls-avg / first-last-avg

gives the embeddings this project computes, with the same pooling, normalisation and token
limit. Where sentence-transformers has the pooling (cls, mean, max, lasttoken) the folder uses
its own Transformer + Pooling (+ Normalize) modules and needs no code of ours. Otherwise the
folder names one custom module, `EncoderModule`, that wraps the project's encoder; since
sentence-transformers 6 any module outside its own namespace needs `trust_remote_code=True`
(it imports this package, so `issues-sts` must be installed where the model is loaded).

The files are written in the classic layout (`sentence_transformers.models.*` type names,
`pooling_mode_*` booleans, `max_seq_length` in `sentence_bert_config.json`), which every
sentence-transformers release from 2.x to 6.x reads.

The opposite direction is `declared_pooling(folder)`: a backbone folder that declares its own
pooling (all-MiniLM-L6-v2: mean + normalize, 256 tokens) is used that way by default.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import torch
from torch import nn

from training.models.base import Encoder

MODULES_FILE = "modules.json"
#: our pooling name -> sentence-transformers' legacy config key
ST_POOLING_KEYS = {
    "cls": "pooling_mode_cls_token",
    "avg": "pooling_mode_mean_tokens",
    "max": "pooling_mode_max_tokens",
    "last": "pooling_mode_lasttoken",
}
#: sentence-transformers' pooling mode -> ours (the modes we can reproduce exactly)
FROM_ST_MODE = {"cls": "cls", "mean": "avg", "max": "max", "lasttoken": "last"}
ENCODER_MODULE = "training.models.st_format.EncoderModule"


@dataclass(frozen=True)
class DeclaredPooling:
    """What a backbone folder's sentence-transformers configuration asks for."""

    pooling: str
    normalize: bool
    max_seq_length: int | None


def declared_pooling(folder: str | Path) -> DeclaredPooling | None:
    """The pooling a local sentence-transformers folder declares, if we can reproduce it.

    None when the folder has no `modules.json`, when its pooling is not one of cls / mean /
    max / lasttoken alone, or when it holds modules other than Transformer, Pooling, Normalize.
    """
    root = Path(folder)
    try:
        modules = json.loads((root / MODULES_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    kinds = {str(m.get("type", "")).rsplit(".", 1)[-1]: m for m in modules}
    if set(kinds) - {"Transformer", "Pooling", "Normalize"} or "Pooling" not in kinds:
        return None
    try:
        config = json.loads((root / kinds["Pooling"]["path"] / "config.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    modes = _pooling_modes(config)
    if len(modes) != 1 or modes[0] not in FROM_ST_MODE:
        return None
    length: int | None = None
    try:
        length = int(json.loads((root / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, KeyError, TypeError, ValueError):
        length = None
    return DeclaredPooling(FROM_ST_MODE[modes[0]], "Normalize" in kinds, length)


def _pooling_modes(config: dict[str, Any]) -> list[str]:
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        return [mode]
    if isinstance(mode, list):
        return [str(m) for m in mode]
    legacy = {
        "pooling_mode_cls_token": "cls",
        "pooling_mode_max_tokens": "max",
        "pooling_mode_mean_tokens": "mean",
        "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens": "weightedmean",
        "pooling_mode_lasttoken": "lasttoken",
    }
    return [name for key, name in legacy.items() if config.get(key)]


def write_sentence_transformers_files(
    directory: Path, encoder: Encoder, *, pooling: str | None, normalize: bool = False
) -> None:
    """Add the sentence-transformers description of a saved encoder to its folder.

    `pooling` is the BERT pooling name (None for encoders that pool themselves, i.e. RAN).
    """
    directory = Path(directory)
    modules: list[dict[str, Any]]
    if pooling in ST_POOLING_KEYS:
        modules = [
            _module(0, "", "sentence_transformers.models.Transformer"),
            _module(1, "1_Pooling", "sentence_transformers.models.Pooling"),
        ]
        flags = dict.fromkeys(
            (
                "pooling_mode_cls_token",
                "pooling_mode_mean_tokens",
                "pooling_mode_max_tokens",
                "pooling_mode_mean_sqrt_len_tokens",
                "pooling_mode_weightedmean_tokens",
                "pooling_mode_lasttoken",
            ),
            False,
        )
        flags[ST_POOLING_KEYS[pooling]] = True
        (directory / "1_Pooling").mkdir(exist_ok=True)
        _write(
            directory / "1_Pooling" / "config.json",
            {"word_embedding_dimension": encoder.embedding_dim, **flags},
        )
        _write(
            directory / "sentence_bert_config.json",
            {"max_seq_length": encoder.max_seq_length, "do_lower_case": False},
        )
        if normalize:
            modules.append(_module(2, "2_Normalize", "sentence_transformers.models.Normalize"))
            (directory / "2_Normalize").mkdir(exist_ok=True)
    else:
        # cls-avg, first-last-avg and RAN: the project's own encoder, as one custom module.
        modules = [_module(0, "", ENCODER_MODULE)]
    _write(directory / MODULES_FILE, modules)
    _write(
        directory / "config_sentence_transformers.json",
        {
            "__version__": _versions(),
            "prompts": {},
            "default_prompt_name": None,
            "similarity_fn_name": "cosine",
        },
    )


def _module(index: int, path: str, kind: str) -> dict[str, Any]:
    return {"idx": index, "name": str(index), "path": path, "type": kind}


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n")


def _versions() -> dict[str, str]:
    import transformers

    from issues_sts import __version__

    versions = {
        "pytorch": torch.__version__,
        "transformers": transformers.__version__,
        "issues_sts": __version__,
    }
    # the installed distribution's version, not an import: importing sentence-transformers pulls
    # in peft and bitsandbytes, whose CPU backend asks the Hub for a 4-bit kernel (once
    # `kernels` is installed, as transformers 5.25 requires): a run-time network call to save a
    # folder (tests/test_training_hub.py's fake Hub caught it)
    with contextlib.suppress(metadata.PackageNotFoundError):  # only needed to *load* the folder
        versions["sentence_transformers"] = metadata.version("sentence-transformers")
    return versions


class EncoderModule(nn.Module):
    """A project encoder (RAN, or BERT with a pooling sentence-transformers lacks) as the one
    module of a `SentenceTransformer`: it tokenizes, embeds and saves exactly like `Encoder`."""

    def __init__(self, encoder: Encoder) -> None:
        super().__init__()
        self.encoder = encoder

    @property
    def max_seq_length(self) -> int:
        return int(self.encoder.max_seq_length)

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        self.encoder.max_seq_length = int(value)

    @property
    def tokenizer(self) -> Any:
        return self.encoder.tokenizer

    def tokenize(self, texts: list[str], **_: Any) -> dict[str, torch.Tensor]:
        return self.encoder.tokenize([str(t) for t in texts])

    def forward(self, features: dict[str, torch.Tensor], **_: Any) -> dict[str, torch.Tensor]:
        features.update(self.encoder(features))
        return features

    def get_sentence_embedding_dimension(self) -> int:
        return self.encoder.embedding_dim

    def save(self, output_path: str, *_: Any, **__: Any) -> None:
        self.encoder.save(Path(output_path))

    @staticmethod
    def load(input_path: str) -> EncoderModule:
        from training.models import load_encoder

        return EncoderModule(load_encoder(input_path))
