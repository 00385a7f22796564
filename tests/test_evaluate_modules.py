"""The evaluate modules gca_metric, jga_fga_metrics and dst_metrics_all: loading, evaluate's public
API, input shapes, options, signature, combine, errors at add_batch() time, and the published T5
figures through them.

Every expected value is the core's own result on the same data, or a published figure.
"""

from __future__ import annotations

import doctest
import json
import random
import shutil
import tomllib

import datasets
import evaluate
import pyarrow as pa
import pytest

from dst_metrics import Corpus, InputError, LinearizedFormat, OptionError, Options, module_path, read, score
from dst_metrics.figures.registry import figure_keys
from dst_metrics.hf_evaluate import metric
from dst_metrics.hf_evaluate.arrow import (
    EXAMPLE_TYPES,
    SCHEMA,
    corpus_from_arrow,
    dialogue_examples,
    encoded_examples,
    hypotheses_of_examples,
    turns_of_examples,
)
from dst_metrics.hf_evaluate.batches import TurnEncoder
from dst_metrics.hf_evaluate.docs import (
    CARD_END,
    CARD_START,
    MODULE_FAMILIES,
    card_features,
    card_figures,
    features_text,
    returns_text,
    write_cards,
)
from dst_metrics.hf_evaluate.metric import EVALUATE_TESTED, FEATURES, DSTMetricInfo, check_evaluate_version
from dst_metrics.space.examples import EXAMPLES
from tests.samples import GOLD, PRED

from .arrow_rows import corpus_table
from .conftest import REFERENCE, REPO, requires_shared

T5_FILES = ("T5_result_zeroshot_rest", "T5_result_zeroshot_attraction")
PUBLISHED_KEYS = {
    "GCA": "gca",
    "JGA": "jga",
    "FGA_0.5": "fga",
    "SA": "sa",
    "AGA": "aga",
    "RSA": "rsa",
    "FGA_0.25": "fga@0.25",
    "FGA_0.75": "fga@0.75",
    "FGA_1.0": "fga@1.0",
}
FOLDERS = {"gca": "gca_metric", "jga_fga": "jga_fga_metrics", "all": "dst_metrics_all"}


def load(name: str, tmp_path, **kwargs) -> evaluate.EvaluationModule:
    return evaluate.load(module_path(name), cache_dir=str(tmp_path / "cache"), **kwargs)


@pytest.fixture
def gca(tmp_path):
    return load("gca", tmp_path)


@pytest.fixture
def turn_level(tmp_path):
    return load("jga_fga", tmp_path)


@pytest.fixture
def every(tmp_path):
    return load("all", tmp_path)


def core_figures(corpus: Corpus, families: str | tuple[str, ...], **options) -> dict:
    """The core's own figures of `corpus` of `families` (``gca``, ``turn``): what a module returns,
    in registry order, with the signature. `options` as compute() takes them."""
    families = (families,) if isinstance(families, str) else families
    report = score(corpus, Options.from_kwargs({"value_matching": corpus.value_matching, **options}))
    out = {key: report.scores[key] for key in figure_keys(report.options, families)}
    out["signature"] = report.signature
    return out


def records(dialogues, ids=None) -> list[dict]:
    ids = ids or [str(i) for i in range(len(dialogues))]
    return [
        {"dialogue_id": d, "turn_id": t, "state": state}
        for d, turns in zip(ids, dialogues)
        for t, state in enumerate(turns)
    ]


# --------------------------------------------------------------------------------------------
# Loading


