"""EXCLUDE-convNN.txt: every issue a round admitted or labelled, a doc or an archive already holds (owner/name#N, lower case)."""
import csv, gzip, json, re, sys
from pathlib import Path

repo = Path("/work/main")
shared = Path("/work/shared/data")
keys = set()
for path in sorted((repo / "data/annotations").glob("*.csv")):
    for row in csv.DictReader(path.open(encoding="utf-8")):
        r = (row.get("repo") or "").strip()
        if r and (row.get("number") or "").strip().isdigit():
            keys.add(f"{r.lower()}#{int(row['number'])}")
        c = (row.get("canonical_number") or "").strip()
        if c.isdigit():
            keys.add(f"{((row.get('canonical_repo') or '').strip() or r).lower()}#{int(c)}")
# every issue an earlier round admitted, labelled or not (keys already in this form)
for path in sorted((repo / "data/annotations/conventions_admitted").glob("*.txt")):
    keys.update(path.read_text().split())
url = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)")
for path in repo.rglob("*"):
    if path.suffix in (".md", ".py", ".txt") and ".venv" not in path.parts and ".git" not in path.parts:
        for m in url.finditer(path.read_text(encoding="utf-8", errors="replace")):
            keys.add(f"{m[1].lower()}#{int(m[2])}")
def lines(p):
    with gzip.open(p, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)
for archive in sorted(shared.glob("*-issue-archive")):
    for name in ("issues.jsonl.gz", "main.jsonl.gz"):
        p = archive / name
        if not p.is_file():
            continue
        for item in lines(p):
            r = item.get("repo") or str(item.get("repository_url", "")).split("/repos/", 1)[-1]
            if not r and "rust" in archive.name:
                r = "rust-lang/rust"
            if r and item.get("number") is not None:
                keys.add(f"{r.lower()}#{int(item['number'])}")
Path(sys.argv[1]).write_text("".join(k + "\n" for k in sorted(keys)))
print(len(keys))
