"""python3 merge35.py [FOLDER ROUND READER...]: the readers' labels as one round folder,
FOLDER/round/ (labels.csv, excerpts/, support/, renames.txt from the readers' `## Renames`
lists). With no arguments: conv35/round/, round conv-35, every reader that finished (a
labels.csv and a NOTES.md: a reader still at work is left out)."""
import csv, re, shutil, sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
folder, round_name, chosen = (sys.argv[1], sys.argv[2], set(sys.argv[3:])) if len(sys.argv) > 3 else ("conv35", "conv-35", None)
readers = sorted(
    p for p in (HERE / "conv35").iterdir()
    if p.is_dir() and p.name != "round" and (chosen is None or p.name in chosen)
    and (p / "labels.csv").is_file() and (p / "NOTES.md").is_file()
)
print("readers:", ", ".join(p.name for p in readers))
out = HERE / folder / "round"
if out.exists():
    shutil.rmtree(out)
(out / "excerpts").mkdir(parents=True)
(out / "support").mkdir()
rows, seen, renames = [], {}, {}
counts = {}
for r in readers:
    c = counts.setdefault(r.name, {"duplicate": 0, "hard_negative": 0, "skip": 0, "dup-admitted": 0})
    listed = [tuple(l.split(",")) for l in (r / "LIST.txt").read_text().split()]
    labels = list(csv.DictReader((r / "labels.csv").open(encoding="utf-8")))
    if len(labels) != len(listed):
        print(f"warning: {r.name}: {len(labels)} rows for {len(listed)} listed", file=sys.stderr)
    for row in labels:
        cat = row["category"].strip()
        c[cat] = c.get(cat, 0) + 1
        if cat == "skip":
            continue
        key = (row["repo"].strip().lower(), int(row["number"]))
        if key in seen:
            c["dup-admitted"] += 1
            continue
        seen[key] = r.name
        rows.append({**{k: (row.get(k) or "").strip() for k in ("repo", "number", "category", "canonical_repo", "canonical_number", "note")}, "round": round_name, "split": "test"})
    for sub in ("excerpts", "support"):
        for p in sorted((r / sub).glob("*.txt")) if (r / sub).is_dir() else []:
            dest = out / sub / p.name
            if not dest.exists() or p.stat().st_size > dest.stat().st_size:
                shutil.copy(p, dest)
    notes = (r / "NOTES.md").read_text(encoding="utf-8") if (r / "NOTES.md").is_file() else ""
    m = re.search(r"^## Renames\s*\n(.*?)(?=^## |\Z)", notes, re.S | re.M)
    for line in (m[1].splitlines() if m else []):
        pair = re.search(r"([\w.-]+/[\w.-]+)\s*=\s*([\w.-]+/[\w.-]+)", line)
        if pair:
            renames.setdefault(pair[1], pair[2])
with (out / "labels.csv").open("w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, ["repo", "number", "category", "canonical_repo", "canonical_number", "note", "round", "split"])
    w.writeheader()
    w.writerows(sorted(rows, key=lambda x: (x["repo"].lower(), int(x["number"]))))
(out / "renames.txt").write_text("".join(f"{o}={n}\n" for o, n in sorted(renames.items())))
for name, c in counts.items():
    print(name, c)
print(f"{len(rows)} rows, {len(renames)} renames -> {out}")