def test_load_from_relative_folder_and_module_path(monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    classes = {"gca_metric": "GcaMetric", "jga_fga_metrics": "JgaFgaMetrics", "dst_metrics_all": "DstMetricsAll"}
    for folder, cls in classes.items():
        module = evaluate.load(f"./{folder}", cache_dir=str(tmp_path))
        assert type(module).__name__ == cls
    monkeypatch.chdir(tmp_path)  # module_path works from any directory
    assert evaluate.load(module_path("gca"), cache_dir=str(tmp_path)).name == "gca_metric"
    assert evaluate.load(module_path("jga_fga_metrics"), cache_dir=str(tmp_path)).name == "jga_fga_metrics"
    assert evaluate.load(module_path("all"), cache_dir=str(tmp_path)).name == "dst_metrics_all"
    assert module_path("dst_metrics_all") == module_path("all") == str(REPO / "dst_metrics_all")
    with pytest.raises(ValueError, match="unknown evaluate module"):
        module_path("bleu")


BY_NAME_SCRIPT = """
import json, sys
import evaluate
from dst_metrics import module_path
from tests.samples import GOLD, PRED

readme_gold = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "3"}}]]
readme_pred = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]]
found = {}
for name, short in (("gca", "gca"), ("jga_fga", "jga_fga"), ("dst_metrics_all", "all")):
    by_name = evaluate.load(name)
    found[name] = {
        "file": sys.modules[type(by_name).__module__].__file__,
        "class": type(by_name).__name__,
        "by_name": by_name.compute(predictions=PRED, references=GOLD),
        "module_path": evaluate.load(module_path(short)).compute(predictions=PRED, references=GOLD),
        "readme": by_name.compute(predictions=readme_pred, references=readme_gold),
    }
print(json.dumps(found))
"""


@pytest.mark.slow
def test_install_modules_then_evaluate_load_by_name_offline_in_a_fresh_process(tmp_path):
    """``dst-metrics install-modules``, then ``evaluate.load("gca")`` (and the two others) in a new process
    with HF_HOME in a fresh folder and the Hub offline: the modules found are the ones written there, and
    they give module_path's figures and the README's."""
    import os
    import subprocess
    import sys

    home = tmp_path / "hf"
    env = {
        **os.environ,
        "HF_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    env.pop("HF_MODULES_CACHE", None)
    command = [sys.executable, "-m", "dst_metrics", "install-modules"]
    installed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.count("evaluate.load(") == 3 and str(home / "modules") in installed.stdout
    again = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.stdout == installed.stdout  # the same folders: HASH is the module's text
    run = [sys.executable, "-c", BY_NAME_SCRIPT]
    # not from REPO: evaluate.load("dst_metrics_all") there finds the clone's folder of that name first
    result = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout)
    classes = {"gca": "GcaMetric", "jga_fga": "JgaFgaMetrics", "dst_metrics_all": "DstMetricsAll"}
    for name, seen in found.items():
        assert seen["class"] == classes[name]
        assert seen["file"].startswith(
            str(home / "modules" / "evaluate_modules" / "metrics" / f"evaluate-metric--{name}")
        )
        assert seen["by_name"] == seen["module_path"]
    core = core_figures(Corpus.from_dialogues(PRED, GOLD), ("gca", "turn"))
    assert found["gca"]["by_name"]["gca"] == core["gca"] and found["jga_fga"]["by_name"]["jga"] == core["jga"]
    readme = found["gca"]["readme"]  # README.md: 0.5238 1 1
    assert (f"{readme['gca']:.4f}", readme["correct"], readme["wrong"]) == ("0.5238", 1, 1)
    assert f"{found['dst_metrics_all']['readme']['jga']:.4f}" == "0.5000"


def test_module_folders_ship_card_and_requirements():
    for name, folder in FOLDERS.items():
        path = REPO / folder
        assert module_path(name) == str(path)
        card = (path / "README.md").read_text()
        front = card.split("---")[1]
        for key in (
            "title:",
            "emoji:",
            "colorFrom:",
            "colorTo:",
            "sdk: gradio",
            "app_file: app.py",
            "- evaluate",
            "- metric",
            "description:",
        ):
            assert key in front, (folder, key)
        for section in (
            "## Metric Description",
            "## How to Use",
            "### Inputs",
            "### Output Values",
            "### Examples",
            "## Limitations and Bias",
            "## Citation",
        ):
            assert section in card, (folder, section)
        assert sorted(p.name for p in path.iterdir() if p.suffix in (".py", ".md", ".txt")) == sorted(
            [f"{folder}.py", "README.md"]
        )  # app.py and requirements.txt: written for the Hub by dst_metrics.release (tests/test_release.py)


# --------------------------------------------------------------------------------------------
# Outputs from the figure registry, the metric cards, the evaluate version pin


@pytest.mark.parametrize("name", FOLDERS)
def test_each_module_returns_every_figure_of_its_family(name, tmp_path):
    module = load(name, tmp_path)
    families = MODULE_FAMILIES[module.name]
    keys = figure_keys(Options(), families) + ["signature"]
    result = module.compute(predictions=PRED, references=GOLD)
    assert list(result) == keys
    assert result == core_figures(Corpus.from_dialogues(PRED, GOLD), families)
    # the two families split the registry between gca_metric and jga_fga_metrics; dst_metrics_all has both
    gca_keys, turn_keys = figure_keys(Options(), ["gca"]), figure_keys(Options(), ["turn"])
    assert not set(gca_keys) & set(turn_keys)
    assert sorted(gca_keys + turn_keys) == sorted(figure_keys(Options()))
    assert figure_keys(Options(), MODULE_FAMILIES["dst_metrics_all"]) == figure_keys(Options())  # registry order
    # the docstring lists the same figures
    assert returns_text(module.name) in module.inputs_description


def test_module_families():
    assert MODULE_FAMILIES == {"gca_metric": ("gca",), "jga_fga_metrics": ("turn",), "dst_metrics_all": ("gca", "turn")}
    assert sorted(MODULE_FAMILIES) == sorted(FOLDERS.values())


@pytest.mark.parametrize("folder", sorted(MODULE_FAMILIES))
def test_metric_card_lists_exactly_the_registered_figures(folder):
    card = (REPO / folder / "README.md").read_text(encoding="utf-8")
    assert card.count(CARD_START) == card.count(CARD_END) == 1
    block = card[card.index(CARD_START) : card.index(CARD_END) + len(CARD_END)]
    assert block == card_figures(folder), "regenerate the cards: write_cards() (CONTRIBUTING.md, Adding a figure)"
    listed = [line for line in block.splitlines() if line.startswith("- ")]
    keys = [key for line in listed for key in line.split(":", 1)[0][2:].replace("`", "").split(", ")]
    assert keys == figure_keys(Options(), MODULE_FAMILIES[folder]) + ["signature"]


def test_write_cards_leaves_the_committed_cards_unchanged(tmp_path):
    for folder in MODULE_FAMILIES:
        (tmp_path / folder).mkdir()
        shutil.copy(REPO / folder / "README.md", tmp_path / folder / "README.md")
    assert write_cards(str(tmp_path)) == []
    # and rewrites a stale list
    card = tmp_path / "gca_metric" / "README.md"
    text = card.read_text(encoding="utf-8")
    card.write_text(text.replace(card_figures("gca_metric"), f"{CARD_START}\n- `gca`: stale\n{CARD_END}"))
    assert write_cards(str(tmp_path)) == [str(card)]
    assert card.read_text(encoding="utf-8") == text


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _evaluate_specifier(requirements: list[str]):
    from packaging.requirements import Requirement

    found = [Requirement(line) for line in requirements if Requirement(line).name == "evaluate"]
    assert len(found) == 1, requirements
    return found[0].specifier


def test_evaluate_version_check_accepts_the_tested_range_only():
    check_evaluate_version()
    check_evaluate_version(evaluate.__version__)
    for version in ("0.4.5", "0.5.0", "0.5.0rc1", "0.3.0", "1.0.0"):
        with pytest.raises(ImportError, match=r"evaluate>=0\.4\.6,<0\.5; this is evaluate " + version):
            check_evaluate_version(version)
    assert EVALUATE_TESTED == ">=0.4.6,<0.5"


def test_installed_evaluate_satisfies_the_pin_and_the_pin_is_the_tested_range():
    from packaging.version import Version

    extras = _pyproject()["project"]["optional-dependencies"]
    pin = _evaluate_specifier(extras["evaluate"])
    assert Version(evaluate.__version__) in pin
    # every extra pins evaluate alike (the Hub folders' requirements install the evaluate extra)
    for extra in ("test", "trainer"):
        assert _evaluate_specifier(extras[extra]) == pin, extra
    # the pin and check_evaluate_version agree on both sides of each bound
    for version in ("0.4.5", "0.4.6", "0.4.9", "0.4.10", "0.5.0rc1", "0.5.0", "0.5.1", "1.0.0", evaluate.__version__):
        try:
            check_evaluate_version(version)
            accepted = True
        except ImportError:
            accepted = False
        assert accepted == pin.contains(version), version


PRIVATE_EVALUATE_API = (
    "_init_writer",
    "selected_feature_format",
    "_finalize",
    "_enforce_nested_string_type",
    "_getframe",
    "__code__",
    "CombinedEvaluations",
    "evaluate.module",
)
"""What the modules used to reach into (evaluate's writer, frames and bytecode of evaluate.combine)."""


def test_the_modules_use_evaluate_public_api_only(gca):
    sources = [*(REPO / "dst_metrics" / "hf_evaluate").glob("*.py"), *(REPO / f / f"{f}.py" for f in FOLDERS.values())]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        used = [name for name in PRIVATE_EVALUATE_API if name in text]
        assert not used, f"{path.relative_to(REPO)} uses evaluate internals {used}"
    # the MetricInfo as constructed (no field patched afterwards): a subclass of evaluate's MetricInfo
    # that admits nested features read back as Arrow, and keeps MetricInfo's check for other formats
    assert gca.info.format == "arrow" and isinstance(gca.info, DSTMetricInfo)
    assert isinstance(gca.info, evaluate.MetricInfo)
    # evaluate's refusal by its type only: its message is evaluate's to word (issue 56)
    with pytest.raises(ValueError):
        evaluate.MetricInfo(description="", citation="", features=FEATURES, format="arrow")
    with pytest.raises(ValueError):
        DSTMetricInfo(description="", citation="", features=FEATURES, format="numpy")
    # the module files decorate their class as evaluate's own module template does
    assert callable(getattr(evaluate.utils.file_utils, "add_start_docstrings", None)), (
        "evaluate.utils.file_utils.add_start_docstrings is gone: the module files use it for their docstrings"
    )


def test_rows_go_through_evaluates_own_add_batch_in_few_calls(gca, monkeypatch):
    """Dialogues reach ``evaluate.Metric.add_batch`` as examples of `FEATURES`, one per dialogue (and
    batch): the first batch at once, then once per `FLUSH_TURNS` turns (or per compute); the figures do
    not depend on how the turns were grouped."""
    calls = []
    add_batch = evaluate.Metric.add_batch

    def recording(self, *, predictions=None, references=None, **kwargs):
        calls.append((list(predictions), list(references)))
        return add_batch(self, predictions=predictions, references=references, **kwargs)

    monkeypatch.setattr(evaluate.Metric, "add_batch", recording)
    expected = core_figures(Corpus.from_dialogues(PRED, GOLD), "gca")
    for _ in range(2):  # the second time after a compute()
        for i in range(len(GOLD)):
            gca.add_batch(predictions=PRED[i : i + 1], references=GOLD[i : i + 1])
        # the first batch at once (evaluate opens its cache file, processes meet), the second pending
        assert len(calls) == 1 and [len(side) for side in calls[0]] == [1, 1]
        assert calls[0][1][0]["turn_ids"] == [0, 1, 2] and calls[0][1][0]["dialogue_id"] == "0"
        assert gca.compute() == expected
        assert len(calls) == 2 and [len(side) for side in calls[1]] == [1, 1]
        assert [example["dialogue_id"] for example in calls[1][1]] == ["1"]
        calls.clear()
    monkeypatch.setattr(metric, "FLUSH_TURNS", 2)
    for i in range(len(GOLD)):
        gca.add_batch(predictions=PRED[i : i + 1], references=GOLD[i : i + 1])
    assert len(calls) == 2  # each batch of 3 turns at once
    assert gca.compute() == expected
    assert len(calls) == 3 and calls[-1] == ([], [])  # compute's flush: nothing left, an empty batch


@pytest.mark.parametrize("folder", sorted(FOLDERS.values()))
def test_metric_card_and_docstring_examples_run(folder, monkeypatch, tmp_path):
    """Every `>>>` example of the card and of the module docstring gives the output shown."""
    monkeypatch.setattr(evaluate.config, "HF_METRICS_CACHE", str(tmp_path))
    card = (REPO / folder / "README.md").read_text()
    blocks = [block.split("```", 1)[0] for block in card.split("```python\n")[1:]]
    source = "\n".join(block for block in blocks if ">>>" in block)
    script = (REPO / folder / f"{folder}.py").read_text()
    examples = script.split("Examples:\n", 1)[1].split('"""', 1)[0]
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for name, text in (("card", source), ("docstring", examples)):
        test = parser.get_doctest(text, {"evaluate": evaluate}, f"{folder} {name}", None, 0)
        assert test.examples
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


# --------------------------------------------------------------------------------------------
# Features and Arrow rows


def test_features_describe_dialogues_of_slot_value_states(gca, turn_level, every):
    assert gca.features == turn_level.features == every.features == FEATURES
    state = datasets.List({"slot": datasets.Value("string"), "values": datasets.List(datasets.Value("string"))})
    hypotheses = datasets.List(
        {
            "slot": datasets.Value("string"),
            "values": datasets.List(datasets.Value("string")),
            "confidences": datasets.List(datasets.Value("float64")),
        }
    )
    dialogue = {
        "dialogue_id": datasets.Value("string"),
        "turn_ids": datasets.List(datasets.Value("int64")),
        "states": datasets.List(state),
    }
    assert FEATURES == {"predictions": {**dialogue, "hypotheses": datasets.List(hypotheses)}, "references": dialogue}
    # the codec writes and reads exactly this layout
    for side in ("predictions", "references"):
        assert FEATURES.arrow_schema.field(side).type.equals(EXAMPLE_TYPES[side])
    # the docstring and every card show it
    for module in (gca, turn_level, every):
        assert features_text(" " * 8) in module.inputs_description
    for folder in FOLDERS.values():
        card = (REPO / folder / "README.md").read_text(encoding="utf-8")
        assert card_features() in card, folder


def test_examples_are_what_datasets_own_encoding_gives():
    """`FEATURES.encode_batch` returns the examples as given: datasets' own encoding of them (plain
    Features) gives equal examples, and the Arrow table of either is the same."""
    gold = [[{"hotel-area": "north"}, {"hotel-area": ["north", "centre"], "hotel-stars": "4"}], ["taxi-day=monday"]]
    pred = [
        [{"hotel-area": "north"}, {"hotel-area": {"value": "centre", "confidence": 0.7}, "hotel-stars": "4"}],
        ["taxi-day=monday"],
    ]
    corpus = Corpus.from_dialogues(pred, gold)
    predictions, references = dialogue_examples(corpus)
    batch = {"predictions": predictions, "references": references}
    ours = FEATURES.encode_batch(batch)
    theirs = datasets.Features(FEATURES).encode_batch(batch)
    assert type(datasets.Features(FEATURES)) is datasets.Features and ours == theirs
    table = datasets.Dataset.from_dict(theirs, features=datasets.Features(FEATURES)).data.table
    assert pa.Table.from_pydict(ours, schema=FEATURES.arrow_schema).equals(table)
    assert references[0]["states"][1] == [
        {"slot": "hotel-area", "values": ["north", "centre"]},
        {"slot": "hotel-stars", "values": ["4"]},
    ]
    assert predictions[0]["hypotheses"] == [[], [{"slot": "hotel-area", "values": ["centre"], "confidences": [0.7]}]]
    assert predictions[1]["hypotheses"] == []  # no confidence in the dialogue
    # and back: the same corpus and confidences
    back = corpus_from_arrow(
        turns_of_examples(table["predictions"], "predictions"), turns_of_examples(table["references"], "references")
    )
    assert back == corpus
    assert dict(hypotheses_of_examples(table["predictions"])) == dict(corpus.scores)
    with pytest.raises(InputError, match="not dialogues of this dst-metrics version"):
        turns_of_examples(table["predictions"], "references")


def test_examples_carry_the_arrow_array_datasets_builds_from_them():
    """`arrow.Examples` are evaluate's Python examples with their Arrow array: `FEATURES.encode_batch`
    hands the array to datasets' writer, and it is the column datasets' own encoding of the same
    examples gives (states with several values and confidences included, and an empty batch)."""
    gold = [[{"hotel-area": "north"}, {"hotel-area": ["north", "centre"], "hotel-stars": "4"}], ["taxi-day=monday"]]
    pred = [
        [{"hotel-area": "north"}, {"hotel-area": {"value": "centre", "confidence": 0.7}, "hotel-stars": "4"}],
        ["taxi-day=monday"],
    ]
    predictions, references = dialogue_examples(Corpus.from_dialogues(pred, gold))
    for examples in ((predictions, references), ([], [])):
        batch = {side: encoded_examples(list(found), side) for side, found in zip(EXAMPLE_TYPES, examples)}
        assert all(isinstance(found, list) and found == plain for found, plain in zip(batch.values(), examples))
        ours = FEATURES.encode_batch(batch)
        theirs = datasets.Dataset.from_dict(
            dict(zip(EXAMPLE_TYPES, examples)), features=datasets.Features(FEATURES)
        ).data.table
        for side in EXAMPLE_TYPES:
            assert isinstance(ours[side], pa.Array) and ours[side].equals(theirs[side].combine_chunks())


def test_the_cache_file_is_a_dataset_of_the_states(tmp_path, monkeypatch):
    """evaluate's cache file, read with `datasets` alone while compute() scores it, holds the
    dialogues, their turn ids and states (and their confidences) in the layout of `FEATURES`."""
    seen = {}
    read = metric.corpus_from_arrow

    def reading_the_cache_file(*args, **kwargs):
        files = sorted((tmp_path / "cache").rglob("*.arrow"))
        assert len(files) == 1
        seen["rows"] = datasets.Dataset.from_file(str(files[0]))
        return read(*args, **kwargs)

    monkeypatch.setattr(metric, "corpus_from_arrow", reading_the_cache_file)
    module = load("jga_fga", tmp_path)
    gold = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": ["4", "four"]}}]]
    pred = [[{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": {"value": "5", "confidence": 0.6}}]]
    module.add_batch(predictions=pred, references=gold, dialogue_ids=["MUL0003"])
    module.add_batch(predictions=["taxi-day=monday"], references=["taxi-day=friday"], dialogue_ids=["SNG01"])
    result = module.compute()
    rows = seen["rows"]
    assert rows.features == FEATURES and rows.num_rows == 2
    assert rows[0]["references"] == {
        "dialogue_id": "MUL0003",
        "turn_ids": [0, 1],
        "states": [
            [{"slot": "hotel-area", "values": ["north"]}],
            [{"slot": "hotel-area", "values": ["north"]}, {"slot": "hotel-stars", "values": ["4", "four"]}],
        ],
    }
    assert rows[0]["predictions"]["states"][1] == [
        {"slot": "hotel-area", "values": ["north"]},
        {"slot": "hotel-stars", "values": ["5"]},
    ]
    assert rows[0]["predictions"]["hypotheses"] == [
        [],
        [{"slot": "hotel-stars", "values": ["5"], "confidences": [0.6]}],
    ]
    assert rows[1]["predictions"] == {
        "dialogue_id": "SNG01",
        "turn_ids": [0],
        "states": [[{"slot": "taxi-day", "values": ["monday"]}]],
        "hypotheses": [],
    }
    # the figures are the core's on the same turns, calibration from the stored confidences included
    corpus = Corpus.from_turn_records(
        records(pred, ["MUL0003"]) + [{"dialogue_id": "SNG01", "turn_id": 0, "state": "taxi-day=monday"}],
        records(gold, ["MUL0003"]) + [{"dialogue_id": "SNG01", "turn_id": 0, "state": "taxi-day=friday"}],
    )
    expected = core_figures(corpus, "turn")
    assert {key: result[key] for key in expected} == expected
    from dst_metrics.calibration.metrics import calibration

    assert {key: result[key] for key in calibration(corpus, corpus.scores).figures} == (
        calibration(corpus, corpus.scores).figures
    )


def test_encoded_rows_match_datasets_own_encoding_and_round_trip():
    corpus = Corpus.from_dialogues(PRED, GOLD)
    table = corpus_table(corpus)
    assert table.schema == SCHEMA
    turn_features = datasets.Features.from_arrow_schema(SCHEMA)
    assert turn_features["references"]["state"].feature == {
        "slot": datasets.Value("string"),
        "values": datasets.List(datasets.Value("string")),
    }

    def entries(state):
        return [
            {"slot": slot, "values": sorted(value) if isinstance(value, frozenset) else [value]}
            for slot, value in state.items()
        ]

    rows = {"predictions": [], "references": []}
    for d in corpus.dialogues:
        for turn, g, p in zip(d.turn_ids, d.gold, d.pred):
            rows["predictions"].append({"dialogue_id": d.dialogue_id, "turn_id": turn, "state": entries(p)})
            rows["references"].append({"dialogue_id": d.dialogue_id, "turn_id": turn, "state": entries(g)})
    expected = datasets.Dataset.from_dict(rows, features=turn_features).data.table
    assert table.cast(expected.schema).equals(expected)

    back = corpus_from_arrow(table["predictions"], table["references"])
    assert back == corpus  # frozensets of acceptable values included
    assert back.dialogues[1].gold[1]["taxi-leave at"] == frozenset({"17:00", "5 pm"})


# The codec's own round trip (hypothesis), without evaluate: tests/test_hf_arrow.py.


# --------------------------------------------------------------------------------------------
# Input shapes


@pytest.mark.parametrize("batches", [1, 2])
def test_dialogue_level_input_equals_the_core(gca, turn_level, every, batches):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    for module, family in ((gca, "gca"), (turn_level, "turn"), (every, ("gca", "turn"))):
        if batches == 1:
            result = module.compute(predictions=PRED, references=GOLD)
        else:
            for i in range(len(GOLD)):
                module.add_batch(predictions=PRED[i : i + 1], references=GOLD[i : i + 1])
            result = module.compute()
        assert result == core_figures(corpus, family)


def test_every_state_shape_of_the_core_is_accepted(gca):
    shapes = [
        [{"hotel": {"area": "north", "stars": 4}}],
        [{"hotel-area": "north", "hotel-stars": "4"}],
        [[("hotel", "area", "north"), ("hotel", "stars", "4")]],
        [["hotel-area-north", "hotel-stars-4"]],
        ["hotel-area=north; hotel-stars=4"],
    ]
    expected = gca.compute(predictions=[shapes[0]], references=[shapes[0]])
    for shape in shapes:
        assert gca.compute(predictions=[shape], references=[shapes[0]]) == expected


def test_turn_records_in_any_order_over_batches_equal_the_core(gca, turn_level, every):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    preds, golds = records(PRED), records(GOLD)
    order = list(range(len(preds)))
    random.Random(3).shuffle(order)
    for module, family in ((gca, "gca"), (turn_level, "turn"), (every, ("gca", "turn"))):
        for chunk in (order[:2], order[2:5], order[5:]):
            shuffled = chunk[::-1]  # each side in its own order
            module.add_batch(predictions=[preds[i] for i in chunk], references=[golds[i] for i in shuffled])
        assert module.compute() == core_figures(corpus, family)


def test_add_takes_one_record_or_one_dialogue(gca):
    for p, g in zip(records(PRED), records(GOLD)):
        gca.add(prediction=p, reference=g)
    by_record = gca.compute()
    for p, g in zip(PRED, GOLD):
        gca.add(prediction=p, reference=g)
    assert gca.compute() == by_record == core_figures(Corpus.from_dialogues(PRED, GOLD), "gca")


def test_linearized_strings_with_the_core_parser(gca, tmp_path):
    gold = [["hotel-area=north", "hotel-area=north; hotel-stars=4", ""]]
    pred = [["hotel-area=north;", " hotel-stars = 4 ; hotel-area=north", "hotel-area=south"]]
    parsed = [[LinearizedFormat().parse(text) for text in dialogue] for dialogue in (pred[0], gold[0])]
    assert parsed[1][2] == {}  # an empty string is an empty state
    expected = core_figures(Corpus.from_dialogues([parsed[0]], [parsed[1]]), "gca")
    assert gca.compute(predictions=pred, references=gold) == expected
    # turn records carry strings too
    assert gca.compute(predictions=records(pred), references=records(gold)) == expected

    # a configured format: at load time, or per call; '|' gives gold acceptable values
    fmt = LinearizedFormat(slot_separator=",", value_separator=":", alternatives_separator="|")
    custom_gold = [["hotel-area:north|centre", "hotel-area:north|centre,hotel-stars:4", ""]]
    custom_pred = [["hotel-area:centre", "hotel-stars:4,hotel-area:north", "hotel-area:south"]]
    expected = core_figures(Corpus.from_dialogues(custom_pred, custom_gold, linearized=fmt), "gca")
    assert gca.compute(predictions=custom_pred, references=custom_gold, linearized=fmt) == expected
    configured = load(
        "gca", tmp_path, linearized={"slot_separator": ",", "value_separator": ":", "alternatives_separator": "|"}
    )
    assert configured.compute(predictions=custom_pred, references=custom_gold) == expected


def test_a_flat_list_of_linearized_strings_is_one_turn_per_string(gca, every):
    """``compute(predictions=["hotel-area=north", ...])``: each string a turn; ``dialogue_ids`` groups
    them into dialogues in the order given (over batches too); without it each is a one-turn dialogue."""
    pred = ["hotel-area=north", "hotel-area=north; hotel-stars=5", "taxi-day=monday", "hotel-area=south"]
    gold = ["hotel-area=north", "hotel-area=north; hotel-stars=4", "taxi-day=monday", "hotel-area=north"]
    ids = ["MUL1", "MUL1", "SNG2", "MUL1"]
    by_dialogue = Corpus.from_dialogues(
        [[pred[0], pred[1], pred[3]], [pred[2]]],
        [[gold[0], gold[1], gold[3]], [gold[2]]],
        dialogue_ids=["MUL1", "SNG2"],
    )
    expected = core_figures(by_dialogue, ("gca", "turn"))
    assert every.compute(predictions=pred, references=gold, dialogue_ids=ids) == expected
    # the same turns over two batches: MUL1's turns continue where the first batch left them
    every.add_batch(predictions=pred[:2], references=gold[:2], dialogue_ids=ids[:2])
    every.add_batch(predictions=pred[2:], references=gold[2:], dialogue_ids=ids[2:])
    assert every.compute() == expected
    # by hand: MUL1 turn 0 area correct, turn 1 stars wrong, turn 2 area wrong and stars removed on both
    # sides (official quirk 1: correct, then missed); SNG2 correct. JGA: turns 0 of MUL1 and SNG2 right
    assert (expected["correct"], expected["wrong"], expected["missed"], expected["jga"]) == (3, 2, 1, 0.5)
    # without dialogue_ids: four one-turn dialogues, as lists of one state each give them
    alone = core_figures(Corpus.from_dialogues([[p] for p in pred], [[g] for g in gold]), "gca")
    assert gca.compute(predictions=pred, references=gold) == alone
    assert (alone["correct"], alone["wrong"], alone["missed"]) == (3, 2, 0)  # each of the 5 slots a change
    # a malformed string is named by its position in the flat list, with its dialogue and turn
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=["a-b=c", "a-b=c; oops"], references=["a-b=c", "a-b=c"], dialogue_ids=["x", "x"])
    assert str(caught.value).startswith('batch 0, predictions[1], dialogue "x", turn 1, field state: malformed entry')
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=["a-b=c", "a-b=c; oops"], references=["a-b=c", "a-b=c"])
    assert str(caught.value).startswith('batch 0, predictions[1], dialogue "1", turn 0, field state: malformed entry')


def test_malformed_linearized_string_is_named_at_add_batch(gca):
    gca.add_batch(predictions=[["a-b=c"]], references=[["a-b=c"]])
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=[["a-b=c", "a-b=c; oops"]], references=[["a-b=c", "a-b=c"]])
    message = str(caught.value)
    assert "batch 1" in message and "predictions[0][1]" in message
    assert message.startswith('batch 1, predictions[0][1], dialogue "1", turn 1, field state: ')
    assert 'malformed entry "oops"' in message and '"a-b=c; oops"' in message


# --------------------------------------------------------------------------------------------
# Options, figures, signature


def test_options_equal_the_core(gca, turn_level):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    for mode in ("official", "corrected"):
        result = gca.compute(predictions=PRED, references=GOLD, mode=mode, alpha=0.5)
        assert result == core_figures(corpus, "gca", mode=mode, alpha=0.5)
        result = turn_level.compute(predictions=PRED, references=GOLD, mode=mode, num_slots=10, fga_lambda=1.0)
        assert result == core_figures(corpus, "turn", mode=mode, num_slots=10, fga_lambda=1.0)


GRID_KEYS = ["fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0"]


def test_fga_lambda_number_sets_fga_and_keeps_the_default_grid(turn_level):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    default = turn_level.compute(predictions=PRED, references=GOLD)
    result = turn_level.compute(predictions=PRED, references=GOLD, fga_lambda=1.0)
    assert list(result) == list(default) == figure_keys(Options(), ["turn"]) + ["signature"]
    assert result["fga"] == result["fga@1.0"] == score(corpus, fga_lambda=1.0).scores.fga
    assert default["fga"] == default["fga@0.5"] == score(corpus).scores.fga
    assert result["fga"] != default["fga"]  # λ matters on this data
    assert {key: result[key] for key in GRID_KEYS} == {key: default[key] for key in GRID_KEYS}
    assert "|lambda:1|" in result["signature"] and "lambdas" not in result["signature"]


def test_fga_lambda_list_sets_the_grid_and_the_first_is_fgas(turn_level):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    result = turn_level.compute(predictions=PRED, references=GOLD, fga_lambda=[0.25, 1.0])
    options = Options(fga_lambda=0.25, fga_lambdas=(0.25, 1.0))
    assert list(result) == figure_keys(options, ["turn"]) + ["signature"]
    assert "fga@0.5" not in result and "fga@0.75" not in result
    report = score(corpus, options)
    assert result["fga"] == result["fga@0.25"] == report.scores.fga_grid[0.25]
    assert result["fga@1.0"] == report.scores.fga_grid[1.0]
    assert result == core_figures(corpus, "turn", fga_lambda=[0.25, 1.0])
    assert result["signature"] == options.signature()
    assert "|lambda:0.25|lambdas:0.25,1|" in result["signature"]


def test_fga_lambdas_sets_only_the_grid(turn_level):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    result = turn_level.compute(predictions=PRED, references=GOLD, fga_lambdas=[0.3, 1.0])
    assert [key for key in result if key.startswith("fga@")] == ["fga@0.3", "fga@1.0"]
    assert result["fga"] == score(corpus).scores.fga  # still λ = 0.5
    assert result["fga@1.0"] == score(corpus, fga_lambda=1.0).scores.fga
    assert result == core_figures(corpus, "turn", fga_lambdas=[0.3, 1.0])


def test_figure_selection(turn_level):
    corpus = Corpus.from_dialogues(PRED, GOLD)
    result = turn_level.compute(predictions=PRED, references=GOLD, fga_lambda=[0.25, 1.0], figures=["fga", "jga"])
    report = score(corpus, fga_lambda=0.25, fga_lambdas=(0.25, 1.0))
    assert result == {"jga": report.scores.jga, "fga": report.scores.fga_grid[0.25], "signature": report.signature}
    result = turn_level.compute(predictions=PRED, references=GOLD, fga_lambda=[0.25, 1.0], figures=["fga@1.0"])
    assert result == {"fga@1.0": report.scores.fga_grid[1.0], "signature": report.signature}
    assert set(turn_level.compute(predictions=PRED, references=GOLD, figures="sa")) == {"sa", "signature"}
    with pytest.raises(ValueError, match="unknown figures"):  # not on this grid
        turn_level.compute(predictions=PRED, references=GOLD, fga_lambda=[0.25, 1.0], figures=["fga@0.5"])
    # a figure of the other module is no error (evaluate.combine passes `figures` to both
    # modules), it is just not among this module's figures
    assert turn_level.compute(predictions=PRED, references=GOLD, figures=["gca"]) == {
        "signature": Options().signature()
    }


def test_signature_is_the_cores(gca):
    result = gca.compute(predictions=PRED, references=GOLD, mode="corrected", alpha=0.25, num_slots=12)
    assert result["signature"] == Options(mode="corrected", alpha=0.25, num_slots=12).signature()
    normalized = gca.compute(predictions=PRED, references=GOLD, value_matching="normalized")
    assert normalized["signature"].endswith("|match:normalized")
    assert normalized == core_figures(Corpus.from_dialogues(PRED, GOLD, value_matching="normalized"), "gca")


def test_bad_options_fail_before_the_rows_are_read(gca):
    gca.add_batch(predictions=PRED, references=GOLD)
    with pytest.raises(ValueError, match="mode"):
        gca.compute(mode="strict")
    with pytest.raises(ValueError, match="unknown figures"):
        gca.compute(figures=["bleu"])
    with pytest.raises(TypeError, match="unknown compute"):
        gca.compute(lambda_=0.5)
    for bad in ({"fga_lambda": 0}, {"fga_lambda": []}, {"fga_lambdas": ["x"]}, {"alpha": 2}, {"num_slots": 0.5}):
        with pytest.raises(OptionError):
            gca.compute(**bad)
    # the rows added are still there
    assert gca.compute() == core_figures(Corpus.from_dialogues(PRED, GOLD), "gca")


def test_combine_runs_both_modules(gca, turn_level):
    combined = evaluate.combine([gca, turn_level])
    result = combined.compute(predictions=PRED, references=GOLD, mode="corrected")
    corpus = Corpus.from_dialogues(PRED, GOLD)
    expected = core_figures(corpus, ("gca", "turn"), mode="corrected")
    signature = expected.pop("signature")
    assert result == {**expected, "gca_metric_signature": signature, "jga_fga_metrics_signature": signature}
    combined.add_batch(predictions=records(PRED), references=records(GOLD))
    assert combined.compute(mode="corrected") == result
    # `figures` goes to both modules: each returns the ones of its family
    selected = combined.compute(predictions=PRED, references=GOLD, mode="corrected", figures=["gca", "jga"])
    assert selected == {
        "gca": expected["gca"],
        "jga": expected["jga"],
        "gca_metric_signature": signature,
        "jga_fga_metrics_signature": signature,
    }


def test_keep_in_memory(tmp_path):
    module = load("gca", tmp_path, keep_in_memory=True)
    assert module.compute(predictions=PRED, references=GOLD) == core_figures(Corpus.from_dialogues(PRED, GOLD), "gca")


# --------------------------------------------------------------------------------------------
# Bad input: the core's errors, at add_batch() time, with batch position, dialogue and turn


def test_bad_state_in_turn_records_names_batch_position_dialogue_and_turn(gca):
    preds, golds = records(PRED), records(GOLD)
    gca.add_batch(predictions=preds[:3], references=golds[:3])
    bad = [dict(r) for r in preds[3:]]
    bad[1]["state"] = {"taxi-leave at": ["17:00", "5 pm"]}  # a prediction holds one value
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=bad, references=golds[3:])
    message = str(caught.value)
    assert message.startswith('batch 1, predictions[1], dialogue "1", turn 1, field state.taxi-leave at: ')
    assert message.endswith('a predicted value must be one string, got an array (["17:00", "5 pm"])')


