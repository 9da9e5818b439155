"""``manage.py label_reports`` runs the whole engine without importing spaCy or medspacy: their
imports (thinc pulls torch, medspacy pulls nltk, scikit-learn and scipy) were most of the
command's start-up (issue 33; docs/audit.md, "Fourth round")."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# manage.py as its user runs it, then the names of the modules that got imported
RUN = """
import runpy, sys
sys.argv = ["manage.py", "label_reports", "--input", sys.argv[1], "--output", sys.argv[2]]
runpy.run_path("manage.py", run_name="__main__")
print("MODULES", " ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_label_reports_imports_neither_spacy_nor_medspacy(tmp_path):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"id": "a", "report": "FINDINGS: No pneumothorax. Possible small "
                                                     "left effusion, e.g. blunting."}) + "\n")
    env = {**os.environ, "RADREVIEW_DATA_DIR": str(tmp_path / "data")}
    env.pop("DATABASE_URL", None)
    result = subprocess.run([sys.executable, "-c", RUN, str(src), str(dst)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    labels = json.loads(dst.read_text())["labels"]
    assert labels["Pneumothorax"] == 0 and labels["Pleural Effusion"] == -1
    modules = set(result.stdout.rsplit("MODULES", 1)[1].split())
    assert "django" in modules and not modules & {"spacy", "medspacy", "thinc", "torch"}
