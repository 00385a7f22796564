"""Which path the suite runs: with ``DST_METRICS_EXPECT_COMPILED=1`` (the second run of ``.ci/run``) every
module of setup.py's ``COMPILED`` must be the mypyc-built one, else each is its Python source, so that a run
never tests the other path by mistake (a build left in the tree, or one that did not happen)."""

from __future__ import annotations

import importlib
import os

import pytest

from .conftest import compiled_modules


@pytest.mark.parametrize("name", compiled_modules())
def test_each_compiled_module_is_imported_from_the_path_under_test(name):
    module = importlib.import_module(name)
    if os.environ.get("DST_METRICS_EXPECT_COMPILED") == "1":
        assert module.__file__.endswith(".so"), f"{name} was imported from {module.__file__}, not its mypyc build"
    else:
        assert module.__file__.endswith(".py"), f"{name} was imported from {module.__file__}: a build left in the tree?"
