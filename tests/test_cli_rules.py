"""What holds for every command of the command line: the list of commands, a reader that stops early
(``| head``), a missing optional dependency, an option that needs another, and --compat sgd's table."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dst_metrics.cli import BROKEN_PIPE_STATUS, COMMANDS, main
from dst_metrics.cli.common import OPTION_NEEDS
from dst_metrics.compat import PROFILES
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
P1 = str(EXAMPLES / "first_example_p1.json")
P2 = str(EXAMPLES / "first_example_p2.json")
MUL1110 = str(EXAMPLES / "mul1110.json")
CONFIDENCES = str(EXAMPLES / "confidences.json")
SGD = REPO / "tests" / "fixtures" / "sgd"
DSTC2_DATA = ["--dataset", "d", "--dataroot", "d", "--ontology", "ontology.json"]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse: --help, usage errors
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_help_lists_every_command_with_its_one_line_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # no line wrapped inside a help text
    status, out, _ = run(["--help"], capsys)
    assert status == 0
    for name, module_name in COMMANDS.items():
        help_line = importlib.import_module(module_name).HELP
        assert any(line.split() == [name, *help_line.split()] for line in out.splitlines()), name


def test_an_unknown_command_is_one_line(capsys):
    status, out, err = run(["scroe", P1], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1 and "scroe" in err  # argparse's words: not read (issue 56)


def test_a_command_imports_no_other_commands_module():
    code = (
        "import sys\nfrom dst_metrics.cli import COMMANDS, main\n"
        f"main(['score', {P1!r}, '--json'])\n"
        "print(sorted(m for m in COMMANDS.values() if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=_env())
    assert result.stdout.splitlines()[-1] == "['dst_metrics.cli.score']", result.stderr


def test_no_module_below_the_command_line_imports_it():
    import ast

    importers = set()
    for path in sorted((REPO / "dst_metrics").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        if relative.startswith("dst_metrics/cli/") or relative == "dst_metrics/__main__.py":
            continue
        package = relative.removesuffix(".py").split("/")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                names = [".".join([*base, *(node.module or "").split(".")]).strip(".")]
                names += [f"{names[0]}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if any(name == "dst_metrics.cli" or name.startswith("dst_metrics.cli.") for name in names):
                importers.add(relative)
    assert not importers, f"modules below the command line import it: {sorted(importers)}"


# --------------------------------------------------------------------------------------------
# A reader that stops early: no BrokenPipeError, no traceback


def _one_dialogue_of_many_turns(path: Path, turns: int = 300, slots: int = 60) -> None:
    state = {f"hotel-slot{i}": f"value {i}" for i in range(slots)}
    layout = {"d1": {str(t): {"gt": state, "pr": {**state, "hotel-slot0": f"wrong {t}"}} for t in range(turns)}}
    path.write_text(json.dumps(layout), encoding="utf-8")


def _many_dialogues(path: Path, dialogues: int = 3000) -> None:
    turn = {"0": {"gt": {"hotel-area": "north"}, "pr": {"hotel-area": "south"}}}
    path.write_text(json.dumps({f"dialogue{i:05d}": turn for i in range(dialogues)}), encoding="utf-8")


@pytest.mark.parametrize(
    "case",
    ["score --json, 400 files", "score --per-dialogue, 3000 dialogues", "explain --all-slots, 18000 rows"],
)
def test_output_piped_into_a_reader_that_stops_after_one_line_ends_quietly(case, tmp_path):
    if case.startswith("score --json"):
        argv = ["score", *[P1] * 400, "--json"]  # 400 lines of about 800 bytes: far more than a pipe holds
    elif case.startswith("score --per-dialogue"):
        _many_dialogues(tmp_path / "many.json")
        argv = ["score", str(tmp_path / "many.json"), "--per-dialogue"]
    else:
        _one_dialogue_of_many_turns(tmp_path / "long.json")
        argv = ["explain", str(tmp_path / "long.json"), "--all-slots"]
    process = subprocess.Popen(
        [sys.executable, "-m", "dst_metrics", *argv, "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    first = process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    err = process.stderr.read()
    process.stderr.close()
    status = process.wait(timeout=120)
    assert first.strip() and err == b"" and status == BROKEN_PIPE_STATUS == 0, err.decode()[-2000:]


# --------------------------------------------------------------------------------------------
# A missing optional dependency: one line naming the extra, exit 2, before anything is read

MISSING = {
    # name: (argv, modules made unimportable, the module(s) the message names, the extra, what needs it)
    "score --ci": (["score", P1, "--ci"], ["numpy"], "numpy", "stats", "--ci"),
    "compare": (["compare", P1, P2], ["numpy"], "numpy", "stats", "dst-metrics compare"),
    "analyze": (["analyze", MUL1110], ["numpy"], "numpy", "stats", "dst-metrics analyze"),
    "report --markdown": (["report", P1, "--markdown"], ["numpy"], "numpy", "report", "dst-metrics report"),
    "report -o": (["report", P1, "-o", "never-written.html"], ["matplotlib"], "matplotlib", "report", "--output"),
    "dstc2": (["dstc2", *DSTC2_DATA, "--trackfile", "t.json"], ["numpy"], "numpy", "dstc2", "dst-metrics dstc2"),
    "dstc2-compare": (
        ["dstc2-compare", "a.json", "b.json", *DSTC2_DATA],
        ["numpy"],
        "numpy",
        "dstc2",
        "dst-metrics dstc2-compare",
    ),
    "model-index": (
        ["model-index", P1, "--model-name", "m", "--dataset-name", "d", "--dataset-type", "t", "--split", "s"],
        ["huggingface_hub"],
        "huggingface_hub",
        "model-card",
        "dst-metrics model-index",
    ),
    "score --engine dask": (
        ["score", P1, "--engine", "dask"],
        ["dask", "distributed"],
        "dask and distributed",
        "distributed",
        "--engine dask",
    ),
}


def _run_without(modules: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n    sys.modules[name] = None\n"
        f"from dst_metrics.cli import main\nsys.exit(main({argv!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=_env(), timeout=120
    )


def _env() -> dict[str, str]:
    """This checkout first on the path, also when the subprocess runs in another folder."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


