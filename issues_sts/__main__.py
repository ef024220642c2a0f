"""`python -m issues_sts ...` = `issues-sts ...`, for launchers that need a module:

torchrun --nproc-per-node 4 -m issues_sts train --dataset data/dataset --out runs/ddp
"""

from __future__ import annotations

from issues_sts.cli.app import main

if __name__ == "__main__":
    main()
