"""Shared test setup: offline hubs, and the ../shared folder (tests that need it skip without it); the browser
tests' served Space and Chromium, one of each per test process (tests/space_browser.py); CI's stages
(`.ci/run`): the tests that passed, written to a file, and the next run deselecting them; the compiled path's
tests marked."""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from pathlib import Path

import pytest

from dst_metrics.modules import needs_extra

from . import space_browser

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
if "PYTEST_XDIST_WORKER" in os.environ:
    # Each test process has a core of its own (-n 2 on two cores): torch's and the BLAS' second thread only
    # competes with the other process. A tiny T5's 120 training steps took 10-19 s with two threads on a
    # loaded machine and 4-7 s with one (set before torch or numpy is imported; the commands it starts inherit it).
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")

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


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium, launched once per test process; each test opens contexts of its own."""
    with space_browser.chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def space_server(tmp_path_factory):
    """`python app.py` served once per test process (its url and its log); the tests' sessions are their own."""
    with space_browser.served_app(tmp_path_factory.mktemp("space-server")) as server:
        yield server


@pytest.fixture
def server_url(space_server) -> str:
    return space_server.url


@pytest.fixture(scope="session")
def page_context(browser):
    """The browser context of the Space's pages, one per test process: gradio's scripts, cached after the first
    page, are not fetched (and compressed by the server) again for each page. A new context per page cost the
    browser about 1 s and the server about 0.45 s more CPU per page."""
    context = browser.new_context(accept_downloads=True)
    yield context
    context.close()


@pytest.fixture
def visit(page_context, server_url):
    """`space_browser.pages`: open the served page (query, width, height, ready) in a new tab; the test fails on
    a page error, a console error or a request outside the machine."""
    with space_browser.pages(page_context, server_url) as open_page:
        yield open_page


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


SKIP_REASON = "dst_metrics_skip_reason"
"""The report attribute holding the reason a skip gave (pytest-xdist sends a report's attributes along)."""


def _skip_text(outcome: BaseException | None) -> str | None:
    """The reason given to ``pytest.skip`` (or a skip mark, ``importorskip``): the exception's own value, not
    pytest's line about it, whose form is pytest's to change (issue 56)."""
    return str(outcome) if isinstance(outcome, pytest.skip.Exception) else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    reason = _skip_text(call.excinfo.value if call.excinfo is not None else None)
    if report.skipped and reason is not None:
        setattr(report, SKIP_REASON, reason)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """A module skipped whole (``pytest.skip(allow_module_level=True)``, ``importorskip``): its reason, caught
    as `collect` raises it."""
    collect, caught = collector.collect, []

    def collect_and_keep_the_skip():
        try:
            return collect()
        except pytest.skip.Exception as skip:
            caught.append(_skip_text(skip))
            raise

    collector.collect = collect_and_keep_the_skip
    try:
        report = yield
    finally:
        del collector.collect
    if report.skipped and caught:
        setattr(report, SKIP_REASON, caught[0])
    return report


def skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped test gave (`SKIP_REASON`); `SHARED_SKIPS` for ../shared."""
    reason = getattr(report, SKIP_REASON, None)
    if reason is None:  # a skip these hooks did not see: pytest's own line about it, as it is
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
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


COMPILED_PATH_FILES = (
    "test_compiled_path.py",
    "test_core_*.py",
    "test_figures.py",
    "test_turn_level.py",
    "test_breakdown.py",
    "test_compat_*.py",
    "test_readers_*.py",
    "test_value_matching_fuzzy.py",
    "test_hf_arrow.py",
    "test_streaming.py",
    "test_parallel.py",
    "test_distributed.py",
)
"""The test files marked `compiled_path`, which `.ci/run` runs again on the mypyc build of setup.py's `COMPILED`:
the check that the build is the one imported, the core and its figures (on the papers' and reference files,
per turn and per dialogue), the profiles (`fga` is compiled, the others walk the compiled states), the readers
and corpora (`corpus`, `states`), and the streamed, process and Dask paths (compiled objects pickled)."""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Test files that hold nothing to run are not imported (importing gradio, and evaluate with transformers and
    torch, took each process 26-38 s of the full environment's collection): with ``-m compiled_path`` alone, the
    files outside `COMPILED_PATH_FILES`; with ``--not-passed-in=FILE``, the files FILE lists as passed whole."""
    name = collection_path.name
    if collection_path.suffix != ".py" or not name.startswith("test_"):
        return None
    if config.getoption("markexpr") == "compiled_path":
        return not any(fnmatch.fnmatch(name, pattern) for pattern in COMPILED_PATH_FILES) or None
    return _file_id(collection_path, config) in passed_ids(config) or None


