"""The package as installed: every subpackage shipped, one version string."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version

import pytest
from setuptools import find_packages

from dst_metrics._version import __version__
from dst_metrics.modules import MODULE_FOLDERS

from .conftest import REPO


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_is_shipped_and_the_evaluate_folders_inside_the_package():
    config = _setuptools()
    shipped = set(config["packages"])
    on_disk = set(find_packages(str(REPO), include=["dst_metrics*"]))
    hub = {f"dst_metrics.hub.{folder}" for folder in MODULE_FOLDERS.values()}
    assert "dst_metrics.readers" in on_disk and "dst_metrics.stats" in on_disk
    assert shipped == on_disk | hub, sorted(shipped ^ (on_disk | hub))
    assert {name.split(".")[0] for name in shipped} == {"dst_metrics"}  # no generic top-level name
    for folder in MODULE_FOLDERS.values():
        assert config["package-dir"][f"dst_metrics.hub.{folder}"] == folder
        assert config["package-data"][f"dst_metrics.hub.{folder}"] == ["README.md"], folder
        for name in (f"{folder}.py", "README.md"):
            assert (REPO / folder / name).is_file(), (folder, name)


def test_the_installed_version_is_the_one_in_the_source():
    try:
        installed = version("dst-metrics")
    except PackageNotFoundError:  # pragma: no cover - a source tree never installed
        pytest.skip("dst-metrics is not installed")
    assert installed == __version__
