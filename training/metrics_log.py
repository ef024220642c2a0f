"""Training metrics as JSON (a list of records) and CSV (one column per key seen so far)."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any


class MetricsLog:
    """Append-only log rewritten on each append (a run logs hundreds of rows, not millions)."""

    def __init__(self, directory: Path, enabled: bool = True, resume: bool = False) -> None:
        self.json_path = Path(directory) / "metrics.json"
        self.csv_path = Path(directory) / "metrics.csv"
        self.enabled = enabled
        self.records: list[dict[str, Any]] = []
        if resume and self.json_path.is_file():
            self.records = json.loads(self.json_path.read_text())

    def append(self, record: dict[str, Any]) -> None:
        if not self.enabled:
            return
        self.records.append({"time": round(time.time(), 3), **record})
        self.json_path.parent.mkdir(parents=True, exist_ok=True)
        self.json_path.write_text(json.dumps(self.records, indent=1) + "\n")
        columns: list[str] = []
        for row in self.records:
            columns += [key for key in row if key not in columns]
        with self.csv_path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            writer.writerows(self.records)