def test_bad_state_in_dialogues_names_position(gca):
    gold = [GOLD[0], [{}, {"taxi": {"leave at": {"nested": "too deep"}}}, {}]]
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=PRED, references=gold)
    message = str(caught.value)
    assert message.startswith('batch 0, references[1][1], dialogue "1", turn 1, field state.taxi.leave at: ')
    assert message.endswith('got an object ({"nested": "too deep"})')


def test_unpaired_record_is_an_error(gca):
    preds, golds = records(PRED), records(GOLD)
    golds[4] = {**golds[4], "turn_id": 7}
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=preds, references=golds)
    message = str(caught.value)
    assert "no partner" in message and 'dialogue "1"' in message
    assert "predictions[4]" in message or "references[4]" in message


def test_duplicate_record_within_and_across_batches(gca):
    preds, golds = records(PRED), records(GOLD)
    with pytest.raises(InputError, match=r"batch 0, predictions\[2\].*appears twice"):
        gca.add_batch(predictions=preds[:2] + [preds[0]], references=golds[:3])
    gca.add_batch(predictions=preds[:3], references=golds[:3])
    with pytest.raises(InputError) as caught:
        gca.add_batch(predictions=preds[2:], references=golds[2:])
    message = str(caught.value)
    assert "already added by an earlier batch" in message
    assert message.startswith('batch 1, predictions[0], dialogue "0", turn 2: ')
    # nothing of the rejected batches was written: the rest can still be added
    gca.add_batch(predictions=preds[3:], references=golds[3:])
    assert gca.compute() == core_figures(Corpus.from_dialogues(PRED, GOLD), "gca")


