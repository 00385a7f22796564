"""The README is a path to a result that works as written.

Every ```python block of README.md and docs/usage.md runs as a script, in a fresh process from the
repository root, and exits 0. Where the page shows what a block prints, the block prints exactly that: each
`# -> text` comment on a line of the block is one line of output, in order, followed by the lines of a ```text
(or bare ```) block right after the block; `...` in them stands for any text.

A block may be preceded by a marker comment:
- `<!-- readme-test: ... -->`: the block uses names the user supplies; the test defines them first
  with a prelude named in PRELUDES (the README's Trainer recipe gets the example's tiny model and data);
- `<!-- not-run: reason -->`: the block is skipped with that reason (none is, today).

A block that calls `evaluate.load` with a bare module name ("gca") runs after `dst-metrics install-modules`
in its own HF_HOME, as the README runs that command first.
A block whose imports are not installed skips, naming the extra that installs them. Every command of the
README's ```bash blocks is run: a `dst-metrics` line by a test here, an install command by `.ci/run` (which
reads it from the page, after its marker). Every environment variable that the tests and benchmarks read
is documented in CONTRIBUTING.md.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from dst_metrics.modules import needs_extra

from .conftest import REPO, needs

README = REPO / "README.md"
CONTRIBUTING = REPO / "CONTRIBUTING.md"
PAGES = (README, REPO / "docs" / "usage.md")
"""The pages whose ```python blocks run."""
TRAINER_INSTALL = 'pip install "torch==2.13.0" -e ".[trainer]"'
EXTRAS = {  # top-level module -> the extra that installs it (the trainer's needs the CPU torch pinned)
    "evaluate": "evaluate",
    "datasets": "evaluate",
    "numpy": "stats",
    "gradio": "space",
    "pandas": "space",
    "transformers": "trainer",
    "accelerate": "trainer",
    "torch": "trainer",
}
TRAINER_PRELUDE = """\
import runpy as _runpy

_example = _runpy.run_path("examples/trainer_compute_metrics.py", run_name="trainer_compute_metrics")
model, tokenizer, eval_dataset, eval_features = _example["tiny_model_and_data"]()
args = _example["training_args"]({output_dir!r})
"""
PRELUDES = {  # marker text -> (code run before the block, modules it needs)
    "readme-test: model, tokenizer, args, eval_dataset and eval_features from examples/trainer_compute_metrics.py": (
        TRAINER_PRELUDE,
        ("torch", "transformers", "datasets", "evaluate"),
    ),
}
BARE_MODULE_NAME = re.compile(r"""evaluate\.load\(["'](gca|jga_fga|dst_metrics_all)["']""")
"""A block loading a module by the name `dst-metrics install-modules` gives it."""
OFFLINE = dict.fromkeys(("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_EVALUATE_OFFLINE"), "1")


@dataclass(frozen=True)
class Block:
    page: str  # the file, from the repository root
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    marker: str | None  # the text of an HTML comment on the line before the fence
    output: str | None  # the ```text block right after a python block

    @property
    def expected(self) -> list[str]:
        arrows = [line.split("# -> ", 1)[1] for line in self.code.splitlines() if "# -> " in line]
        return arrows + (self.output.splitlines() if self.output is not None else [])


def readme_blocks(text: str, page: str = "README.md") -> list[Block]:
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = re.fullmatch(r"```(\w*)\s*", lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        previous = lines[i - 1].strip() if i else ""
        marker = previous[4:-3].strip() if previous.startswith("<!--") and previous.endswith("-->") else None
        blocks.append(Block(page, i + 1, opening.group(1), "\n".join(lines[i + 1 : end]) + "\n", marker, None))
        i = end + 1
    # a ```text (or bare ```) block that follows a python block, with only blank lines between, is its output
    joined: list[Block] = []
    for block in blocks:
        if joined and joined[-1].language == "python" and block.language in ("text", "") and block.marker is None:
            gap = lines[joined[-1].line + joined[-1].code.count("\n") + 1 : block.line - 1]  # after its ```
            if not any(line.strip() for line in gap):
                last = joined.pop()
                joined.append(Block(page, last.line, last.language, last.code, last.marker, block.code))
                continue
        joined.append(block)
    return joined


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))
PYTHON_BLOCKS = [
    block
    for page in PAGES
    for block in readme_blocks(page.read_text(encoding="utf-8"), str(page.relative_to(REPO)))
    if block.language == "python"
]


def imported_modules(code: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module.split(".")[0])
    return modules


def script_of(block: Block, output_dir: Path) -> tuple[str, set[str]]:
    """The block as a script (with its prelude) and the modules it needs."""
    needs = imported_modules(block.code)
    if block.marker is None:
        return block.code, needs
    if block.marker.startswith("not-run:"):
        pytest.skip(f"{block.page} line {block.line}: {block.marker}")
    assert block.marker in PRELUDES, f"{block.page} line {block.line}: unknown marker <!-- {block.marker} -->"
    prelude, prelude_needs = PRELUDES[block.marker]
    return prelude.format(output_dir=str(output_dir)) + "\n" + block.code, needs | set(prelude_needs)


