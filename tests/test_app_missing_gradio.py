"""`python app.py` without the Space's extra prints one line naming the extra and exits with status 1.

The environment hides one module: a folder put first on PYTHONPATH holds a `gradio.py` (or `pandas.py`)
that raises ModuleNotFoundError on import, as a missing package does.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import REPO


@pytest.mark.parametrize("module", ["gradio", "pandas"])
def test_app_without_the_space_extra_says_what_to_install(module, tmp_path):
    (tmp_path / f"{module}.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n", encoding="utf-8"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), str(REPO), os.environ.get("PYTHONPATH")])),
        "GRADIO_SERVER_PORT": "1",  # were the guard to fail and the app to start, it could not serve
    }
    result = subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert module in lines[0]
    assert 'pip install -e ".[space]"' in lines[0]