@pytest.mark.parametrize("name", MISSING)
def test_a_missing_optional_dependency_is_one_line_naming_the_extra(name, tmp_path):
    argv, blocked, named, extra, who = MISSING[name]
    result = _run_without(blocked, argv, tmp_path)
    # run from a clone (this checkout on the path, in another folder): the clone's own editable install
    expected = f'dst-metrics: error: {who} needs {named}, from the "{extra}" extra: pip install -e "{REPO}[{extra}]"\n'
    assert (result.returncode, result.stdout, result.stderr) == (2, "", expected)
    assert not (tmp_path / "never-written.html").exists()


@pytest.mark.parametrize("argv", [["score", P1], ["explain", MUL1110], ["calibration", CONFIDENCES]])
def test_commands_that_need_no_extra_run_without_numpy(argv, tmp_path):
    result = _run_without(["numpy", "matplotlib"], argv, tmp_path)
    assert result.returncode == 0 and result.stderr == "" and "signature: dst-metrics:" in result.stdout


# --------------------------------------------------------------------------------------------
# An option that has no effect without another: an error naming what it needs

GOLD_FORMAT = ["--gold-format", "reference"]
ONE_PROCESS_PROFILES = ", ".join(name for name, profile in PROFILES.items() if profile.sums is None)
JOBS_NEED = (
    f"--jobs needs scoring in processes: --by, --ci, --calibration and --compat {ONE_PROCESS_PROFILES} score "
    "in one process"
)
OPTION_CASES = [
    # (command, argv, the message after "dst-metrics: error: ")
    ("score", ["score", P1, "--schema", "schema.json"], "--schema needs --compat sgd"),
    ("score", ["score", P1, "--train-schema", "train.json", "--compat", "trade"], "--train-schema needs --compat sgd"),
    ("score", ["score", P1, "--bootstrap", "50"], "--bootstrap needs --ci"),
    ("score", ["score", P1, "--seed", "0"], "--seed needs --ci"),  # given, though equal to the default
    ("score", ["score", P1, "--ci-method", "bca"], "--ci-method needs --ci"),
    ("score", ["score", P1, *GOLD_FORMAT], "--gold-format needs --gold (it is the format of the gold file)"),
    ("explain", ["explain", P1, *GOLD_FORMAT], "--gold-format needs --gold"),
    ("compare", ["compare", P1, P2, *GOLD_FORMAT], "--gold-format needs --gold"),
    ("analyze", ["analyze", P1, *GOLD_FORMAT], "--gold-format needs --gold"),
    ("report", ["report", P1, "--markdown", *GOLD_FORMAT], "--gold-format needs --gold"),
    ("calibration", ["calibration", CONFIDENCES, *GOLD_FORMAT], "--gold-format needs --gold"),
    (
        "score",
        ["score", P1, "--scheduler", "tcp://127.0.0.1:1"],
        "--scheduler is the address of a Dask scheduler: use it with --engine dask",
    ),
    (
        "score",
        ["score", P1, "--jobs", "2", "--compat", "trade"],
        JOBS_NEED,
    ),
    (
        "score",
        ["score", P1, "--jobs", "2", "--by", "domain"],
        JOBS_NEED,
    ),
    (
        "score",
        ["score", P1, "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"],
        "--jobs is the size of a local Dask cluster: with --scheduler the scheduler's workers score",
    ),
    ("report", ["report", P1, "--markdown", "--bootstrap", "0", "--seed", "3"], "--seed needs --bootstrap above 0"),
    ("score", ["score", P1, "--schema", "schema.json", "--compat", "trade"], "--schema needs --compat sgd"),
    ("report", ["report", P1, "--markdown", "--schema", "schema.json"], "--schema needs --schema-variants"),
    ("report", ["report", P1, "--markdown", "--train-schema", "t.json"], "--train-schema needs --schema-variants"),
    ("score", ["score", P1, "--jobs", "2", "--calibration"], JOBS_NEED),
    ("score", ["score", P1, "--domain", "hotel", "--by", "slot"], "--by cannot be combined with --domain"),
    ("score", ["score", P1, "--domain", "all", "--ci"], "--ci cannot be combined with --domain"),
    ("score", ["score", P1, "--domain", "hotel", "--per-dialogue"], "--per-dialogue cannot be combined with --domain"),
    ("score", ["score", P1, "--domain", "taxi", "--engine", "dask"], "--engine dask cannot be combined with --domain"),
    ("score", ["score", P1, "--domain", "hotel", "--calibration"], "--calibration cannot be combined with --domain"),
    (
        "score",
        ["score", P1, "--domain", "hotel", "--protocol", "active-turns", "--dialogue-domains", "d.json"],
        "--dialogue-domains selects dialogues under --protocol trade only",
    ),
]


