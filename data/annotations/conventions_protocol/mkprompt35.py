"""python3 mkprompt35.py TAG SEED CAP CLASS DOMAIN "p1|p2|p3|p4|p5|p6" """
import json, shutil, sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
tag, seed, cap, klass, domain, phrases = sys.argv[1:7]
folder = HERE / "conv35" / tag
(folder / "answers").mkdir(parents=True, exist_ok=True)
(folder / "support").mkdir(exist_ok=True)
shutil.copy(HERE / "brief.md", folder / "brief.md")
(folder / "reader.json").write_text(json.dumps({"seed": int(seed), "cap": int(cap), "exclude": "EXCLUDE-conv35.txt"}) + "\n")
listed = "\n".join(f"   {k}. `{p}`" for k, p in enumerate(phrases.split("|"), start=1))
text = (HERE / "PROMPT-template35.md").read_text()
text = text.replace("{TAG}", tag).replace("{CLASS}", klass).replace("{DOMAIN}", domain).replace("{CAP}", cap).replace("{PHRASES}", listed)
(folder / "PROMPT.md").write_text(text)
print(folder / "PROMPT.md")
