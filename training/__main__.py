"""`python -m training ...` (see `training.cli`)."""

from __future__ import annotations

from training.cli import main

if __name__ == "__main__":
    main()
