"""`python -m training ...`: an alias of `issues-sts` for the training commands.

    python -m training train --dataset data/dataset --out runs/angle      # = issues-sts train ...
    torchrun --nproc-per-node 4 -m training train --dataset data/dataset --out runs/ddp

The commands, their options and the error-to-exit-code table are `issues-sts`'s own (see
`issues_sts/cli/train.py`); this module only lets launchers that need a module (`torchrun
-m`) start them.
"""

from __future__ import annotations

from issues_sts.cli.app import main as issues_sts_main


def main(argv: list[str] | None = None) -> None:
    issues_sts_main(argv)