@pytest.mark.parametrize(("command", "argv", "message"), OPTION_CASES, ids=[" ".join(c[1][2:]) for c in OPTION_CASES])
def test_an_option_without_the_option_it_needs_is_an_error_before_any_figure(command, argv, message, capsys):
    status, out, err = run(argv, capsys)
    assert (status, out) == (2, "")
    assert err.startswith(f"dst-metrics: error: {message}") and err.count("\n") == 1, err


def test_every_row_of_the_table_has_a_case():
    covered = {(message.split()[0], command) for command, _, message in OPTION_CASES}
    for need in OPTION_NEEDS:
        commands = need.commands or ("score",)
        assert all((need.option, command) in covered for command in commands), need
        text = need.message() if callable(need.message) else need.message
        assert any(f"{need.option} {text}".startswith(message) for _, _, message in OPTION_CASES), need


@pytest.mark.parametrize(
    "argv",
    [
        ["score", P1, "--ci", "--bootstrap", "20", "--seed", "1", "--ci-method", "bca", "--json"],
        ["score", P1, "--jobs", "2", "--json"],
        ["score", str(SGD / "sgd_pred"), "--gold", str(SGD / "sgd_gold"), "--gold-format", "sgd", "--json"],
        ["report", P1, "--markdown", "--bootstrap", "20", "--seed", "3"],
    ],
)
def test_the_same_options_with_what_they_need_run(argv, capsys):
    status, out, err = run(argv, capsys)
    assert status == 0 and err == "" and out


# --------------------------------------------------------------------------------------------
# --compat sgd: the evaluator's figures in the table, one signature that names its matching


def _sgd_argv(*extra: str) -> list[str]:
    gold = SGD / "sgd_gold"
    return ["score", str(SGD / "sgd_pred"), "--gold", str(gold), "--compat", "sgd", *extra]


@pytest.mark.parametrize(("extra", "matching"), [((), "fuzzy"), (("--value-matching", "exact"), "exact")])
def test_compat_sgd_table_shows_the_evaluators_figures_and_the_signature_of_json(extra, matching, capsys):
    status, out, _ = run(_sgd_argv("--json", *extra), capsys)
    assert status == 0
    record = json.loads(out)
    status, out, _ = run(_sgd_argv(*extra), capsys)
    assert status == 0
    lines = out.splitlines()
    signature = lines[-1].removeprefix("signature: ")
    assert signature == record["signature"]
    assert signature.endswith(f"|match:exact|sgd-match:{matching}|compat:sgd")
    assert record["sgd_value_matching"] == matching
    header = lines.index(next(line for line in lines if line.startswith("group ")))
    columns = lines[header].split()
    assert columns[:3] == ["group", "JGA", "AGA"]
    shown = {
        line.split()[0]: line.split()[1:3] for line in lines[header + 1 :] if line and line.split()[0] in record["sgd"]
    }
    assert set(shown) == set(record["sgd"]) and "#ALL_SERVICES" in shown
    for group, figures in record["sgd"].items():
        expected = [f"{100 * figures[key]:.2f}" for key in ("joint_goal_accuracy", "average_goal_accuracy")]
        assert shown[group] == expected, group


@pytest.mark.parametrize(("fuzzy", "matching"), [(True, "fuzzy"), (False, "exact"), ("difflib", "fuzzy-difflib")])
def test_the_sgd_profiles_signature_names_its_matching_in_python_too(fuzzy, matching):
    from dst_metrics import score
    from dst_metrics.compat.sgd import SgdInputs
    from dst_metrics.readers import read

    gold, pred = SGD / "sgd_gold", SGD / "sgd_pred"
    inputs = SgdInputs(str(pred), str(gold), str(gold / "schema.json"), str(gold / "train_schema.json"), fuzzy)
    report = score(read(pred, gold=gold), compat="sgd", compat_inputs=inputs)
    assert report.signature.endswith(f"|match:exact|sgd-match:{matching}|compat:sgd")
    assert report.scores["sgd_value_matching"] == matching


def test_the_rule_table_loads_no_profile_for_commands_without_them():
    # the --jobs row names the profiles scoring in one process; it imports them only when --jobs is given
    code = (
        "import sys\nfrom dst_metrics.cli import main\n"
        "for argv in (['dstc2', '--help'], ['calibration', '--help'], ['compare', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print('dst_metrics.compat' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "False"