GROUP = ":shared"
"""The end of a file's pytest-xdist group name (`pytest_collection_modifyitems`: `<file stem>:shared`)."""
GROUP_SUFFIX = re.compile(rf"@[\w.-]+{re.escape(GROUP)}$")
"""What pytest-xdist adds to the node id of a test in a group."""
PASSED_FILE = "DST_METRICS_PASSED"
"""An environment variable: the run writes the node id of each test that passed to this file, one per line, and
the id of each file whose every test that ran passed (`tests/test_x.py`, no `::`). A test that needs what the
quickstart lacks must skip there, never go uncollected: the next run (``--not-passed-in``) does not import a file
that passed whole."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--not-passed-in",
        metavar="FILE",
        help=f"deselect the tests listed in FILE (written by a run with {PASSED_FILE}=FILE): run the others. "
        "Write it --not-passed-in=FILE (one word: pytest reads its options before this file's)",
    )


class PassedRecord:
    """Writes the node ids of the tests that passed (every phase passed; not skipped, xfailed or failed)."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self.outcomes: dict[str, bool] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        good = report.passed and not hasattr(report, "wasxfail")
        nodeid = GROUP_SUFFIX.sub("", report.nodeid)  # the id `--not-passed-in` compares, without the group
        if report.when == "call" or not good:
            self.outcomes[nodeid] = good and self.outcomes.get(nodeid, True)

    def pytest_sessionfinish(self) -> None:
        passed = {nodeid for nodeid, good in self.outcomes.items() if good}
        files: dict[str, bool] = {}
        for nodeid, good in self.outcomes.items():
            file = nodeid.split("::")[0]
            files[file] = good and files.get(file, True)
        passed.update(file for file, good in files.items() if good)
        self.path.write_text("".join(f"{nodeid}\n" for nodeid in sorted(passed)), encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    path = os.environ.get(PASSED_FILE)
    if path and not hasattr(config, "workerinput"):  # the reports reach the main process (pytest-xdist too)
        config.pluginmanager.register(PassedRecord(path), "dst-metrics-passed-record")


PASSED_IDS = pytest.StashKey[frozenset]()


def passed_ids(config: pytest.Config) -> frozenset[str]:
    """The lines of ``--not-passed-in=FILE`` (none without it), read once per run."""
    if PASSED_IDS not in config.stash:
        path = config.getoption("not_passed_in")
        config.stash[PASSED_IDS] = frozenset(Path(path).read_text(encoding="utf-8").splitlines() if path else ())
    return config.stash[PASSED_IDS]


def _file_id(path: Path, config: pytest.Config) -> str:
    """A test file's node id, as `PassedRecord` writes it (relative to the root, with slashes)."""
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return str(path)


def deselect_passed(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--not-passed-in=FILE``, the tests whose node id is a line of FILE are deselected (exact ids)."""
    passed = passed_ids(config)
    if not passed:
        return
    kept = [item for item in items if item.nodeid not in passed]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in passed])
        items[:] = kept


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups in the same hook
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), the tests of a file that use its module fixtures run in one
    process, so that each fixture (a compiled package, a null simulation) is built once; every other test
    goes to whichever process is free, the tests marked `slow` first (so that none of them starts last, while
    the other process idles). The tests of `COMPILED_PATH_FILES` are marked `compiled_path`; with
    ``--not-passed-in=FILE``, the tests that passed in FILE's run are deselected."""
    deselect_passed(config, items)
    for item in items:
        if costly_fixtures(item):  # one group per file, so that each of its module fixtures is built once
            item.add_marker(pytest.mark.xdist_group(item.path.stem + GROUP))
        if any(fnmatch.fnmatch(item.path.name, pattern) for pattern in COMPILED_PATH_FILES):
            item.add_marker(pytest.mark.compiled_path)
    if hasattr(config, "workerinput"):  # a pytest-xdist process: its collection is the order of the work
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: the rest in order
