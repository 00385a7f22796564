"""The lower-bound run of `.ci/run` (CONTRIBUTING.md, "Both ends of the ranges"): `.ci/lower_bounds.py` turns
pyproject.toml's `>=` bounds of the core dependencies and the `test` extra into a pip constraints file, which the
quickstart's install command then installs under (PIP_CONSTRAINT). Checked here: it pins exactly the declared
bounds, read independently of it (packaging's parser), each pin inside its requirement's whole range; and it
refuses what would leave a dependency untested."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement  # packaging: matplotlib's dependency, in the test extra
from packaging.utils import canonicalize_name
from packaging.version import Version

from .conftest import REPO

SCRIPT = REPO / ".ci" / "lower_bounds.py"


def generate(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=60)


def pins(output: str) -> dict[str, Version]:
    """{name: pinned version} of a constraints file, each line ``name==version``."""
    found = {}
    for line in output.splitlines():
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==" and not requirement.extras, line  # pip's constraints take no extras
        assert canonicalize_name(requirement.name) not in found, line
        found[canonicalize_name(requirement.name)] = Version(specifier.version)
    return found


def test_the_constraints_pin_exactly_the_lower_bounds_of_the_dependencies_and_the_test_extra():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]
    expected: dict[str, Version] = {}
    for requirement in requirements:
        bounds = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
        assert len(bounds) == 1, f"{requirement}: one >= bound, the version the lower-bound run tests"
        name = canonicalize_name(requirement.name)
        expected[name] = max(bounds[0], expected.get(name, bounds[0]))
    result = generate()
    assert result.returncode == 0, result.stderr
    pinned = pins(result.stdout)
    assert pinned == expected
    assert {"msgspec", "rapidfuzz", "pytest", "numpy"} <= set(pinned)
    for requirement in requirements:  # each pin inside its whole range: a bound above an upper bound fails here
        assert requirement.specifier.contains(pinned[canonicalize_name(requirement.name)], prereleases=True), (
            requirement
        )


def test_extras_of_a_requirement_are_dropped_and_a_name_listed_twice_gets_its_highest_bound(tmp_path: Path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        textwrap.dedent(
            """
            [project]
            name = "x"
            dependencies = ["Msg_Spec>=0.19", "numpy>=2.2"]
            [project.optional-dependencies]
            test = ["dask[distributed] >= 2026.8.0", "numpy>=2.4.6,<3", "tomli>=2.0; python_version < '3.11'"]
            """
        ),
        encoding="utf-8",
    )
    result = generate("--pyproject", pyproject)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Msg_Spec==0.19",
        "numpy==2.4.6",
        "dask==2026.8.0",
        """tomli==2.0 ; python_version < '3.11'""",
    ]
    assert pins(result.stdout)["msg-spec"] == Version("0.19")


@pytest.mark.parametrize("requirement", ["rapidfuzz", "rapidfuzz<4", "rapidfuzz==3.14.1"])
def test_a_requirement_without_a_lower_bound_is_an_error(tmp_path: Path, requirement: str):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        f'[project]\nname = "x"\ndependencies = ["{requirement}"]\noptional-dependencies.test = []\n', encoding="utf-8"
    )
    result = generate("--pyproject", pyproject)
    assert result.returncode == 2 and not result.stdout
    assert requirement in result.stderr and "lower bound" in result.stderr


def test_ci_and_contributing_install_the_quickstart_under_the_generated_constraints():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert 'python3 .ci/lower_bounds.py >"$scratch/lowest.txt"' in ci
    assert 'PIP_CONSTRAINT="$scratch/lowest.txt" bash -c "$install_cmd"' in ci  # the README's command, unchanged
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "python3 .ci/lower_bounds.py > ../lowest/constraints.txt" in contributing
    assert 'PIP_CONSTRAINT=../lowest/constraints.txt pip install -e ".[test]" && python -m pytest' in contributing


def test_the_compiled_build_command_installs_the_core_s_declared_ranges():
    """CONTRIBUTING.md's compiled-build command installs msgspec and rapidfuzz before the build (mypy reads their
    types): its copies of their ranges are pyproject.toml's."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    command = contributing.split("<!-- compiled-install -->\n```bash\n", 1)[1].split("\n", 1)[0]
    for requirement in map(Requirement, project["dependencies"]):
        assert f'"{requirement}"' in command, (str(requirement), command)
