"""The code base stays ruff-clean (configuration in pyproject.toml)."""

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO, needs


def test_ruff_check_is_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip(needs("test", "ruff"))
    result = subprocess.run([ruff, "check", str(REPO)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_install_hints_come_from_one_place():
    """A missing extra is named by `dst_metrics.modules.needs_extra` alone (tests: `conftest.needs`): no test,
    command or module writes its own ``pip install`` hint. The trainer's keeps its pinned CPU torch (README)."""
    allowed = {"tests/test_lint.py", "tests/test_trainer.py"}
    hints = []
    for path in [*REPO.glob("dst_metrics/**/*.py"), *REPO.glob("tests/*.py"), REPO / "app.py"]:
        name = path.relative_to(REPO).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "pip install -e" in line and "reason" in line or "skip(" in line and "pip install" in line:
                hints.append(f"{name}:{number}: {line.strip()}")
    assert not [hint for hint in hints if hint.split(":")[0] not in allowed], hints


def test_no_hub_access_configured():
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert sys.version_info >= (3, 10)


def test_library_functions_are_short():
    # A reader finds a definition in one short function: none over 60 lines, except the hot
    # loop of the core (one pass over a dialogue, kept in one piece for speed).
    import ast

    allowed = {("tally.py", "walk")}
    long = []
    for path in sorted((REPO / "dst_metrics").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 60 and (path.name, node.name) not in allowed:
                    long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long


PATH_NAMED = (
    r"\b(?:docs|tests|benchmarks|dst_metrics|examples|gca_metric|jga_fga_metrics|\.ci)/[A-Za-z0-9_./-]+"
    r"\.(?:md|py|json|jsonl|txt|toml|csv|tsv|yml|yaml|png|sh|html)\b"
)
SHARED_SPECS = ("SPEC.md", "DSTC2.md", "COMPAT.md")
"""The project's shared notes, beside a clone of the repository, never in a user's copy: cited nowhere users read."""


def test_every_file_the_code_and_docs_name_exists_and_none_is_a_shared_note():
    """What users read (the package, the evaluate modules, the Space, the docs, the benchmarks) names only files
    they have: each `docs/…`, `dst_metrics/…`, `tests/…` path exists, and no text cites the shared notes."""
    import re

    texts = [
        *REPO.glob("dst_metrics/**/*.py"), *REPO.glob("gca_metric/*"), *REPO.glob("jga_fga_metrics/*"),
        *REPO.glob("benchmarks/*.py"), *REPO.glob("docs/*.md"), REPO / "README.md", REPO / "CONTRIBUTING.md",
        REPO / "app.py",
    ]  # fmt: skip
    missing, cited = [], []
    for path in texts:
        if not path.is_file() or path.suffix not in {".py", ".md"}:
            continue
        name = path.relative_to(REPO).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            missing += [f"{name}:{number}: {named}" for named in re.findall(PATH_NAMED, line)
                        if not (REPO / named.rstrip(".")).exists()]  # fmt: skip
            cited += [f"{name}:{number}: {note}" for note in SHARED_SPECS if note in line]
    assert missing == [] and cited == [], (missing, cited)
