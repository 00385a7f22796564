"""The package as installed: every subpackage shipped, one version string."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import pytest
import tomllib
from setuptools import find_packages

from dst_metrics._version import __version__
from dst_metrics.modules import MODULE_FOLDERS

from .conftest import REPO


def test_every_package_with_an_init_is_shipped():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    shipped = set(find_packages(str(REPO), include=include))
    on_disk = {
        ".".join(init.parent.relative_to(REPO).parts)
        for top in ("dst_metrics", *MODULE_FOLDERS.values())
        for init in (REPO / top).rglob("__init__.py")
    }
    assert "dst_metrics.readers" in on_disk and "dst_metrics.stats" in on_disk
    assert on_disk <= shipped, sorted(on_disk - shipped)
    assert not any(name.startswith("tests") for name in shipped)


def test_every_evaluate_module_folder_is_shipped_with_its_files():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    for folder in MODULE_FOLDERS.values():
        assert folder in config["packages"]["find"]["include"], folder
        assert config["package-data"][folder] == ["*.py", "README.md", "requirements.txt"], folder
        for name in (f"{folder}.py", "app.py", "README.md", "requirements.txt"):
            assert (REPO / folder / name).is_file(), (folder, name)


def test_the_installed_version_is_the_one_in_the_source():
    try:
        installed = version("dst-metrics")
    except PackageNotFoundError:  # pragma: no cover - a source tree never installed
        pytest.skip("dst-metrics is not installed")
    assert installed == __version__