def skip_unless_installed(modules: set[str], block: Block) -> None:
    for module in sorted(modules):
        if module in EXTRAS and importlib.util.find_spec(module) is None:
            where = f"{block.page} line {block.line}"
            if EXTRAS[module] == "trainer":
                pytest.skip(f"{where} needs {module}: {TRAINER_INSTALL}")
            pytest.skip(needs_extra(where, EXTRAS[module], [module]))


def matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def test_readme_has_the_python_blocks():
    assert len(PYTHON_BLOCKS) >= 3
    for block in BLOCKS:
        if block.language == "python" and block.marker is not None:
            assert block.marker in PRELUDES or block.marker.startswith("not-run:"), block.marker
    assert sum(1 for block in PYTHON_BLOCKS if block.expected) >= 2  # the README shows what they print


@pytest.mark.slow
@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"{block.page}:{block.line}" for block in PYTHON_BLOCKS])
def test_python_block_runs_and_prints_what_the_readme_shows(block, tmp_path):
    script, needs = script_of(block, tmp_path / "trainer-output")
    skip_unless_installed(needs, block)
    path = tmp_path / "snippet.py"
    path.write_text(script, encoding="utf-8")
    env = {
        **os.environ,
        **OFFLINE,
        "HF_HOME": str(tmp_path / "hf"),  # evaluate's module cache: nothing left in ~/.cache
        "GRADIO_ANALYTICS_ENABLED": "False",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    if BARE_MODULE_NAME.search(block.code):
        install = [sys.executable, "-m", "dst_metrics", "install-modules"]
        subprocess.run(install, cwd=REPO, env=env, check=True, capture_output=True, timeout=600)
    result = subprocess.run([sys.executable, str(path)], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{block.page} line {block.line} failed:\n{result.stdout}\n{result.stderr[-4000:]}"
    expected, actual = block.expected, result.stdout.splitlines()
    if expected:
        assert len(actual) == len(expected) and all(map(matches, expected, actual)), (
            f"{block.page} line {block.line} prints\n"
            + "\n".join(actual)
            + "\nbut the README shows\n"
            + "\n".join(expected)
        )


def test_python_blocks_have_no_unused_imports_or_idle_expressions(tmp_path):
    """pyflakes (unused imports, undefined names) and B018 (an expression statement that shows nothing)."""
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip(needs("test", "ruff"))
    for block in PYTHON_BLOCKS:
        if block.marker is not None and block.marker.startswith("not-run:"):
            continue
        script, _ = script_of(block, tmp_path)
        path = tmp_path / f"line_{block.line}.py"
        path.write_text(script, encoding="utf-8")
        result = subprocess.run(
            [ruff, "check", "--isolated", "--no-cache", "--select", "F,B018", "--output-format", "concise", str(path)],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, f"{block.page} line {block.line}:\n{result.stdout}{result.stderr}"


def marked_command(marker: str, page: Path = README) -> str:
    blocks = readme_blocks(page.read_text(encoding="utf-8"), page.name)
    (block,) = [block for block in blocks if block.marker == marker and block.language == "bash"]
    return block.code.strip()


CI_COMMANDS = {  # marker -> the page .ci/run reads it from
    "quickstart-install": README,
    "quickstart-test": README,
    "full-test-install": CONTRIBUTING,
    "compiled-install": CONTRIBUTING,
}


def test_quickstart_commands_are_what_ci_runs_first_in_a_fresh_environment():
    install, tests, trainer = (marked_command(m) for m in ("quickstart-install", "quickstart-test", "trainer-install"))
    assert install == 'pip install -e ".[test]" && dst-metrics score examples/*.json'
    assert "torch" not in install  # torch is the trainer extra's, installed as its CPU build
    assert tests == "python -m pytest"
    assert trainer == TRAINER_INSTALL
    full = marked_command("full-test-install", CONTRIBUTING)
    assert full.startswith('pip install "torch==2.13.0" -e ".[') and {"test", "dev", "trainer"} <= set(
        full.split("[")[1].split("]")[0].split(",")
    )
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for marker, page in CI_COMMANDS.items():
        assert f"page_command {page.name} {marker}" in ci, marker
    # the quickstart first, in a fresh virtual environment, before anything else is installed
    fresh = ci.index("python3 -m venv")
    run = {name: ci.index(f'bash -c "${name}"') for name in ("install_cmd", "test_cmd", "full_cmd")}
    assert fresh < run["install_cmd"] < run["test_cmd"] < run["full_cmd"]
    assert ci.index("apt-get install") > run["test_cmd"] and ci.index("npm install") > run["test_cmd"]


def readme_shell_commands() -> list[str]:
    """Every command line of the README's ```bash blocks (comments dropped), in order."""
    lines = []
    for block in BLOCKS:
        if block.language == "bash":
            lines += [line.split("  #", 1)[0].strip() for line in block.code.splitlines() if line.strip()]
    return lines


def test_every_command_of_the_readme_is_run_by_a_test_or_by_ci():
    trainer = marked_command("trainer-install")
    ci_run = {marked_command(marker, page) for marker, page in CI_COMMANDS.items()}
    ci_run.add(trainer)  # .ci/run's full install holds it: tested below
    for command in readme_shell_commands():
        assert command.startswith("dst-metrics ") or command in ci_run, command
    full = marked_command("full-test-install", CONTRIBUTING)
    # the trainer install, with the test extras and the torchmetrics extra (the same CPU torch)
    assert full.replace(",dev", "").replace("test,", "").replace(",torchmetrics", "") == trainer


@pytest.mark.slow
def test_every_dst_metrics_command_of_the_readme_runs(tmp_path):
    shutil.copytree(REPO / "examples", tmp_path / "examples")  # commands that write files write them here
    commands = [c for c in readme_shell_commands() if c.startswith("dst-metrics ")]
    assert len(commands) >= 8
    env = {
        **os.environ,
        "HF_HOME": str(tmp_path / "hf"),  # install-modules writes evaluate's module cache here, not in ~/.cache
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    for command in commands:
        argv = [sys.executable, "-m", "dst_metrics", *shlex.split(command)[1:]]
        if argv[3] in ("compare", "report"):
            argv += ["--bootstrap", "50"]  # the same command, fewer resamples: this checks it runs as written
        result = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{command}:\n{result.stderr[-2000:]}"
        assert result.stdout or "-o" in command, command


def test_every_environment_variable_the_tests_read_is_documented():
    documented = CONTRIBUTING.read_text(encoding="utf-8")
    read = set()
    for path in [*(REPO / "tests").glob("*.py"), *(REPO / "benchmarks").glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        read.update(re.findall(r"""os\.environ(?:\.get|\.setdefault)?\(\s*["']([A-Z_]+)["']""", text))
        read.update(re.findall(r"""os\.environ\[\s*["']([A-Z_]+)["']\s*\]""", text))
        read.update(re.findall(r"\b([A-Z][A-Z_]+)=", text) if path.name == "conftest.py" else ())
    read.discard("PYTHONPATH")
    assert {"DST_METRICS_SHARED", "DST_METRICS_EXAMPLES", "DST_METRICS_CHROMIUM", "HF_HUB_OFFLINE"} <= read
    missing = sorted(name for name in read if f"`{name}`" not in documented)
    assert not missing, f"CONTRIBUTING.md does not document {missing}"


def readme_extras_table() -> dict[str, set[str]]:
    """{extra: the packages its row says it installs} of the table after ``<!-- extras-table -->``."""
    lines = README.read_text(encoding="utf-8").split("<!-- extras-table -->\n", 1)[1].splitlines()
    end = next(i for i, line in enumerate(lines) if not line.startswith("|"))
    table = {}
    for row in lines[2:end]:  # after the header and the --- line
        extra, installs = (cell.strip() for cell in row.strip("|").split("|")[:2])
        table[extra.strip("`")] = {name.strip() for name in installs.split(",")}
    return table


def requirement_name(requirement: str) -> str:
    """The distribution a requirement names: ``"dask[distributed]>=2026.8.0"`` -> ``"dask"``."""
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()


def test_the_extras_table_lists_every_extra_of_pyproject_with_what_it_installs():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = {name: {requirement_name(r) for r in found} for name, found in project["optional-dependencies"].items()}
    assert readme_extras_table() == extras
    readme = README.read_text(encoding="utf-8")
    sentence = readme[readme.index("`pip install -e .` alone") :].split(";", 1)[0]
    core = [requirement_name(r) for r in project["dependencies"]]
    assert core and all(f"`{name}`" in sentence for name in core), sentence


def test_the_formats_table_is_the_readers_own():
    """docs/usage.md's table of input formats is `formats_table()`, made of each reader's `holds` and `layout`: a new
    reader brings its row, and a row can never describe a format that is gone."""
    from dst_metrics.readers.inputs import READERS, formats_table

    text = (REPO / "docs" / "usage.md").read_text(encoding="utf-8")
    shown = text.split("<!-- formats-table -->\n", 1)[1]
    assert shown.startswith(formats_table()), "docs/usage.md's format table: paste formats_table() after its marker"
    assert all(reader.holds in {"both sides", "predictions", "gold", "either"} for reader in READERS.values())
    assert all(reader.layout and reader.suffixes for reader in READERS.values())
