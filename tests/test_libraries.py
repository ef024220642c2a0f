"""Third-party noise: the one harmless warning is dropped at its own logger, by its words,
and nothing else is (every train, demo and pretrain-ran printed bitsandbytes' "Failed to
load CPU gemm_4bit_forward ... pip install kernels", which reads like an error)."""

from __future__ import annotations

import logging

import pytest

from issues_sts.libraries import HARMLESS, filter_harmless_warnings


def test_only_the_harmless_warning_is_filtered(caplog: pytest.LogCaptureFixture) -> None:
    (name, start), *_ = HARMLESS
    logger = logging.getLogger(name)
    filter_harmless_warnings()
    filter_harmless_warnings()  # once per process, however often a command starts
    assert len(logger.filters) == 1
    with caplog.at_level(logging.WARNING):
        logger.warning(
            "Failed to load CPU gemm_4bit_forward from kernels-community: %s. Please make sure "
            "you already `pip install kernels` and the kernels >= 0.11.1",
            "No module named 'kernels'",
        )
        logger.warning("a real problem of bitsandbytes")
        logging.getLogger("elsewhere").warning(start)  # the same words elsewhere still show
    assert [r.getMessage() for r in caplog.records] == ["a real problem of bitsandbytes", start]
