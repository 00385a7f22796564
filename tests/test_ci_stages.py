"""CI's stages (`.ci/run`, CONTRIBUTING.md): the quickstart's run writes the tests that passed
(``DST_METRICS_PASSED=FILE``), the full environment's run deselects exactly those (``--not-passed-in=FILE``), so
that every test the full environment collects runs in one stage or the other, none in both; and
``-m compiled_path`` selects the files of `COMPILED_PATH_FILES`. Checked on a small suite run as CI runs it
(both stages under pytest-xdist), with the cases that could slip through: a module skipped whole, a test whose
name starts with another's, parameters whose ids start alike, an expected failure; and a file that passed whole
in the first stage is not imported in the second."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from .conftest import REPO

SUITE = {
    "conftest.py": (
        "from tests.conftest import pytest_addoption, pytest_collection_modifyitems, pytest_configure, "
        "pytest_ignore_collect, pytest_make_collect_report, pytest_runtest_makereport, pytest_terminal_summary\n"
    ),
    "test_quick.py": """
        from pathlib import Path

        import pytest

        FULL = Path("full-environment").exists()
        Path("imported.txt").write_text("test_quick")  # a module the compiled path need not import

        def test_a():
            pass

        def test_ab():  # test_a is a prefix of its id
            if not FULL:
                pytest.skip("needs the full environment")

        @pytest.mark.parametrize("n", [1, 10])
        def test_p(n):
            if n == 10 and not FULL:
                pytest.skip("needs the full environment")

        @pytest.mark.xfail(reason="fails without the full environment", strict=False)
        def test_x():
            assert FULL
    """,
    "test_extra.py": """
        from pathlib import Path

        import pytest

        if not Path("full-environment").exists():
            pytest.skip("needs the extra", allow_module_level=True)

        def test_e1():
            pass

        def test_e2():
            pass
    """,
    "test_core_sample.py": """
        def test_core():
            pass
    """,
    "test_grouped.py": """
        from pathlib import Path

        import pytest

        Path("imported-grouped.txt").touch()  # every test passes in the quickstart: not imported again

        @pytest.fixture(scope="module")
        def simulation():  # a costly module fixture: built once, so its tests share one process
            with Path("built.txt").open("a") as built:
                built.write("built\\n")

        @pytest.mark.parametrize("n", range(4))
        def test_g(simulation, n):
            pass
    """,
}


def _pytest(folder, *argv: str, full: bool, passed=None) -> list[str]:
    (folder / "full-environment").unlink(missing_ok=True)
    if full:  # what the tests of the full environment find
        (folder / "full-environment").touch()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("DST_METRICS_PASSED", None)
    if passed is not None:
        env["DST_METRICS_PASSED"] = str(passed)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *argv]
    run = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run.stdout.splitlines()


def test_the_second_stage_runs_exactly_what_the_first_did_not_pass(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    for name, text in SUITE.items():
        (suite / name).write_text(textwrap.dedent(text), encoding="utf-8")
    # the files outside the suite's folder, as in .ci/run (`--not-passed-in FILE`, two words, would not be read)
    first, second = tmp_path / "passed-1.txt", tmp_path / "passed-2.txt"
    printed = _pytest(suite, "-n", "2", "--dist", "loadgroup", full=False, passed=first)  # pyproject.toml's addopts
    # the skips summed up by reason, in conftest's own lines: each reason as the test or module gave it (the
    # skip's own value, not read out of pytest's line about it, issue 56), through pytest-xdist's processes
    assert "    2 needs the full environment" in printed and "    1 needs the extra" in printed, printed
    passed_first = first.read_text(encoding="utf-8").splitlines()
    grouped = [f"test_grouped.py::test_g[{n}]" for n in range(4)]
    quick = ["test_quick.py::test_a", "test_quick.py::test_p[1]"]
    # the tests that passed, and the files whose every test passed (test_quick skipped some, test_extra all)
    files = ["test_core_sample.py", "test_grouped.py"]
    assert passed_first == [files[0], "test_core_sample.py::test_core", files[1], *grouped, *quick]
    (suite / "imported-grouped.txt").unlink()
    # conftest's groups reach pytest-xdist (--dist loadgroup): the four tests of a module fixture ran in one
    # process, which built it once (pytest 9.2 and pytest-xdist 3.8 lose the groups: pyproject pins pytest)
    assert (suite / "built.txt").read_text(encoding="utf-8").splitlines() == ["built"]

    _pytest(suite, "-n", "2", "--dist", "loadgroup", f"--not-passed-in={first}", full=True, passed=second)
    assert not (suite / "imported-grouped.txt").exists()  # a file that passed whole is not even imported
    passed_second = [line for line in second.read_text(encoding="utf-8").splitlines() if "::" in line]
    collected = [line for line in _pytest(suite, "--collect-only", full=True) if "::" in line]
    assert len(collected) == 12
    passed_first = [line for line in passed_first if "::" in line]
    assert not set(passed_first) & set(passed_second)  # none in both
    # test_x xfails in the full environment too: run there (not deselected), not passed
    assert set(passed_first) | set(passed_second) | {"test_quick.py::test_x"} == set(collected)


def test_the_compiled_path_marker_selects_its_files(tmp_path):
    for name, text in SUITE.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    selected = [line for line in _pytest(tmp_path, "--collect-only", "-m", "compiled_path", full=True) if "::" in line]
    assert selected == ["test_core_sample.py::test_core"]
    assert not (tmp_path / "imported.txt").exists()  # the other files were not even imported
