"""Shared test setup: offline hubs, and the ../shared folder (tests that need it skip without it)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from dst_metrics.modules import needs_extra

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


def needs(extra: str, *modules: str) -> str:
    """The reason a test skips without `modules` of `extra`: the line the commands print
    (`dst_metrics.modules.needs_extra`), naming the command that installs the extra."""
    return needs_extra("this test", extra, modules)


class DevModule:
    """A module of the dev extra, imported when a test first uses it: without it, that test skips (naming the
    extra) while the rest of its file runs."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):  # what tools ask of any object (pytest's __wrapped__): not the module's
            raise AttributeError(attribute)
        module = pytest.importorskip(self.name, reason=needs("dev", self.name.split(".")[0]))
        return getattr(module, attribute)


scipy_stats = DevModule("scipy.stats")


def compiled_modules() -> list[str]:
    """The module names of setup.py's `COMPILED` (read from its source: running setup.py would build)."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["COMPILED"]:
            return [path.removesuffix(".py").replace("/", ".") for path in ast.literal_eval(node.value)]
    raise AssertionError("setup.py has no COMPILED list")


SHARED_SKIPS = (
    "need ../shared/: the published reference files (T5 zero-shot, TRADE, the GCA paper's dialogues, DSTC2 "
    "baselines; SGD and DSTC2 data) that reproduce the papers' figures, which this repository may not "
    "redistribute: check the project's shared/ folder out beside the clone, or set DST_METRICS_SHARED"
)
"""The one summary line of every test skipped for want of ../shared."""


def skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped test gave, without pytest's "Skipped: " prefix; `SHARED_SKIPS` for ../shared."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    return SHARED_SKIPS if "shared" in reason and "DST_METRICS_SHARED" in reason or "../shared" in reason else reason


def pytest_terminal_summary(terminalreporter) -> None:
    """The skipped tests, one line per reason with how many it covers (the full suite: CONTRIBUTING.md)."""
    counts: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = skip_reason(report)
        counts[reason] = counts.get(reason, 0) + 1
    if counts:
        terminalreporter.section("skipped, by reason (the full suite: CONTRIBUTING.md)")
        for reason, count in sorted(counts.items(), key=lambda item: -item[1]):
            terminalreporter.line(f"{count:5d} {reason}")


def costly_fixtures(item: pytest.Item) -> list[str]:
    """The module- or class-scoped fixtures of `item`'s own file that it uses (built once per process)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    return sorted(
        name
        for name, definitions in info.name2fixturedefs.items()
        if definitions[-1].scope in ("module", "class")
        and definitions[-1].baseid.split("::")[0].endswith(item.path.name)
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups in the same hook
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), the tests of a file that use the same costly fixtures run in
    one process, so that each fixture (a compiled package, a browser, a null simulation) is built once; every
    other test goes to whichever process is free."""
    for item in items:
        names = costly_fixtures(item)
        if names:
            item.add_marker(pytest.mark.xdist_group(f"{item.path.stem}:{'+'.join(names)}"))
