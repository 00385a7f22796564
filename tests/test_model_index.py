"""``dst-metrics model-index`` and `dst_metrics.model_index`: a model card's model-index, read back with
huggingface_hub, holds every headline figure of ``dst-metrics score --json`` with its signature; ``--update``
merges it into a card."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dst_metrics.cli import main
from dst_metrics.figures.registry import FIGURES
from dst_metrics.options import Options
from tests.conftest import REFERENCE, REPO, needs, requires_shared

hub = pytest.importorskip("huggingface_hub", reason=needs("model-card", "huggingface_hub"))

TRADE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
PUBLISHED = REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.published.json"
MUL1110 = str(REPO / "examples" / "mul1110.json")
CARD = ["--model-name", "trade", "--dataset-name", "MultiWOZ 2.1", "--dataset-type", "multiwoz21", "--split", "test"]
HEADLINE = [
    key for figure in FIGURES if figure.group == "main" and not figure.is_count for key in figure.keys(Options())
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = main([*argv, "--quiet"])
    except SystemExit as stop:  # argparse: a usage error
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def score_json(capsys, *argv: str) -> dict:
    status, out, err = run(capsys, "score", *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def card_results(path: Path) -> dict[str, object]:
    """{metric type: EvalResult} of the card at `path`, read by huggingface_hub."""
    card = hub.ModelCard.load(path)
    results = card.data.eval_results
    assert len({r.metric_type for r in results}) == len(results)
    return {r.metric_type: r for r in results}


def written_card(tmp_path: Path, yaml: str, text: str = "# A tracker\n\nIts card.\n") -> Path:
    path = tmp_path / "README.md"
    path.write_text(f"---\n{yaml}---\n{text}", encoding="utf-8")
    return path


@requires_shared
def test_the_trade_file_s_model_index_holds_score_s_figures_and_signature(capsys, tmp_path):
    figures = score_json(capsys, str(TRADE))
    status, out, err = run(capsys, "model-index", str(TRADE), *CARD)
    assert status == 0 and err == "", err
    card = hub.ModelCard.load(written_card(tmp_path, out))
    assert card.data.model_name == "trade"
    results = {r.metric_type: r for r in card.data.eval_results}
    assert list(results) == HEADLINE  # the registry's headline figures, in its order
    for key, result in results.items():
        assert result.metric_value == figures[key], key  # unrounded, a fraction, as score --json gives it
        assert result.metric_config == figures["signature"], key
        dataset = (result.dataset_type, result.dataset_name, result.dataset_split)
        assert dataset == ("multiwoz21", "MultiWOZ 2.1", "test")
        assert result.task_type == "dialogue-state-tracking" and result.dataset_config is None
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))  # what the official GCA code printed
    for key in ("gca", "jga", "sa", "aga", "rsa"):
        assert round(100 * results[key].metric_value, 2) == published[key.upper()], key
    assert round(100 * results["fga"].metric_value, 2) == published["FGA_0.5"]


@requires_shared
def test_compat_adds_the_profile_s_figures_named_apart_from_ours(capsys, tmp_path):
    theirs = score_json(capsys, str(TRADE), "--compat", "trade")
    ours = score_json(capsys, str(TRADE))
    status, out, err = run(capsys, "model-index", str(TRADE), *CARD, "--compat", "trade")
    assert status == 0, err
    results = card_results(written_card(tmp_path, out))
    replaced = [key for key in HEADLINE if f"trade_{key}" in results]
    assert "jga" in replaced and theirs["jga"] != ours["jga"]  # TRADE counts `none` as an item
    for key in HEADLINE:
        result = results[f"trade_{key}" if key in replaced else key]
        assert result.metric_value == theirs[key], key
        assert result.metric_config == theirs["signature"] and result.metric_config.endswith("|compat:trade")
    assert results["trade_jga"].metric_name == "JGA (trade profile)"


def test_update_keeps_the_card_and_other_results_and_replaces_ours(capsys, tmp_path):
    foreign = (
        "license: mit\n"
        "tags:\n- dialogue-state-tracking\n"
        "model-index:\n- name: old-name\n  results:\n"
        "  - task:\n      type: dialogue-state-tracking\n"
        "    dataset:\n      name: MultiWOZ 2.1\n      type: multiwoz21\n      split: test\n"
        "    metrics:\n    - type: jga\n      value: 0.5\n      name: JGA (the authors' script)\n"
        "  - task:\n      type: text-generation\n"
        "    dataset:\n      name: Other\n      type: other\n"
        "    metrics:\n    - type: bleu\n      value: 12.5\n"
    )
    text = "# A tracker\n\nIts card, kept as it is.\n"
    path = written_card(tmp_path, foreign, text)
    argv = ["model-index", MUL1110, *CARD, "--update", str(path)]
    status, out, err = run(capsys, *argv)
    assert status == 0 and err.startswith(f"updated {path}: 7 results"), err
    status, _, err = run(capsys, *argv, "--alpha", "0.5")  # again, other figures: ours replaced, not added
    assert status == 0, err
    card = hub.ModelCard.load(path)
    assert card.text == text and card.data.license == "mit" and card.data.tags == ["dialogue-state-tracking"]
    assert card.data.model_name == "trade"
    results = card.data.eval_results
    assert len(results) == 2 + len(HEADLINE)
    ours = [r for r in results if r.metric_config]
    assert [(r.metric_type, r.metric_value) for r in results if r not in ours] == [("jga", 0.5), ("bleu", 12.5)]
    figures = score_json(capsys, MUL1110, "--alpha", "0.5")
    assert {r.metric_type: r.metric_value for r in ours} == {key: figures[key] for key in HEADLINE}
    assert {r.metric_config for r in ours} == {figures["signature"]}


def test_a_card_without_metadata_gets_it_and_keeps_its_text(capsys, tmp_path):
    path = tmp_path / "README.md"
    path.write_text("# A tracker\n\nNo metadata yet.\n", encoding="utf-8")
    status, out, _ = run(capsys, "model-index", MUL1110, *CARD, "--dataset-config", "v2.1", "--update", str(path))
    assert status == 0
    card = hub.ModelCard.load(path)
    assert card.text == "# A tracker\n\nNo metadata yet.\n"
    assert [r.metric_type for r in card.data.eval_results] == HEADLINE
    assert {r.dataset_config for r in card.data.eval_results} == {"v2.1"}
    assert path.read_text(encoding="utf-8").startswith(f"---\n{out.rstrip()}\n---\n")  # the printed YAML


def test_the_python_function_gives_the_command_s_yaml(capsys):
    import dst_metrics

    report = dst_metrics.score(dst_metrics.read(MUL1110))
    card = dst_metrics.model_index(
        report, model_name="trade", dataset_name="MultiWOZ 2.1", dataset_type="multiwoz21", split="test"
    )
    assert isinstance(card, hub.ModelCardData)
    status, out, _ = run(capsys, "model-index", MUL1110, *CARD)
    assert status == 0 and out == card.to_yaml() + "\n"
    merged = dst_metrics.update_card("text\n", card)
    assert merged.endswith("---\ntext\n") and hub.ModelCard(merged).data.eval_results == card.eval_results


def test_importing_the_package_imports_no_huggingface_hub():
    code = "import sys, dst_metrics; dst_metrics.model_index; print('huggingface_hub' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.stdout.strip() == "False", result.stderr


def _bad_cases(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{", encoding="utf-8")
    bad_yaml = tmp_path / "bad.md"
    bad_yaml.write_text("---\nlicense: [\n---\ntext\n", encoding="utf-8")
    bad_index = tmp_path / "index.md"
    bad_index.write_text("---\nmodel-index: 3\n---\ntext\n", encoding="utf-8")
    missing = tmp_path / "missing.md"
    return {
        "bad JSON": ([str(bad_json), *CARD], f"{bad_json}: not valid JSON"),
        "two files": ([MUL1110, MUL1110, *CARD], "give one FILE"),
        "no card": ([MUL1110, *CARD, "--update", str(missing)], f"{missing}: cannot read the model card"),
        "bad YAML": ([MUL1110, *CARD, "--update", str(bad_yaml)], f"{bad_yaml}: the card's metadata cannot be read"),
        "bad index": ([MUL1110, *CARD, "--update", str(bad_index)], f"{bad_index}: the card's metadata"),
        "no split": ([MUL1110, *CARD[:-2]], "--split"),
    }


@pytest.mark.parametrize("case", ["bad JSON", "two files", "no card", "bad YAML", "bad index", "no split"])
def test_bad_input_is_one_line_and_status_2(case, capsys, tmp_path):
    argv, expected = _bad_cases(tmp_path)[case]
    before = {path: path.read_bytes() for path in tmp_path.iterdir()}
    status, out, err = run(capsys, "model-index", *argv)
    assert (status, out) == (2, "") and err.count("\n") == 1 and err.startswith("dst-metrics: error: "), err
    assert expected in err, err
    assert {path: path.read_bytes() for path in tmp_path.iterdir()} == before  # no card written
