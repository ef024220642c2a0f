"""The training loop: AdamW, linear warmup/decay, accumulation, bf16, DDP, eval, resume.

One runner owns the loop; policy (schedule, precision choice, what to compare) lives in
small functions. Output folder:

    OUTPUT/
      train_config.json   the effective TrainConfig
      last/               newest checkpoint: encoder (safetensors + config + tokenizer),
                          progress.json, trainer_state.pt (optimizer, scheduler, RNG)
      best/               best encoder on the valid split (primary metric: spearman)
      metrics.json/.csv   one record per logging or evaluation event
"""

from __future__ import annotations

import json
import math
import random
import signal
import sys
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn.parallel import DistributedDataParallel

from issues_sts.errors import TrainingError
from training import distributed
from training.checkpoint import (
    Progress,
    is_resumable,
    load_trainer_state,
    read_progress,
    restore_rng,
    save_checkpoint,
)
from training.config import RESUME_KEYS, TrainConfig, TrainResult
from training.data import (
    Batch,
    PairSet,
    ZigzagCollator,
    batches,
    epoch_order,
    eval_pairs,
    load_pairs,
)
from training.evaluation import SimilarityEvaluator
from training.losses import AnglELoss
from training.metrics_log import MetricsLog
from training.model_card import model_card
from training.models import build_encoder, load_encoder
from training.models.base import Encoder
from training.progress import TrainProgress, note, stamped_or_plain, warning
from training.schedule import effective_warmup, linear_schedule


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def use_bf16(precision: str, device: torch.device) -> bool:
    if precision == "bf16":
        return True
    if precision == "auto":
        return device.type == "cuda" and torch.cuda.is_bf16_supported()
    return False


def build_optimizer(model: torch.nn.Module, config: TrainConfig) -> torch.optim.AdamW:
    # As the Hugging Face Trainer of the paper's time: no weight decay on biases and norms.
    decay: list[torch.nn.Parameter] = []
    no_decay: list[torch.nn.Parameter] = []
    for name, param in model.named_parameters():
        if param.requires_grad:
            (no_decay if param.ndim < 2 or "norm" in name.lower() else decay).append(param)
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    try:
        # The fused kernel (CPU and CUDA) is ~4x faster per step than the default loop;
        # the Hugging Face Trainer uses it by default too.
        return torch.optim.AdamW(
            groups, lr=config.learning_rate, betas=(0.9, 0.999), eps=1e-8, fused=True
        )
    except (RuntimeError, ValueError):
        return torch.optim.AdamW(groups, lr=config.learning_rate, betas=(0.9, 0.999), eps=1e-8)


def total_steps(config: TrainConfig, micro_batches_per_epoch: int) -> int:
    per_epoch = math.ceil(micro_batches_per_epoch / config.grad_accumulation)
    steps = per_epoch * config.epochs
    return min(steps, config.max_steps) if config.max_steps else steps


def check_resume_compatible(saved: dict[str, Any], config: TrainConfig) -> None:
    current = json.loads(config.model_dump_json())
    changed = [k for k in RESUME_KEYS if saved.get(k) != current.get(k)]
    if changed:
        raise TrainingError(
            f"{config.output} holds a run with different {', '.join(changed)}",
            hint="use another --out, or --no-resume to start over there",
        )


