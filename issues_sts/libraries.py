"""What third-party libraries print on their own, kept to what a user can act on.

- Progress bars: huggingface_hub, datasets and transformers draw tqdm bars on stderr (push,
  `diff me/gis@v1 ...`'s "Fetching 5 files", model downloads). Under `--quiet`, or where
  stderr is not a terminal (a log file, where they land as ANSI escapes), they are off.
- One harmless warning, filtered by its logger and its words (never all warnings):
  bitsandbytes, imported through peft, logs "Failed to load CPU gemm_4bit_forward ... pip
  install kernels" on CPUs with AVX512-BF16 although no 4-bit kernel is ever used here.
  (With `kernels` installed, as transformers 5.25 requires, that import also asks the Hub for
  the kernel: saving a model therefore reads sentence-transformers' version from its
  distribution instead of importing it, `training/models/st_format.py`.)
"""

from __future__ import annotations

import logging
import os
import sys

# (logger, the start of the message) of warnings that read like errors but change nothing
HARMLESS = (("bitsandbytes.backends.cpu.ops", "Failed to load CPU gemm_4bit_forward"),)


class _Harmless(logging.Filter):
    def __init__(self, start: str) -> None:
        super().__init__()
        self.start = start

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.start)


def filter_harmless_warnings() -> None:
    """Drop the `HARMLESS` records at their own loggers (set before the library is imported,
    the logger is the one it will use); anything else they log still shows."""
    for name, start in HARMLESS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _Harmless) and f.start == start for f in logger.filters):
            logger.addFilter(_Harmless(start))


def silence_library_bars() -> None:
    """Turn the libraries' own progress bars off, for libraries imported later (their
    environment switches) and already imported (their functions)."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if "datasets" in sys.modules:
        import datasets

        datasets.disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()


def quiet_libraries(*, quiet: bool, terminal: bool) -> None:
    """Before a command runs: harmless warnings filtered; bars off under --quiet or off a
    terminal."""
    filter_harmless_warnings()
    if quiet or not terminal:
        silence_library_bars()
