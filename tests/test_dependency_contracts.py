"""The contracts dst-metrics takes from its dependencies that a release of theirs could break silently (issue 56,
item 3): each test is one contract, and a broken one fails with one line naming the dependency, its version and
the range dst-metrics asks for (`contract`), not with a traceback deep inside it.

- evaluate: ``dst-metrics install-modules`` writes where a fresh process's evaluate looks (``$HF_HOME/modules``),
  and ``evaluate.load("gca")`` there, offline (``HF_HUB_OFFLINE=1``, ``HF_EVALUATE_OFFLINE=1``), falls back to the
  newest copy (by time, not by name), which is our class and gives the README's 73.33; it tries no network and
  says at most a warning. And ``MetricInfo(format="arrow")`` hands ``_compute`` the stored examples as Arrow.
- datasets: the modules' ``features`` are lists of ``Value`` leaves that encode an example as itself (no int turned
  into a float, no list into a Column); its writer takes the Arrow array ``encode_batch`` returns; the file reads
  back, in evaluate's Arrow format and as Python rows, as the examples written.
- gradio and gradio_client: ``app.py``'s five endpoints are on the API page with our functions' parameters and
  defaults, and ``/score`` answers exactly ``dst-metrics score --json`` on the same file.

We never assert a dependency's own wording (what evaluate logs when it falls back to the cache is
checked to be below an error, and shown in the failure if it is one, never compared).
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import os
import subprocess
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path

import datasets
import evaluate
import pyarrow as pa
import pytest
from datasets.arrow_writer import ArrowWriter
from packaging.requirements import Requirement

from dst_metrics import Corpus, module_path, read
from dst_metrics.cli import main
from dst_metrics.hf_evaluate.arrow import (
    EXAMPLE_TYPES,
    corpus_from_arrow,
    dialogue_examples,
    encoded_examples,
    turns_of_examples,
)
from dst_metrics.hf_evaluate.metric import FEATURES

from .conftest import REPO, needs
from .test_evaluate_modules import core_figures

FIRST_P1 = REPO / "examples" / "first_example_p1.json"
README_GCA_P1 = 73.33
"""README.md: ``dst-metrics score examples/first_example_p1.json`` prints GCA 73.33 (the GCA paper's Figure 1)."""
CONFIDENCES = REPO / "examples" / "confidences.json"
"""Predicted values with confidences: the float leaves of the features."""


def dependency(name: str) -> str:
    """``name VERSION`` as installed, with the range dst-metrics' extras ask for (``evaluate 0.4.6 (dst-metrics asks
    for evaluate<0.5,>=0.4.6)``)."""
    try:
        installed = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        installed = "(not installed)"
    try:
        wanted = {str(Requirement(line).specifier) for line in importlib.metadata.requires("dst-metrics") or ()
                  if Requirement(line).name == name}  # fmt: skip
    except importlib.metadata.PackageNotFoundError:  # the tree on sys.path, not installed
        wanted = set()
    asked = f" (dst-metrics asks for {', '.join(name + spec for spec in sorted(wanted))})" if wanted else ""
    return f"{name} {installed}{asked}"


def _raised_at(error: BaseException) -> str:
    """Where `error` was raised, as ``package/module.py:LINE in function`` (a dependency's frame under
    site-packages shortened to its package path); empty for a failed assertion of the test itself."""
    frames = traceback.extract_tb(error.__traceback__)
    if isinstance(error, AssertionError) or not frames:
        return ""
    last = frames[-1]
    parts = Path(last.filename).parts
    where = "/".join(parts[parts.index("site-packages") + 1 :]) if "site-packages" in parts else last.filename
    return f" (raised at {where}:{last.lineno} in {last.name})"


@contextmanager
def contract(dependencies: str | tuple[str, ...], promise: str):
    """The block checks `promise` of `dependencies`: any failure in it, an assertion or an error raised inside the
    dependency, fails the test with one message naming each dependency and its version, and no traceback."""
    names = (dependencies,) if isinstance(dependencies, str) else dependencies
    try:
        yield
    except Exception as error:  # AssertionError included: the test's own checks of the promise
        detail = str(error).strip() or type(error).__name__
        if not isinstance(error, AssertionError):
            detail = f"{type(error).__name__}: {detail}"
        elif "\nassert " in detail and not detail.startswith("assert "):  # our words said it: not pytest's repr too
            detail = detail.partition("\nassert ")[0]
        message = (
            f"{'; '.join(dependency(name) for name in names)}: {promise}, no longer.\n  {detail}{_raised_at(error)}"
        )
        raise pytest.fail.Exception(message, pytrace=False) from None  # the message alone, not the chain


def first_example_dialogues() -> tuple[list, list]:
    """examples/first_example_p1.json (the reference layout, {dialogue: {turn: {"gt", "pr"}}}) as the modules take
    it: (predictions, references), each a list of dialogues, each a list of states."""
    data = json.loads(FIRST_P1.read_text(encoding="utf-8"))
    turns = [[dialogue[turn] for turn in sorted(dialogue, key=int)] for dialogue in data.values()]
    return [[t["pr"] for t in d] for d in turns], [[t["gt"] for t in d] for d in turns]


def same_types(found, expected, where: str = "example") -> list[str]:
    """Where `found` differs from `expected` in value or in type (``1 == 1.0`` and a Column iterates as a list):
    every container and leaf of the same Python type."""
    if type(found) is not type(expected):
        return [f"{where}: {type(found).__name__} {found!r:.80} where {type(expected).__name__} {expected!r:.80}"]
    if isinstance(expected, dict):
        if set(found) != set(expected):
            return [f"{where}: keys {sorted(found)} where {sorted(expected)}"]
        return [problem for key in expected for problem in same_types(found[key], expected[key], f"{where}.{key}")]
    if isinstance(expected, list):
        if len(found) != len(expected):
            return [f"{where}: {len(found)} items where {len(expected)}"]
        return [
            problem for i, pair in enumerate(zip(found, expected)) for problem in same_types(*pair, f"{where}[{i}]")
        ]
    return [] if found == expected else [f"{where}: {found!r} where {expected!r}"]


# --------------------------------------------------------------------------------------------
# evaluate: loading by name after install-modules, offline

LOAD_BY_NAME = r"""
import contextlib, io, json, logging, socket, sys

attempts = []  # every connection or name lookup off this machine: none may happen
LOCAL = (None, "127.0.0.1", "::1", "localhost")
real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo


def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOCAL:
        attempts.append(f"connect {address!r}")
        raise OSError("the contract test allows no network")
    return real_connect(self, address)


def getaddrinfo(host, *args, **kwargs):
    if host not in LOCAL:
        attempts.append(f"resolve {host!r}")
        raise socket.gaierror("the contract test allows no network")
    return real_getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.getaddrinfo = connect, getaddrinfo
records, seen = [], set()


class Keep(logging.Handler):
    def emit(self, record):
        if id(record) not in seen:
            seen.add(id(record))
            records.append({"logger": record.name, "level": record.levelno, "text": record.getMessage()})


keep = Keep()
logging.getLogger().addHandler(keep)
from dst_metrics.cli import main

printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    status = main(["install-modules"])
import evaluate
from evaluate import config

logging.getLogger("evaluate").addHandler(keep)  # evaluate's loggers stop at its own root logger
module = evaluate.load("gca")
predictions, references = json.loads(sys.argv[1])
print(json.dumps({
    "status": status,
    "printed": printed.getvalue(),
    "offline": config.HF_EVALUATE_OFFLINE,
    "file": sys.modules[type(module).__module__].__file__,
    "classes": [f"{c.__module__}.{c.__qualname__}" for c in type(module).__mro__],
    "result": module.compute(predictions=predictions, references=references),
    "records": records,
    "attempts": attempts,
}))
"""
STALE_HASHES = ("0" * 64, "f" * 64)
"""Two older copies beside the one install-modules writes, first and last by name: evaluate must take the newest."""


@pytest.mark.slow
def test_evaluate_load_gca_after_install_modules_is_our_module_offline(tmp_path):
    """``dst-metrics install-modules`` then ``evaluate.load("gca")`` in a fresh process whose HF_HOME is new, with
    HF_HUB_OFFLINE=1 and HF_EVALUATE_OFFLINE=1 (docs/usage.md, "By name"): the module is written under
    ``$HF_HOME/modules``; evaluate takes the copy just written (the newest, though two older copies sort before and
    after it by name), our GcaMetric, which gives the README's 73.33; nothing tries the network; what evaluate
    says about falling back to the cache is at most a warning (its words are not ours to check)."""
    home = tmp_path / "hf"
    stale_folder = home / "modules" / "evaluate_modules" / "metrics" / "evaluate-metric--gca"
    text = (Path(module_path("gca")) / "gca_metric.py").read_text(encoding="utf-8")
    for stale in STALE_HASHES:  # an earlier dst-metrics' copy: our module with a mark, written long ago
        (stale_folder / stale).mkdir(parents=True)
        (stale_folder / stale / "gca.py").write_text(text + "\nSTALE_COPY = True\n", encoding="utf-8")
        os.utime(stale_folder / stale / "gca.py", (1_000_000_000, 1_000_000_000))
    env = {name: value for name, value in os.environ.items() if name not in ("HF_MODULES_CACHE", "HF_EVALUATE_CACHE")}
    env.update(
        HF_HOME=str(home), HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )  # fmt: skip
    dialogues = json.dumps(first_example_dialogues())
    command = [sys.executable, "-c", LOAD_BY_NAME, dialogues]
    # not from REPO: evaluate.load would find a folder of the name there first
    with contract("evaluate", 'evaluate.load("gca") after dst-metrics install-modules, offline, loads our module'):
        run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"the fresh process failed:\n{run.stderr[-3000:]}"
        found = json.loads(run.stdout.strip().splitlines()[-1])
        assert found["status"] == 0 and found["offline"] is True, found
        (line,) = [line for line in found["printed"].splitlines() if line.startswith('evaluate.load("gca"): ')]
        written = Path(line.partition(": ")[2])
        assert written.parent.parent == stale_folder, f"install-modules wrote {written}, not under $HF_HOME/modules"
        assert Path(found["file"]) == written, f"evaluate loaded {found['file']}, not the copy just written"
        assert "GcaMetric" in found["classes"][0], found["classes"]
        assert "dst_metrics.hf_evaluate.metric.DSTMetric" in found["classes"], found["classes"]
        assert found["attempts"] == [], f"evaluate tried the network offline: {found['attempts']}"
        said = [f"{r['logger']} (level {r['level']}): {r['text']}" for r in found["records"]]
        assert all(r["level"] < 40 for r in found["records"]), "falling back to the cache logged an error:\n" + (
            "\n".join(said)
        )
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
    result = found["result"]
    assert round(100 * result["gca"], 2) == README_GCA_P1
    assert result == core_figures(read(str(FIRST_P1)), "gca")


def test_evaluate_hands_compute_the_stored_examples_as_arrow(tmp_path, monkeypatch):
    """``MetricInfo(format="arrow")``: evaluate gives ``_compute`` each stored column as a pyarrow array of the
    features' type (``arrow.turns_of_examples`` reads nothing else), and the figures are the README's."""
    module = evaluate.load(module_path("gca"), cache_dir=str(tmp_path / "cache"))
    given = {}
    ours = module._compute

    def spy(**inputs):  # checked before ours reads them: a list would fail there, as an AttributeError
        given.update(inputs)
        for side in EXAMPLE_TYPES:
            column = inputs[side]
            assert isinstance(column, (pa.Array, pa.ChunkedArray)), (
                f"_compute got the {side} as a {type(column).__name__}"
            )
            assert column.type.equals(EXAMPLE_TYPES[side]), f"_compute got the {side} as {column.type}"
        return ours(**inputs)

    monkeypatch.setattr(module, "_compute", spy)
    predictions, references = first_example_dialogues()
    with contract(("evaluate", "datasets"), 'a module of MetricInfo(format="arrow") computes on Arrow columns'):
        result = module.compute(predictions=predictions, references=references)
    assert set(given) == set(EXAMPLE_TYPES)
    assert round(100 * result["gca"], 2) == README_GCA_P1


# --------------------------------------------------------------------------------------------
# datasets: the features' column types, the writer, the read back


def corpus_examples(path: Path) -> tuple[Corpus, dict]:
    """The corpus of `path` and its examples as the modules store them ({"predictions": [...], "references":
    [...]}, one example per dialogue)."""
    corpus = read(str(path))
    return corpus, dict(zip(EXAMPLE_TYPES, dialogue_examples(corpus)))


VALUE_LEAVES = ("Value(string)", "Value(int64)", "Value(float64)")
"""The leaves datasets encodes as themselves (a str, an int, a float), the premise of `metric.DialogueFeatures`."""


def leaves(feature, where: str = "features"):
    """(where, leaf) of every leaf of a `datasets` feature, and (where, container) of every container that is not
    a dict or a `datasets.List`."""
    if isinstance(feature, dict):
        for key, inner in feature.items():
            yield from leaves(inner, f"{where}.{key}")
    elif isinstance(feature, datasets.List):
        yield from leaves(feature.feature, f"{where}[]")
    else:
        yield where, feature


def test_datasets_features_are_lists_of_values_that_encode_examples_as_they_are():
    """The modules' ``features`` (`FEATURES`, made by ``Features.from_arrow_schema``) are dicts and
    ``datasets.List`` of ``Value("string" | "int64" | "float64")``: our ``encode_batch`` returns examples as given
    because datasets' own encoding of such features does, which each example shows, type for type."""
    with contract("datasets", "Features.from_arrow_schema gives lists of Values that encode an example as itself"):
        schema = pa.schema(EXAMPLE_TYPES.items())
        assert datasets.Features.from_arrow_schema(schema).arrow_schema.equals(schema)
        kinds = {where: type(leaf).__name__ + f"({getattr(leaf, 'dtype', '')})" for where, leaf in leaves(FEATURES)}
        odd = {where: kind for where, kind in kinds.items() if kind not in VALUE_LEAVES}
        assert not odd, f"leaves other than Value(string|int64|float64): {odd}"
        plain = datasets.Features(FEATURES)
        for path in (FIRST_P1, CONFIDENCES):
            _, examples = corpus_examples(path)
            for pair in zip(*examples.values()):
                example = dict(zip(examples, pair))
                problems = same_types(plain.encode_example(example), example, path.name)
                assert not problems, "\n".join(problems[:5])


def test_datasets_writer_takes_the_arrow_array_and_reads_back_the_examples(tmp_path):
    """evaluate writes each batch with datasets' ``ArrowWriter``, handing it what ``FEATURES.encode_batch``
    returns: the Arrow array of our examples, taken as it is. The file reads back, in evaluate's format
    (``set_format("arrow")``, ``column[:]``) as arrays of the features' types that make the same corpus, and as
    Python rows (a list stays a list, a str a str, an int an int) equal to the examples written."""
    corpus, examples = corpus_examples(CONFIDENCES)
    path = tmp_path / "cache.arrow"
    with contract("datasets", "ArrowWriter takes our Arrow arrays, and the file reads back as the examples"):
        writer = ArrowWriter(features=FEATURES, path=str(path))
        writer.write_batch(FEATURES.encode_batch({side: encoded_examples(e, side) for side, e in examples.items()}))
        writer.finalize()
        writer.close()
        stored = datasets.Dataset.from_file(str(path))
        assert stored.features == FEATURES and stored.num_rows == len(corpus)
        rows = [stored[i] for i in range(stored.num_rows)]  # as Python: what a person reading the cache sees
        for side, written in examples.items():
            problems = same_types([row[side] for row in rows], written, side)
            assert not problems, "\n".join(problems[:5])
        stored.set_format(type="arrow")  # what evaluate does before _compute
        columns = {side: stored[side][:] for side in EXAMPLE_TYPES}
        for side, column in columns.items():
            assert isinstance(column, (pa.Array, pa.ChunkedArray)), f"{side}: a {type(column).__name__}"
            assert column.type.equals(EXAMPLE_TYPES[side]), f"{side}: {column.type}"
    turns = {side: turns_of_examples(column, side) for side, column in columns.items()}
    assert corpus_from_arrow(turns["predictions"], turns["references"]) == corpus


# --------------------------------------------------------------------------------------------
# gradio and gradio_client: the Space's API


def public_endpoints() -> dict:
    """{"/name": the function} of every endpoint of the Space's API (`page.PUBLIC_API`)."""
    from dst_metrics.space.explore import api_compare, api_score
    from dst_metrics.space.page import PUBLIC_API
    from dst_metrics.space.protocols import api_checkdst, api_sgdx
    from dst_metrics.space.systems_section import table_endpoint

    functions = {"score": api_score, "compare": api_compare, "table": table_endpoint}
    functions.update(checkdst=api_checkdst, sgdx=api_sgdx)
    assert set(functions) == set(PUBLIC_API), "tests/test_dependency_contracts.py: the API has changed"
    return {f"/{name}": functions[name] for name in PUBLIC_API}


def test_gradio_client_lists_the_spaces_endpoints_and_score_answers_the_command_lines_figures(
    server_url, monkeypatch, capsys
):
    """``python app.py`` (served once per test process): gradio_client's ``view_api`` lists the five endpoints
    ``gr.api`` made of our functions, each with our parameters' names and defaults, in order, and nothing else;
    ``predict(text, api_name="/score")`` with options by name gives exactly ``dst-metrics score --json``'s figures
    and signature for examples/first_example_p1.json (README: GCA 73.33), ints staying ints."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    client_module = pytest.importorskip("gradio_client", reason=needs("test", "gradio"))
    endpoints = public_endpoints()
    assert main(["score", "--json", str(FIRST_P1)]) == 0
    command = json.loads(capsys.readouterr().out)
    with contract(("gradio", "gradio_client"), "gradio_client calls the Space's endpoints by their parameters"):
        client = client_module.Client(server_url, verbose=False)
        api = client.view_api(print_info=False, return_format="dict")
        assert set(api["named_endpoints"]) == set(endpoints) and not api["unnamed_endpoints"], api.keys()
        for name, function in endpoints.items():
            listed = [
                (p["parameter_name"], p["parameter_has_default"], p["parameter_default"])
                for p in api["named_endpoints"][name]["parameters"]
            ]
            ours = [
                (p.name, p.default is not p.empty, None if p.default is p.empty else json.loads(json.dumps(p.default)))
                for p in inspect.signature(function).parameters.values()
            ]
            assert listed == ours, f"{name}: parameters {listed}, where {function.__name__} takes {ours}"
        answer = client.predict(FIRST_P1.read_text(encoding="utf-8"), mode="official", num_slots=30, api_name="/score")
        figures = {key: value for key, value in command.items() if type(value) in (int, float)}
        problems = same_types(answer["figures"], figures, "/score figures")
        assert not problems, "\n".join(problems[:5])
        assert answer["signature"] == command["signature"] and answer["format"] == command["format"]
    assert round(100 * answer["figures"]["gca"], 2) == README_GCA_P1
