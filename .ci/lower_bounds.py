"""The lowest versions pyproject.toml allows, as a pip constraints file: each `>=` bound of the core dependencies
and of the named extras (default: `test`, what the quickstart installs) pinned to `==` that version. `.ci/run`
installs the quickstart's command under it (PIP_CONSTRAINT) and runs the tests there, so that every lower bound
is a version the tests passed at; CONTRIBUTING.md, "Both ends of the ranges", runs it locally:

    python3 .ci/lower_bounds.py > lowest.txt && PIP_CONSTRAINT=lowest.txt pip install -e ".[test]"

Read from pyproject.toml, never kept by hand. Upper bounds are left out (the pin is below them); extras of a
requirement (`dask[distributed]`) are dropped, as pip's constraints take none; a name listed twice gets its
highest bound (what both entries allow). A requirement without a `>=` bound is an error: it would test nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<specifiers>[^;]*)(?P<marker>;.*)?$"
)
"""A PEP 508 requirement without a URL: its name, its extras (dropped), its specifiers and its marker."""


def canonical(name: str) -> str:
    """The name as pip compares it (PEP 503): `RapidFuzz` and `rapidfuzz`, `pytest_xdist` and `pytest-xdist`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lower_bound(requirement: str) -> tuple[str, str, str]:
    """(name, lower bound, marker) of a requirement: ``"pytest>=9.0.3,<9.2"`` -> ``("pytest", "9.0.3", "")``."""
    match = REQUIREMENT.match(requirement)
    if match is None:
        raise ValueError(f"not a requirement this script reads: {requirement!r}")
    bounds = [spec.strip()[2:].strip() for spec in match["specifiers"].split(",") if spec.strip().startswith(">=")]
    if len(bounds) != 1:
        raise ValueError(f"{requirement!r} should have one lower bound (>=): the lower-bound run would not test it")
    return match["name"], bounds[0], (match["marker"] or "").strip()


def release(version: str) -> tuple[int, ...]:
    """The numeric release of a bound, to keep the higher of two (`2.4.6` > `2.2`)."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0]))


def constraints(pyproject: Path, extras: list[str]) -> list[str]:
    """The constraint lines (``name==bound``, with any marker), in the order pyproject.toml first names them."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [extra for extra in extras if extra not in optional]
    if unknown:
        raise ValueError(f"pyproject.toml has no extra {unknown}")
    pins: dict[str, tuple[str, str, str]] = {}
    for requirement in [*project.get("dependencies", []), *(r for extra in extras for r in optional[extra])]:
        name, bound, marker = lower_bound(requirement)
        key = canonical(name)
        if key not in pins or release(bound) > release(pins[key][1]):
            pins[key] = (name, bound, marker)
    return [f"{name}=={bound}{' ' + marker if marker else ''}" for name, bound, marker in pins.values()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("extras", nargs="*", default=["test"], help="the extras whose bounds to pin (default: test)")
    parser.add_argument("--pyproject", type=Path, default=Path(__file__).resolve().parent.parent / "pyproject.toml")
    args = parser.parse_args(argv)
    try:
        lines = constraints(args.pyproject, args.extras)
    except ValueError as error:
        print(f"lower_bounds.py: {error}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