def test_shape_errors(gca):
    with pytest.raises(InputError, match="2 predictions but 1 references"):
        gca.add_batch(predictions=PRED, references=GOLD[:1])
    with pytest.raises(InputError, match=r"batch 0, references\[1\]: a batch of linearized strings holds strings only"):
        gca.add_batch(predictions=["a-b=c", "a-b=d"], references=["a-b=c", {"a-b": "d"}])
    with pytest.raises(InputError, match="1 dialogue_ids for 2 linearized strings"):
        gca.add_batch(predictions=["a-b=c", "a-b=d"], references=["a-b=c", "a-b=d"], dialogue_ids=["x"])
    with pytest.raises(InputError, match=r"predictions\[0\]: expected a dialogue .* got a number"):
        gca.add_batch(predictions=[3], references=[3])
    with pytest.raises(InputError, match="predictions are dialogues but references are records"):
        gca.add_batch(predictions=PRED, references=records(GOLD)[:2])
    with pytest.raises(InputError, match="references are missing"):
        gca.add_batch(predictions=PRED)
    gca.add_batch(predictions=[], references=[])
    with pytest.raises(InputError, match="the corpus is empty"):
        gca.compute()


def test_generated_dialogue_ids_are_distinct_per_process():
    encoder = TurnEncoder(id_prefix="2/")
    corpus = encoder.encode(PRED, GOLD)
    corpus = encoder.encode(PRED[:1], GOLD[:1])
    assert [dialogue.dialogue_id for dialogue in corpus.dialogues] == ["2/2"]
    assert [example["dialogue_id"] for example in dialogue_examples(corpus)[1]] == ["2/2"]


