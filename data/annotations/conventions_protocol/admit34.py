"""Admit a reader's search answers: python3 admit34.py READER_FOLDER

Reads READER_FOLDER/answers/*.json (each the search tool's whole answer, saved verbatim), keeps
every result that is an issue (never a pull request) not in the round's exclusion list, saves
each admitted excerpt, and writes the reading list: the admitted keys sorted, shuffled with the
reader's seed, the first CAP. Prints its counts; a file that is not the tool's JSON is named.
"""
import json, random, re, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAD = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+) · (?P<kind>issue|pull request) #(?P<n>\d+) · ")

folder = Path(sys.argv[1]).resolve()
cfg = json.loads((folder / "reader.json").read_text())
exclude = set((HERE / cfg["exclude"]).read_text().split())
answers = sorted((folder / "answers").glob("*.json"))
if not answers:
    sys.exit(f"no answers in {folder / 'answers'}: save each search answer there first")
results = issues = excluded = 0
admitted: dict[str, str] = {}
spelled: dict[str, tuple[str, int]] = {}
for path in answers:
    try:
        answer = json.loads(path.read_text(encoding="utf-8"))
        rows = answer["results"]
    except (ValueError, KeyError, TypeError) as exc:
        sys.exit(f"{path.name} is not the search tool's JSON answer ({exc}): save it again verbatim")
    for row in rows:
        results += 1
        text = str(row.get("excerpt") or "")
        head = HEAD.match(text)
        if head is None or head["kind"] != "issue":
            continue
        issues += 1
        key = f"{head['repo'].lower()}#{int(head['n'])}"
        if key in exclude:
            excluded += 1
            continue
        if key not in admitted or len(text) > len(admitted[key]):
            admitted[key] = text
            spelled[key] = (head["repo"], int(head["n"]))
order = sorted(admitted)
random.Random(cfg["seed"]).shuffle(order)
listed = order[: cfg["cap"]]
(folder / "excerpts").mkdir(exist_ok=True)
for key in listed:
    repo, n = spelled[key]
    name = f"{repo.replace('/', '__')}__{n}.txt"
    (folder / "excerpts" / name).write_text(admitted[key] + ("" if admitted[key].endswith("\n") else "\n"), encoding="utf-8")
(folder / "LIST.txt").write_text("".join(f"{spelled[k][0]},{spelled[k][1]}\n" for k in listed))
(folder / "ADMITTED.txt").write_text("".join(k + "\n" for k in sorted(admitted)))
print(f"{len(answers)} answers, {results} results, {issues} issues, {excluded} excluded, "
      f"{len(admitted)} admitted, {len(listed)} listed (seed {cfg['seed']}, cap {cfg['cap']})")
