"""The compiled modules (issue 22): `setup.py` with ``DST_METRICS_COMPILE=1`` compiles every module in its
`COMPILED` list with mypyc; the compiled package gives the pure-Python reference's figures, to the last
digit, on the reference files in both modes and under the profiles that walk its states (fga, convlab, trade),
per dialogue too and read through the streaming path
(`dst-metrics score FILE --jobs 1 --json --per-dialogue`). Skips where mypyc or a C compiler is missing. With
``DST_METRICS_COMPILED_WHEEL`` (`.ci/run`), the tests use that wheel instead of building with mypyc themselves."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dst_metrics import score
from dst_metrics.readers import read

from .conftest import REFERENCE, REPO, compiled_modules, needs, requires_shared
from .test_figures import TALLY_PATHS_SCRIPT
from .test_streaming import streamable

FILES = [
    REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json",
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json",
    REFERENCE / "paper_sample_dials" / "predictions" / "hypothetical_p1.json",
]
MODES = ("official", "corrected")
FIGURES_SCRIPT = """
import importlib, json, sys
from dst_metrics import score
from dst_metrics.readers import read
modules, paths = sys.argv[1].split(","), sys.argv[2:]
out = {"files": {name: importlib.import_module(name).__file__ for name in modules}}
for path in paths:
    for mode in ("official", "corrected"):
        out[f"{path}|{mode}"] = dict(score(read(path), mode=mode).scores)
    for profile in ("fga", "convlab", "trade"):
        out[f"{path}|{profile}"] = dict(score(read(path), compat=profile).scores)