# --------------------------------------------------------------------------------------------
# The paper's examples and the published T5 zero-shot figures through the modules


def test_paper_examples_through_the_modules(gca, turn_level):
    for example in EXAMPLES.values():
        for prediction, published in example.published.items():
            result = {
                **gca.compute(predictions=[list(example.predictions[prediction])], references=[list(example.gold)]),
                **turn_level.compute(
                    predictions=[list(example.predictions[prediction])], references=[list(example.gold)]
                ),
            }
            for name, value in published.items():
                assert round(result[name] * 100, 2) == value, (example.name, prediction, name)


def _t5_path(name: str):
    return REFERENCE / "t5_zeroshot" / "predictions" / f"{name}.json"


def _t5(name: str):
    data = json.loads(_t5_path(name).read_bytes())
    published = json.loads((REFERENCE / "t5_zeroshot" / "published" / f"{name}.json").read_text())
    ids, preds, golds = [], [], []
    for dialogue_id, turns in data.items():
        ordered = sorted(turns.items(), key=lambda item: int(item[0]))
        ids.append(dialogue_id)
        preds.append([turn["pr"] for _, turn in ordered])
        golds.append([turn["gt"] for _, turn in ordered])
    return ids, preds, golds, published


def _check_published(result: dict, published: dict) -> None:
    for key, name in PUBLISHED_KEYS.items():
        assert round(result[name] * 100, 2) == published[key], key


