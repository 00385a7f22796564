"""Shared test setup: offline hubs, and the ../shared folder (tests that need it skip without it)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared"))
REFERENCE = SHARED / "reference"
SGD = SHARED / "data" / "sgd"

requires_shared = pytest.mark.skipif(
    not REFERENCE.is_dir(),
    reason=f"needs the project's shared/ folder beside the clone (looked in {SHARED}; "
    "set DST_METRICS_SHARED to point elsewhere)",
)


def compiled_modules() -> list[str]:
    """The module names of setup.py's `COMPILED` (read from its source: running setup.py would build)."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["COMPILED"]:
            return [path.removesuffix(".py").replace("/", ".") for path in ast.literal_eval(node.value)]
    raise AssertionError("setup.py has no COMPILED list")
