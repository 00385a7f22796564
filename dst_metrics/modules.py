"""Where the Hugging Face `evaluate` modules shipped with this package live, and how `evaluate.load`
finds them by a bare name (`install_modules`, ``dst-metrics install-modules``).

>>> import evaluate
>>> from dst_metrics import module_path
>>> gca = evaluate.load(module_path("gca"))  # doctest: +SKIP
>>> gca = evaluate.load("gca")  # after dst-metrics install-modules  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

MODULE_FOLDERS = {"gca": "gca_metric", "jga_fga": "jga_fga_metrics", "all": "dst_metrics_all"}
"""Short name -> folder holding `<folder>/<folder>.py` and its metric card (README.md)."""

EVALUATE_NAMES = {"gca": "gca_metric", "jga_fga": "jga_fga_metrics", "dst_metrics_all": "dst_metrics_all"}
"""The bare name ``evaluate.load`` takes after `install_modules` -> the folder it loads."""


def install_command(extra: str) -> str:
    """The command that installs `extra`: ``pip install -e "TREE[extra]"`` in a source tree, else from the index."""
    tree = Path(__file__).resolve().parent.parent
    if not (tree / "pyproject.toml").is_file():
        return f'pip install "dst-metrics[{extra}]"'
    where = "." if tree == Path.cwd().resolve() else str(tree)
    return f'pip install -e "{where}[{extra}]"'


def needs_extra(who: str, extra: str, modules: tuple[str, ...] | list[str]) -> str:
    """The line saying that `who` needs `modules` of the extra `extra`, and the command that installs it."""
    return f'{who} needs {" and ".join(modules)}, from the "{extra}" extra: {install_command(extra)}'


def module_path(name: str) -> str:
    """The installed folder of the evaluate module `name` (``gca``, ``jga_fga``, ``all``), for ``evaluate.load``."""
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


def evaluate_modules_folder() -> Path:
    """The folder where `evaluate` keeps downloaded modules, from evaluate's own settings."""
    from evaluate import config  # the evaluate extra; what decides where evaluate.load looks

    return Path(config.HF_MODULES_CACHE) / config.MODULE_NAME_FOR_DYNAMIC_MODULES


def install_modules(folder: Path | None = None) -> dict[str, Path]:
    """Write the evaluate modules where ``evaluate.load("gca")`` finds them, online and offline.

    evaluate falls back to the newest ``metrics/evaluate-metric--NAME/HASH/NAME.py`` of `folder`
    (default `evaluate_modules_folder`) when the Hub has no module NAME; HASH is the SHA-256 of the
    text. Returns {name: the file written}."""
    folder = evaluate_modules_folder() if folder is None else Path(folder)
    written = {}
    for name, module in EVALUATE_NAMES.items():
        source = Path(module_path(module))
        text = (source / f"{module}.py").read_bytes()
        target = folder / "metrics" / f"evaluate-metric--{name}" / hashlib.sha256(text).hexdigest()
        target.mkdir(parents=True, exist_ok=True)
        for package in (folder, folder / "metrics", target.parent, target):
            (package / "__init__.py").touch()
        (target / "README.md").write_bytes((source / "README.md").read_bytes())
        temporary = target / f".{name}.py.{os.getpid()}"
        temporary.write_bytes(text)
        temporary.replace(target / f"{name}.py")  # whole or not at all, and newer than any earlier copy
        written[name] = target / f"{name}.py"
    return written