@requires_shared
@pytest.mark.parametrize("name", T5_FILES)
def test_t5_published_figures_from_dialogue_level_input(gca, turn_level, name):
    _, preds, golds, published = _t5(name)
    result = {
        **gca.compute(predictions=preds, references=golds),
        **turn_level.compute(predictions=preds, references=golds),
    }
    _check_published(result, published)
    # the modules on lists equal the core on the file itself
    corpus = read(_t5_path(name))
    assert result == {**core_figures(corpus, "gca"), **core_figures(corpus, "turn")}


@requires_shared
@pytest.mark.parametrize("name", T5_FILES)
def test_t5_published_fga_grid_and_rsa_through_the_options(turn_level, name):
    _, preds, golds, published = _t5(name)
    turn_level.add_batch(predictions=preds, references=golds)
    # fga_lambda=number: fga at that λ, the default grid unchanged
    result = turn_level.compute(fga_lambda=0.25)
    assert round(result["fga"] * 100, 2) == published["FGA_0.25"]
    for lam in ("0.25", "0.5", "0.75", "1.0"):
        assert round(result[f"fga@{lam}"] * 100, 2) == published[f"FGA_{lam}"], lam
    # fga_lambda=list: the grid, the first λ for fga
    result = turn_level.compute(predictions=preds, references=golds, fga_lambda=[1.0, 0.25])
    assert [key for key in result if key.startswith("fga@")] == ["fga@1.0", "fga@0.25"]
    assert round(result["fga"] * 100, 2) == published["FGA_1.0"]
    assert round(result["fga@0.25"] * 100, 2) == published["FGA_0.25"]
    # corrected RSA equals the published (official) RSA: a turn with no slot on either side scores 0 in both modes
    result = turn_level.compute(predictions=preds, references=golds, mode="corrected")
    assert round(result["rsa"] * 100, 2) == published["RSA"]


