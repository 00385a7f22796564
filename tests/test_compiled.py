"""The compiled core (issue 22): `setup.py` with ``DST_METRICS_COMPILE=1`` compiles `dst_metrics.core`
with mypyc; the compiled module gives the pure-Python reference's figures, to the last digit, on the
reference files in both modes. Skips where mypyc or a C compiler is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from dst_metrics import score
from dst_metrics.readers import read

from .conftest import REFERENCE, REPO, requires_shared

FILES = [
    REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json",
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json",
    REFERENCE / "paper_sample_dials" / "predictions" / "hypothetical_p1.json",
]
FIGURES_SCRIPT = """
import json, sys
from dst_metrics import core, score
from dst_metrics.readers import read
out = {"core": core.__file__}
for path in sys.argv[1:]:
    for mode in ("official", "corrected"):
        out[f"{path}|{mode}"] = dict(score(read(path), mode=mode).scores)
print(json.dumps(out))
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("mypyc") is None, reason="needs mypy (mypyc): pip install mypy"),
    pytest.mark.skipif(shutil.which("gcc") is None and shutil.which("cc") is None, reason="needs a C compiler"),
]


@requires_shared
def test_the_compiled_core_gives_the_pure_cores_figures(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "dst_metrics", tree / "dst_metrics", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "setup.py", tree / "setup.py")
    env = {**os.environ, "DST_METRICS_COMPILE": "1", "PYTHONPATH": str(tree)}
    built = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    assert list((tree / "dst_metrics").glob("core*.so")), "mypyc wrote no compiled core"
    run = subprocess.run(
        [sys.executable, "-c", FIGURES_SCRIPT, *map(str, FILES)],
        cwd=tree, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    compiled = json.loads(run.stdout)
    assert compiled.pop("core").endswith(".so")  # the compiled module was the one imported
    for path in FILES:
        for mode in ("official", "corrected"):
            assert compiled[f"{path}|{mode}"] == dict(score(read(path), mode=mode).scores), (path.name, mode)
