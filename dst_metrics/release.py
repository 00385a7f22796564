"""The Hub repositories as a release pushes them: ``python -m dst_metrics.release hub DIR``.

Writes one complete folder per Hugging Face repository: ``gca_metric/``, ``jga_fga_metrics/`` and
``dst_metrics_all/`` (the `evaluate` module, its card, a demo ``app.py``), and ``space/`` (the
repository's ``app.py``, the README under `SPACE_CARD`, the example files). Each
``requirements.txt`` pins this version with the extras needed; with ``--find-links DIST`` it also
names a folder of built wheels. Run from a clone: the Space's ``app.py`` is not in the wheel.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

from ._version import __version__
from .modules import MODULE_FOLDERS, module_path

PACKAGE = "dst-metrics"
EXTRAS = "evaluate,space"
"""The extras every folder installs: the `evaluate` modules and the Gradio page (each module has a demo app)."""
SPACE = "space"
REPOSITORY = Path(__file__).resolve().parent.parent
"""The source tree this package runs from (a clone); holds the Space's ``app.py`` and examples."""

SPACE_CARD = """\
---
title: DST Metrics — Granular Change Accuracy
emoji: 🧭
colorFrom: indigo
colorTo: green
sdk: gradio
sdk_version: {gradio}
app_file: app.py
pinned: false
tags:
  - evaluate
  - metric
  - dialogue-state-tracking
description: >-
  Granular Change Accuracy (GCA) and the DST metrics it is compared with (JGA, FGA, SA, AGA, RSA),
  reproducing the official figures, with a turn-by-turn explorer.
---

"""
"""The Space's card header (Hub YAML front matter), put above the README in the Space's folder."""

MODULE_APP = '''"""The Space of the {folder} metric: a small Gradio demo (run `python app.py`)."""

from pathlib import Path

import evaluate

from dst_metrics.hf_evaluate.demo import build_demo

module = evaluate.load(str(Path(__file__).resolve().parent))

if __name__ == "__main__":
    build_demo(module).launch()
'''
"""The demo app of a module's Space."""


def requirement(version: str = __version__) -> str:
    """The pinned requirement every Hub folder installs: ``dst-metrics[evaluate,space]==VERSION``."""
    return f"{PACKAGE}[{EXTRAS}]=={version}"


def requirements_text(find_links: str | None = None) -> str:
    """A folder's ``requirements.txt``: the pinned package, after ``--find-links DIST`` (made absolute)."""
    lines = [f"--find-links {Path(find_links).resolve()}"] if find_links else []
    return "\n".join([*lines, requirement()]) + "\n"


def gradio_version() -> str:
    """The Gradio release the Space card names: the lower bound of the space extra (pyproject.toml)."""
    try:
        found = requires(PACKAGE) or []
    except PackageNotFoundError:
        found = []
    for entry in found:
        name, _, rest = entry.partition(">=")
        if name.strip() == "gradio" and rest:
            return rest.split(";")[0].split(",")[0].strip()
    raise RuntimeError(f"{PACKAGE} is not installed with its metadata: pip install -e . (the space extra names gradio)")


def write_module(folder: str, out: Path, find_links: str | None = None) -> Path:
    """One `evaluate` module's Hub folder under `out`: its script and card, ``app.py``, ``requirements.txt``."""
    source = Path(module_path(folder))
    target = out / folder
    target.mkdir(parents=True, exist_ok=True)
    for name in (f"{folder}.py", "README.md"):
        shutil.copyfile(source / name, target / name)
    (target / "app.py").write_text(MODULE_APP.format(folder=folder), encoding="utf-8")
    (target / "requirements.txt").write_text(requirements_text(find_links), encoding="utf-8")
    return target


def check_clone(repository: Path = REPOSITORY) -> None:
    """Raise `FileNotFoundError` unless `repository` is a clone holding the Space's ``app.py`` and examples."""
    if not (repository / "app.py").is_file() or not (repository / "examples").is_dir():
        raise FileNotFoundError(
            f"the Space's app.py and examples/ are not in {repository} (an installed wheel does not ship them): "
            "run the release from a clone"
        )


def write_space(out: Path, find_links: str | None = None, repository: Path = REPOSITORY) -> Path:
    """The GCA explorer's Hub folder under `out` (from the clone `repository`)."""
    check_clone(repository)
    app = repository / "app.py"
    target = out / SPACE
    (target / "examples").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(app, target / "app.py")
    readme = (repository / "README.md").read_text(encoding="utf-8")
    (target / "README.md").write_text(SPACE_CARD.format(gradio=gradio_version()) + readme, encoding="utf-8")
    for example in sorted((repository / "examples").glob("*.json")):
        shutil.copyfile(example, target / "examples" / example.name)
    (target / "requirements.txt").write_text(requirements_text(find_links), encoding="utf-8")
    return target


def write_hub(out: Path, find_links: str | None = None, repository: Path = REPOSITORY) -> list[Path]:
    """Every Hub folder under `out`: the three modules, then the Space; nothing is written unless all can be."""
    check_clone(repository)
    if find_links is not None and not Path(find_links).is_dir():
        raise FileNotFoundError(f"--find-links {find_links}: no such folder of wheels")
    out.mkdir(parents=True, exist_ok=True)
    folders = [write_module(folder, out, find_links) for folder in MODULE_FOLDERS.values()]
    return [*folders, write_space(out, find_links, repository)]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dst_metrics.release hub DIR [--find-links DIST]``."""
    parser = argparse.ArgumentParser(prog="python -m dst_metrics.release", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    hub = commands.add_parser("hub", help="write each Hub repository's folder under DIR")
    hub.add_argument("out", metavar="DIR")
    hub.add_argument("--find-links", metavar="DIST", help="a folder of built wheels the requirements name")
    args = parser.parse_args(argv)
    try:
        folders = write_hub(Path(args.out), args.find_links)
    except FileNotFoundError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    for folder in folders:
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