@requires_shared
@pytest.mark.parametrize("name", T5_FILES)
def test_t5_published_figures_from_turn_records_shuffled_over_7_batches(gca, turn_level, name):
    ids, preds, golds, published = _t5(name)
    pred_records, gold_records = records(preds, ids), records(golds, ids)
    order = list(range(len(pred_records)))
    random.Random(7).shuffle(order)
    for module in (gca, turn_level):
        for batch in range(7):
            chunk = order[batch::7]
            shuffled = sorted(chunk, key=lambda i: random.Random(i).random())
            module.add_batch(
                predictions=[pred_records[i] for i in chunk], references=[gold_records[i] for i in shuffled]
            )
    result = {**gca.compute(), **turn_level.compute()}
    _check_published(result, published)
    corpus = Corpus.from_turn_records(pred_records, gold_records)
    assert result == {**core_figures(corpus, "gca"), **core_figures(corpus, "turn")}


def test_space_demo_computes(gca):
    pytest.importorskip("gradio")
    from dst_metrics.hf_evaluate.demo import build_demo

    demo = build_demo(gca)
    assert demo.fns  # built, not launched
    fn = next(iter(demo.fns.values())).fn
    assert (
        fn(json.dumps(PRED), json.dumps(GOLD), "official")["gca"]
        == gca.compute(predictions=PRED, references=GOLD)["gca"]
    )
    assert "error" in fn("[[1]]", "[[1]]", "official")
    # not JSON: our words and json's documented lineno and colno, never the json module's message (issue 56)
    assert fn("[[1]]", '[\n  {"a": }]', "official") == {"error": "references: not valid JSON at line 2, column 9"}


def test_a_compatibility_profile_reaches_the_module_figures():
    # TRADE counts a predicted "none" as an item: the turn is wrong under its JGA, right under ours.
    metrics = evaluate.load(str(REPO / "jga_fga_metrics"))
    gold, pred = [[{"hotel-area": "north"}]], [[{"hotel-area": "north", "hotel-stars": "none"}]]
    ours = metrics.compute(predictions=pred, references=gold, figures=["jga"])
    trade = metrics.compute(predictions=pred, references=gold, figures=["jga"], compat="trade")
    assert (ours["jga"], trade["jga"]) == (1.0, 0.0)
    assert trade["signature"].endswith("|compat:trade") and "compat" not in ours["signature"]