class InterruptGuard:
    """Ctrl-C (or SIGTERM) during training: the first one lets the current step finish, then
    the run checkpoints and stops, so no step is lost and none is half-applied; a second one
    stops at once. Only the main thread can own signal handlers; elsewhere this does nothing."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, announce: bool = True) -> None:
        #: the signal that asked to stop (0: none)
        self.signum = 0
        self.announce = announce
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signum != 0

    def __enter__(self) -> InterruptGuard:
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._handle) for sig in self.SIGNALS}
        return self

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.signum = signum
        if self.announce:
            print(
                "\ninterrupt: finishing this step, then saving a checkpoint (Ctrl-C again to stop "
                "at once)",
                file=sys.stderr,
                flush=True,
            )

    def __exit__(self, *_: Any) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)

    def should_stop(self, device: torch.device) -> bool:
        """Every process stops at the same step under DDP (one interrupted rank stops all)."""
        if not distributed.is_distributed():
            return self.requested
        flag = torch.tensor([1.0 if self.requested else 0.0], device=device)
        torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
        return bool(flag.item() > 0)


class Trainer:
    """Runs one `TrainConfig` to the end (or to `stop_after_steps`, or to a Ctrl-C),
    resuming if it can."""

    def __init__(self, config: TrainConfig, encoder: Encoder | None = None) -> None:
        self.config = config
        self.process = distributed.setup(config.device)
        self.out = Path(config.output)
        self.progress = Progress()
        #: started from an encoder object rather than `config.model` (the model card says so)
        self.custom_encoder = encoder is not None
        seed_everything(config.seed)
        self.train_pairs = load_pairs(config.data, config.train_split, config.max_train_pairs)
        resuming = config.resume and is_resumable(self.out / "last")
        if resuming:
            check_resume_compatible(
                json.loads((self.out / "train_config.json").read_text()), config
            )
            self.encoder = load_encoder(self.out / "last")
            self.progress = read_progress(self.out / "last")
            if self.process.is_main:  # said in a terminal and a log alike
                stamped_or_plain(
                    f"resuming {self.out / 'last'}: step {self.progress.step}, epoch "
                    f"{self.progress.epoch} (--no-resume starts over)"
                )
        else:
            if config.progress and self.process.is_main:
                note(f"loading the model {config.model or '(the default backbone)'}")
            self.encoder = encoder or build_encoder(config.model, config.pooling, config.max_length)
        # The saved model (and sentence-transformers loading it) reads texts at the length it
        # was trained at, not at the backbone's larger limit.
        self.encoder.max_seq_length = min(config.max_length, self.encoder.max_seq_length)
        self.encoder.to(self.process.device)
        if config.gradient_checkpointing:
            self.encoder.gradient_checkpointing_enable()
        if config.attention_dropout is not None:
            self.encoder.set_attention_dropout(config.attention_dropout)
        self.bf16 = use_bf16(config.precision, self.process.device)
        self.evaluator = self._make_evaluator()
        self.collate = ZigzagCollator(self.train_pairs, self.encoder.tokenize, config.max_length)
        self.model = self._wrap(self.encoder)
        self.loss = AnglELoss(self.model, config.loss)
        self.optimizer = build_optimizer(self.encoder, config)
        micro = len(batches(self._order(0), config.batch_size))
        if micro == 0:
            raise TrainingError(
                "the training split has fewer than 2 pairs per process",
                hint="use more data or fewer processes",
            )
        self.micro_per_epoch = micro
        self.total_steps = total_steps(config, micro)
        warmup = effective_warmup(
            config.warmup_steps, self.total_steps, warn=warning if self.process.is_main else None
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, linear_schedule(warmup, self.total_steps)
        )
        if resuming:
            self._restore(load_trainer_state(self.out / "last"))
        self.log = MetricsLog(self.out, enabled=self.process.is_main, resume=resuming)
        self.interrupted = False
        self.guard = InterruptGuard(announce=False)

    def _wrap(self, encoder: Encoder) -> torch.nn.Module:
        if self.process.world_size == 1:
            return encoder
        ids = [self.process.device.index] if self.process.device.type == "cuda" else None
        # Pooling leaves some heads (e.g. BERT's pooler) unused, hence find_unused_parameters.
        return DistributedDataParallel(encoder, device_ids=ids, find_unused_parameters=True)

    def _make_evaluator(self) -> SimilarityEvaluator | None:
        if not self.config.valid_split:
            return None
        pairs = eval_pairs(
            self.config.data,
            self.config.valid_split,
            self.config.max_eval_pairs,
            option="--valid-split (or '' to train without validation)",
            limit_option="--max-eval-pairs",
        )
        return SimilarityEvaluator(
            pairs,
            self.config.valid_split,
            self.config.eval_batch_size,
            self.config.max_length,
            self.bf16,
        )

    def _order(self, epoch: int) -> list[int]:
        return epoch_order(
            len(self.train_pairs),
            self.config.seed,
            epoch,
            self.process.rank,
            self.process.world_size,
        )

    def _restore(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        restore_rng(state["rng"])

    # -- the loop ---------------------------------------------------------------------

    def fit(self) -> TrainResult:
        if self.process.is_main:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / "train_config.json").write_text(
                self.config.model_dump_json(indent=2) + "\n"
            )
        stop_at = self.progress.step + (self.config.stop_after_steps or self.total_steps)
        self.guard = InterruptGuard(announce=self.process.is_main)
        finished_before = self.progress.step >= self.total_steps  # a rerun of a finished run
        with (
            self.guard,
            TrainProgress(
                self.total_steps,
                self.progress.step,
                enabled=self.config.progress and self.process.is_main and not finished_before,
                every=self.config.progress_every,
            ) as bar,
        ):
            while self.progress.step < min(self.total_steps, stop_at) and not self.interrupted:
                self._run_epoch(bar, stop_at)
        finished = self.progress.step >= self.total_steps
        if (
            finished
            and not self.interrupted
            and self.evaluator is not None
            and self.progress.extra.get("evaluated_step") != self.progress.step
        ):
            self._evaluate()
        if not finished_before:
            self._checkpoint()
        return self._result().model_copy(update={"already_complete": finished_before})

    def _run_epoch(self, bar: TrainProgress, stop_at: int) -> None:
        progress, config = self.progress, self.config
        chunks = batches(self._order(progress.epoch), config.batch_size)
        started = time.perf_counter()
        window: list[dict[str, float]] = []
        for position in range(progress.batches_done, len(chunks), config.grad_accumulation):
            group = chunks[position : position + config.grad_accumulation]
            window.append(self._optimizer_step([self.collate(c) for c in group]))
            progress.batches_done = position + len(group)
            progress.step += 1
            progress.pairs_seen += sum(len(c) for c in group) * self.process.world_size
            progress.train_seconds += time.perf_counter() - started
            rate = progress.pairs_seen / max(progress.train_seconds, 1e-9)
            bar.advance(window[-1]["loss"], rate)
            self._after_step(window, rate)
            started = time.perf_counter()  # evaluation and checkpoints are not training time
            if progress.step >= min(self.total_steps, stop_at):
                break
            if self.guard.should_stop(self.process.device):
                self.interrupted = True
                break
        if progress.batches_done >= len(chunks):
            progress.epoch, progress.batches_done = progress.epoch + 1, 0
            if self.evaluator is not None and progress.step < self.total_steps:
                self._evaluate()
                self._checkpoint()

    def _after_step(self, window: list[dict[str, float]], rate: float) -> None:
        step, config = self.progress.step, self.config
        if step % config.logging_steps == 0 or step == self.total_steps:
            means = {k: float(np.mean([w[k] for w in window])) for k in window[0]}
            self.log.append(
                {
                    "kind": "train",
                    "step": step,
                    "epoch": self.progress.epoch,
                    "lr": self.scheduler.get_last_lr()[0],
                    "pairs_per_s": rate,
                    **means,
                }
            )
            window.clear()
        if config.eval_steps and step % config.eval_steps == 0 and step < self.total_steps:
            self._evaluate()
        save_every = config.save_steps or config.eval_steps
        if save_every and step % save_every == 0 and step < self.total_steps:
            self._checkpoint()

    def _optimizer_step(self, group: list[Batch]) -> dict[str, float]:
        self.model.train()
        totals: dict[str, float] = {}
        for index, batch in enumerate(group):
            batch = batch.to(self.process.device)
            last = index == len(group) - 1
            sync = (
                nullcontext()
                if last or not isinstance(self.model, DistributedDataParallel)
                else self.model.no_sync()
            )
            with sync:
                parts = self._forward(batch)
                loss = parts.pop("loss")
                (loss / len(group)).backward()
            for key, value in {"loss": loss, **parts}.items():
                totals[key] = totals.get(key, 0.0) + float(value.detach()) / len(group)
        if self.config.max_grad_norm:
            torch.nn.utils.clip_grad_norm_(self.encoder.parameters(), self.config.max_grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        return totals

    def _forward(self, batch: Batch) -> dict[str, torch.Tensor]:
        device_type = self.process.device.type
        autocast = torch.autocast(device_type, dtype=torch.bfloat16) if self.bf16 else nullcontext()
        with autocast:
            embeddings = self.model(batch.features)["sentence_embedding"]
        parts = self.loss.components(embeddings, batch.labels, batch.text_ids)
        return {"loss": self.loss.weighted_total(parts), **parts}

    # -- evaluation and checkpoints ------------------------------------------------------

    def _evaluate(self) -> dict[str, float]:
        metrics: dict[str, float] = {}
        if self.process.is_main and self.evaluator is not None:
            metrics = self.evaluator(self.encoder)
            primary = metrics[self.evaluator.primary_metric]
            self.log.append(
                {
                    "kind": "eval",
                    "split": self.evaluator.name,
                    "step": self.progress.step,
                    "epoch": self.progress.epoch,
                    **metrics,
                }
            )
            self.progress.extra["last_eval"] = metrics
            self.progress.extra["evaluated_step"] = self.progress.step
            best = self.progress.best_metric
            if best is None or primary > best:
                self.progress.best_metric, self.progress.best_step = primary, self.progress.step
                save_checkpoint(
                    self.out / "best",
                    self.encoder,
                    self.progress,
                    card=model_card(self.config, self.progress, self.encoder, self.custom_encoder),
                )
        self.progress.extra["evaluated_step"] = self.progress.step
        self._barrier()
        return metrics

    def _checkpoint(self) -> None:
        if self.process.is_main:
            save_checkpoint(
                self.out / "last",
                self.encoder,
                self.progress,
                self.optimizer,
                self.scheduler,
                card=model_card(self.config, self.progress, self.encoder, self.custom_encoder),
            )
        self._barrier()

    def _barrier(self) -> None:
        if distributed.is_distributed():
            torch.distributed.barrier()

    def _result(self) -> TrainResult:
        best = self.out / "best"
        model_dir = best if (best / "progress.json").is_file() else self.out / "last"
        progress = self.progress
        return TrainResult(
            output=self.out,
            model_dir=model_dir,
            steps=progress.step,
            total_steps=self.total_steps,
            interrupted=self.interrupted,
            stop_signal=self.guard.signum,
            best_metric=progress.best_metric,
            valid=progress.extra.get("last_eval", {}),
            train_seconds=progress.train_seconds,
            pairs_per_second=progress.pairs_seen / max(progress.train_seconds, 1e-9),
        )


def train(config: TrainConfig, encoder: Encoder | None = None) -> TrainResult:
    """Train (or resume) one run; `encoder` overrides `config.model` for a fresh start."""
    return Trainer(config, encoder).fit()


def evaluate_pairs(
    encoder: Encoder, pairs: PairSet, name: str, batch_size: int = 64, max_length: int | None = None
) -> dict[str, float]:
    return SimilarityEvaluator(pairs, name, batch_size, max_length)(encoder)
