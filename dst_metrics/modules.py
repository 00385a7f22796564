"""Where the Hugging Face `evaluate` modules shipped with this package live.

>>> import evaluate
>>> from dst_metrics import module_path
>>> gca = evaluate.load(module_path("gca"))  # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

MODULE_FOLDERS = {"gca": "gca_metric", "jga_fga": "jga_fga_metrics", "all": "dst_metrics_all"}
"""Short name -> folder holding `<folder>/<folder>.py` and its metric card (README.md)."""


def install_command(extra: str) -> str:
    """The command that installs `extra` where this package runs: from a source tree (a clone, an editable
    install) ``pip install -e "TREE[extra]"``, ``.`` when it is the working folder; else the package index's."""
    tree = Path(__file__).resolve().parent.parent
    if not (tree / "pyproject.toml").is_file():
        return f'pip install "dst-metrics[{extra}]"'
    where = "." if tree == Path.cwd().resolve() else str(tree)
    return f'pip install -e "{where}[{extra}]"'


def module_path(name: str) -> str:
    """The installed folder of an evaluate module, ready for ``evaluate.load``.

    `name` is ``"gca"``, ``"jga_fga"`` or ``"all"`` (every figure in one pass); the folder names
    ``"gca_metric"``, ``"jga_fga_metrics"`` and ``"dst_metrics_all"`` work too. A wheel installs the
    folders as ``dst_metrics.hub.<folder>``, found through the import machinery; in a source tree
    (an editable install, or the tree on ``sys.path``) they are the repository's top-level folders.
    """
    folder = MODULE_FOLDERS.get(name, name)
    if folder not in MODULE_FOLDERS.values():
        raise ValueError(f"unknown evaluate module {name!r}; expected one of {sorted(MODULE_FOLDERS)}")
    candidates: list[Path] = []
    try:
        spec = importlib.util.find_spec(f"{__package__}.hub.{folder}")  # installed: inside the package
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(location) for location in spec.submodule_search_locations]
    # Beside this package: the repository's top level (a source tree, an editable install).
    candidates.append(Path(__file__).resolve().parent.parent / folder)
    for candidate in candidates:
        if (candidate / f"{folder}.py").is_file():
            return str(candidate)
    raise FileNotFoundError(
        f"the evaluate module folder {folder!r} is not installed (looked in "
        f"{', '.join(str(c) for c in candidates)}); reinstall dst-metrics"
    )
