"""The code base stays ruff-clean (configuration in pyproject.toml)."""

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO


def test_ruff_check_is_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = subprocess.run([ruff, "check", str(REPO)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_hub_access_configured():
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert sys.version_info >= (3, 10)