print(json.dumps(out))
"""


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("mypyc") is None, reason=needs("dev", "mypy")),
    pytest.mark.skipif(shutil.which("gcc") is None and shutil.which("cc") is None, reason="needs a C compiler"),
]


BUILT_WHEEL = os.environ.get("DST_METRICS_COMPILED_WHEEL")
"""The compiled wheel `.ci/run` built once (CONTRIBUTING.md's compiled-build command), which these tests then use
instead of building their own; unset, they build it."""


def _built_wheel() -> Path:
    """`DST_METRICS_COMPILED_WHEEL`, checked to hold this tree's sources of every compiled module."""
    wheel = Path(BUILT_WHEEL)
    with zipfile.ZipFile(wheel) as archive:
        for module in compiled_modules():
            source = module.replace(".", "/") + ".py"
            assert archive.read(source) == (REPO / source).read_bytes(), f"{wheel} was built from another {source}"
    return wheel


@pytest.fixture(scope="module")
def compiled_tree(tmp_path_factory):
    """A copy of the package with every module of `COMPILED` compiled in place: the build's own setup.py, or the
    compiled files of `DST_METRICS_COMPILED_WHEEL` placed beside the sources, as `build_ext --inplace` does."""
    tree = tmp_path_factory.mktemp("compiled") / "tree"
    shutil.copytree(REPO / "dst_metrics", tree / "dst_metrics", ignore=shutil.ignore_patterns("__pycache__"))
    if BUILT_WHEEL:
        with zipfile.ZipFile(_built_wheel()) as archive:
            archive.extractall(tree, [name for name in archive.namelist() if name.endswith(".so")])
    else:
        shutil.copy(REPO / "setup.py", tree / "setup.py")
        env = {**os.environ, "DST_METRICS_COMPILE": "1", "PYTHONPATH": str(tree)}
        built = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=tree, env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    for name in compiled_modules():
        folder, _, stem = name.rpartition(".")
        assert list((tree / folder.replace(".", "/")).glob(f"{stem}.*.so")), f"mypyc wrote no compiled {name}"
    return tree


def test_setup_compiles_the_build_and_the_core():
    core = {"core.tally", "corpus", "states", "figures.metrics", "figures.registry"}
    assert {f"dst_metrics.{name}" for name in core} <= set(compiled_modules())


@requires_shared
def test_the_compiled_modules_give_the_pure_modules_figures(compiled_tree):
    modules = compiled_modules()
    env = {**os.environ, "PYTHONPATH": str(compiled_tree)}
    run = subprocess.run(
        [sys.executable, "-c", FIGURES_SCRIPT, ",".join(modules), *map(str, FILES)],
        cwd=compiled_tree, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    compiled = json.loads(run.stdout)
    for name in modules:  # the compiled module was the one imported
        assert compiled["files"][name].endswith(".so"), (name, compiled["files"][name])
    for path in FILES:
        for mode in MODES:
            assert compiled[f"{path}|{mode}"] == dict(score(read(path), mode=mode).scores), (path.name, mode)
        for profile in ("fga", "convlab", "trade"):  # the profiles walking the compiled states and diff
            assert compiled[f"{path}|{profile}"] == dict(score(read(path), compat=profile).scores), (path, profile)


@requires_shared
@pytest.mark.parametrize("mode", MODES)
def test_per_dialogue_figures_read_by_streaming_are_the_pure_ones(compiled_tree, mode):
    outputs = {}
    for name, tree in (("pure", REPO), ("compiled", compiled_tree)):
        outputs[name] = []
        for path in FILES:
            assert streamable(str(path)) == "reference"  # read through the streaming path
            command = [sys.executable, "-m", "dst_metrics", "score", str(path), "--jobs", "1", "--json",
                       "--per-dialogue", "--mode", mode]  # fmt: skip
            env = {**os.environ, "PYTHONPATH": str(tree)}
            run = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=600)
            assert run.returncode == 0, (name, path.name, run.stderr[-3000:])
            outputs[name].append(json.loads(run.stdout))
    assert all(output["dialogues"] for output in outputs["pure"]), "no per-dialogue figures"
    assert outputs["compiled"] == outputs["pure"]


def test_a_compiled_tallys_gca_and_jga_are_the_columns_formula_bit_for_bit(compiled_tree):
    # the compiled `metrics` over a compiled Tally (native int fields): the formula's floats still
    check = (
        "import dst_metrics.figures.metrics as m; assert m.__file__.endswith('.so'), m.__file__\n" + TALLY_PATHS_SCRIPT
    )
    env = {**os.environ, "PYTHONPATH": str(compiled_tree)}
    run = subprocess.run([sys.executable, "-c", check], cwd=compiled_tree, env=env, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "mismatch" not in run.stdout and "checked 44000" in run.stdout, run.stdout[:3000]


def test_the_compiled_wheel_holds_the_package_and_its_mypyc_runtime(tmp_path):
    # what the release workflow's compiled-wheels job builds (there with cibuildwheel) and checks
    if BUILT_WHEEL:
        wheel = _built_wheel()
    else:
        clone = tmp_path / "tree"  # the tree under test, without what builds and runs leave in it
        left = (".git", "build", "dist", "*.egg-info", "__pycache__", "*.so", "test-artifacts", "node_modules")
        shutil.copytree(REPO, clone, ignore=shutil.ignore_patterns(*left))
        env = {**os.environ, "DST_METRICS_COMPILE": "1"}
        command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path)]
        built = subprocess.run([*command, "."], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
        assert built.returncode == 0, built.stderr[-3000:]
        (wheel,) = tmp_path.glob("dst_metrics-*.whl")
    assert "-cp3" in wheel.name and "none-any" not in wheel.name  # a platform wheel
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert {name.split(".")[0] for name in top} == {"dst_metrics", "dst_metrics__mypyc"}, top
    for module in compiled_modules():
        stem = module.replace(".", "/")
        assert any(n.startswith(stem + ".cpython") and n.endswith(".so") for n in names), module
        assert stem + ".py" in names  # the source ships too
    checked = subprocess.run(
        [sys.executable, "-m", "check_wheel_contents", "--ignore", "W009", str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
