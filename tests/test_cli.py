"""The command line: `dst-metrics score` / `python -m dst_metrics`, its JSON lines, table and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dst_metrics import FIGURES, Options, read, score
from dst_metrics.cli import main
from dst_metrics.cli.common import display_width
from dst_metrics.space.examples import EXAMPLES
from tests.conftest import REFERENCE, REPO, requires_shared

EXAMPLE_DIR = REPO / "examples"
P1 = str(EXAMPLE_DIR / "first_example_p1.json")
P2 = str(EXAMPLE_DIR / "first_example_p2.json")
REQUIRED_KEYS = {
    "file", "gca", "jga", "fga", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0", "sa", "aga", "rsa", "slot_f1",
    "correct", "wrong", "missed", "overshot", "signature",
}  # fmt: skip


def run_json(capsys, *args: str) -> list[dict]:
    assert main(["score", *args, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_bundled_example_files_are_the_paper_examples():
    for example in EXAMPLES.values():
        for prediction in example.predictions:
            suffix = f"_{prediction.lower()}" if len(example.predictions) > 1 else ""
            path = EXAMPLE_DIR / f"{example.name}{suffix}.json"
            assert json.loads(path.read_text()) == example.reference_layout(prediction)


def test_json_lines_hold_every_required_key_with_the_papers_figures(capsys):
    p1, p2 = run_json(capsys, P1, P2)
    assert REQUIRED_KEYS <= p1.keys() and REQUIRED_KEYS <= p2.keys()
    assert (p1["file"], p2["file"]) == (P1, P2)
    assert round(100 * p1["gca"], 2) == 73.33 and round(100 * p2["gca"], 2) == 15.49
    assert round(100 * p1["jga"], 2) == 0.0 and round(100 * p2["jga"], 2) == 33.33
    for record in (p1, p2):
        assert record["fga"] == record["fga@0.5"]
        for key, value in record.items():
            if isinstance(value, float):
                assert 0.0 <= value <= 1.0, key
        assert "mode:official" in record["signature"] and "alpha:10/11" in record["signature"]


def test_each_figure_has_a_signature_naming_only_the_options_that_change_it(capsys):
    (plain,) = run_json(capsys, P1)
    (changed,) = run_json(capsys, P1, "--fga-lambda", "0.75", "--num-slots", "40", "--alpha", "0.5")
    signatures = plain["signatures"]
    assert set(signatures) == {key for key, value in plain.items() if isinstance(value, (int, float))}
    assert signatures["gca"] == "dst-metrics:0.1.0|mode:official|alpha:10/11|match:exact"
    assert "K:30" in signatures["sa"] and "lambda" not in signatures["sa"] and "alpha" not in signatures["sa"]
    assert "lambda:0.5" in signatures["fga"] and "K:" not in signatures["fga"]
    # an option changes exactly the signatures of the figures it changes
    for key, signature in signatures.items():
        assert (changed["signatures"][key] == signature) == (changed[key] == plain[key]), key
    (with_ci,) = run_json(capsys, P1, "--ci", "--bootstrap", "50")
    assert all(s.endswith(with_ci["signature"].split("|")[-1]) for s in with_ci["signatures"].values())


def test_per_dialogue_figures_match_the_corpus_of_one_dialogue(capsys):
    (record,) = run_json(capsys, str(EXAMPLE_DIR / "mul1110.json"), "--per-dialogue")
    (dialogue_id,) = record["dialogues"]
    figures = record["dialogues"][dialogue_id]
    assert list(figures) == [k for f in FIGURES if f.per_dialogue for k in f.keys(Options())]
    assert {"gca", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0"} <= set(figures)
    assert figures["gca"] == record["gca"] and figures["fga@0.5"] == record["fga"]
    assert round(100 * figures["gca"], 2) == 31.43 and round(100 * figures["fga@0.5"], 2) == 48.84


def test_options_reach_the_scores_and_the_signature(capsys):
    (corrected,) = run_json(capsys, P1, "--mode", "corrected", "--num-slots", "10", "--fga-lambda", "1.0")
    expected = score(read(P1, "reference"), mode="corrected", num_slots=10, fga_lambda=1.0).scores
    assert corrected["sa"] == expected.sa and corrected["fga"] == expected.fga == corrected["fga@1.0"]
    assert "mode:corrected" in corrected["signature"] and "K:10" in corrected["signature"]
    assert "lambda:1" in corrected["signature"]


def test_table_shows_percentages_one_row_per_file(capsys):
    assert main(["score", P1, P2]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith(str(EXAMPLE_DIR))]
    assert len(rows) == 2
    assert rows[0].split()[1] == "73.33" and rows[1].split()[1] == "15.49"
    assert any(line.startswith("signature: dst-metrics:") for line in out)


def test_invalid_json_names_the_file_and_prints_no_figure(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('{"MUL0003": {"0": {"gt": {}, "pr": ')
    assert main(["score", P1, str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # the good file's figures are not printed either
    assert "broken.json" in captured.err and "not valid JSON" in captured.err


def test_bad_state_error_names_file_dialogue_turn_and_field(tmp_path, capsys):
    bad = tmp_path / "bad_value.json"
    bad.write_text(json.dumps({"D1": {"0": {"gt": {}, "pr": {}}, "1": {"gt": {"hotel": {"area": True}}, "pr": {}}}}))
    assert main(["score", str(bad)]) == 2
    err = capsys.readouterr().err
    for part in ("bad_value.json", '"D1"', "turn 1", "gt.hotel.area", "a boolean (true)"):
        assert part in err


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["score", str(tmp_path / "absent.json")]) == 2
    assert "absent.json" in capsys.readouterr().err


def test_explain_lists_count_types_of_each_turn(capsys):
    assert main(["explain", str(EXAMPLE_DIR / "mul1110.json")]) == 0
    out = capsys.readouterr().out
    assert "attraction-type" in out and "missed" in out and "wrong" in out
    assert "GCA 31.43" in out


def test_module_entry_point_runs_in_a_fresh_process():
    result = subprocess.run(
        [sys.executable, "-m", "dst_metrics", "score", P1, "--json"], capture_output=True, text=True, check=True
    )
    assert round(100 * json.loads(result.stdout)["gca"], 2) == 73.33


@requires_shared
@pytest.mark.parametrize("name", ["T5_result_zeroshot_attraction", "T5_result_zeroshot_rest"])
def test_t5_files_give_their_published_figures_through_the_cli(capsys, name):
    path = REFERENCE / "t5_zeroshot" / "predictions" / f"{name}.json"
    published = json.loads((REFERENCE / "t5_zeroshot" / "published" / f"{name}.json").read_text())
    (record,) = run_json(capsys, str(path), "--per-dialogue")
    keys = {"GCA": "gca", "JGA": "jga", "SA": "sa", "AGA": "aga", "RSA": "rsa", "FGA_0.25": "fga@0.25",
            "FGA_0.5": "fga@0.5", "FGA_0.75": "fga@0.75", "FGA_1.0": "fga@1.0"}  # fmt: skip
    for theirs, ours in keys.items():
        assert round(100 * record[ours], 2) == published[theirs], theirs
    assert len(record["dialogues"]) == len(json.loads(path.read_text()))


# --------------------------------------------------------------------------------------------
# Every bad option or input: exit status 2 and one readable line, never a traceback.

MUL1110 = str(EXAMPLE_DIR / "mul1110.json")
ONE_TURN = {"d1": {"0": {"gt": {"hotel-area": "north"}, "pr": {"hotel-area": "north"}}}}
BAD_CASES = {
    # name: (arguments, file content or None for MUL1110, the message must contain)
    "alpha above 1": (["--alpha", "2"], None, "alpha (GCA's value weight) must be a number in [0, 1]"),
    "alpha not a number": (["--alpha", "ten"], None, "got 'ten'"),
    "lambda 0": (["--fga-lambda", "0"], None, "an FGA lambda must be a number > 0"),
    "lambda -1": (["--fga-lambda", "-1"], None, "an FGA lambda must be a number > 0"),
    "lambda inf": (["--fga-lambda", "inf"], None, "an FGA lambda must be a number > 0"),
    "K 0": (["--num-slots", "0"], None, "must be a whole number >= 1"),
    "K 2.5": (["--num-slots", "2.5"], None, "must be a whole number >= 1"),
    "K below a turn's slots": (
        ["--num-slots", "2"],
        None,
        'mul1110.json, dialogue "MUL1110", turn 4: num_slots (K, slots per turn for SA) is 2, but this turn has 4',
    ),
    "unknown mode": (["--mode", "fixed"], None, "fixed"),  # argparse's words around it: not read (issue 56)
    "unknown format": (["--format", "xml"], None, "xml"),
    "a number no float holds": ([], b'{"d1": {"0": {"gt": {"hotel-stars": 1e400}, "pr": {}}}}',
                                'dialogue "d1", turn 0, field gt: the state holds a number too large'),
    "empty file": ([], b"", "the input is empty"),
    "white space only": ([], b" \n\n", "the input holds only white space"),
    "not UTF-8": ([], b'{"d1": {"0": {"gt": {"a-b": "\xff"}, "pr": {}}}}\n{"x": 1}\n',
                  "not UTF-8 text at line 1, column 30"),
    "truncated JSON": ([], b'{"d1": {"0": {"gt": {}, "pr": ', "not valid JSON at line 1, column 30"),
    "JSON Lines read as JSON": (["--format", "reference"],
                                b'{"dialogue_id": "d1", "turn_id": 0, "gt": {}, "pr": {}}\n'
                                b'{"dialogue_id": "d1", "turn_id": 1, "gt": {}, "pr": {}}\n',
                                "not one JSON document but JSON Lines"),
    "a top-level array": ([], b"[1, 2]", "looks closest to the reference layout"),
    "plain text": ([], b"hello", "input.json: not valid JSON at line 1, column 1"),
    "null state": ([], b'{"d1": {"0": {"gt": null, "pr": {}}}}', "got null"),
}  # fmt: skip


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name", BAD_CASES)
def test_every_bad_option_or_input_exits_2_with_one_line(name, tmp_path, capsys):
    args, content, message = BAD_CASES[name]
    path = MUL1110
    if content is not None:
        path = str(tmp_path / "input.json")
        Path(path).write_bytes(content)
    status, out, err = run_cli(["score", path, *args], capsys)
    assert (status, out) == (2, "")
    assert err.startswith("dst-metrics: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_no_traceback_in_a_fresh_process(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b'{"d1": {"0": {"gt": {"hotel-stars": 1e400}, "pr": {}}}}')
    for args in (["score", str(path)], ["score", MUL1110, "--alpha", "2"], ["explain", MUL1110, "--num-slots", "3"]):
        result = subprocess.run([sys.executable, "-m", "dst_metrics", *args], capture_output=True, text=True)
        assert result.returncode == 2 and result.stderr.startswith("dst-metrics: error: ")
        assert result.stderr.count("\n") == 1, result.stderr


def test_a_byte_order_mark_and_json_lines_are_read(tmp_path, capsys):
    expected = score(read(P1, "reference")).scores
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + Path(P1).read_bytes())
    lines = tmp_path / "turns.jsonl"
    layout = json.loads(Path(P1).read_text())
    lines.write_text(
        "".join(
            json.dumps({"dialogue_id": d, "turn_id": int(t), **turn}) + "\n"
            for d, turns in layout.items()
            for t, turn in reversed(turns.items())
        )
    )
    for path in (bom, lines):
        (record,) = run_json(capsys, str(path))
        assert record["gca"] == expected.gca and record["jga"] == expected.jga


def test_alpha_as_a_fraction_and_the_version(capsys):
    (record,) = run_json(capsys, P1, "--alpha", "10/11")
    assert record["gca"] == score(read(P1, "reference")).scores.gca and "alpha:10/11" in record["signature"]
    (record,) = run_json(capsys, P1, "--alpha", "0.5")
    assert "alpha:0.5" in record["signature"] and record["gca"] != score(read(P1, "reference")).scores.gca
    status, out, _ = run_cli(["--version"], capsys)
    assert status == 0 and out.startswith("dst-metrics ") and out.split()[1][0].isdigit()


def test_per_dialogue_without_json_prints_a_table_per_file(capsys):
    assert main(["score", P1, str(EXAMPLE_DIR / "mul1110.json"), "--per-dialogue"]) == 0
    out = capsys.readouterr().out
    assert f"{P1}: each dialogue" in out
    section = out.split("mul1110.json: each dialogue")[1].splitlines()
    header, row = section[1].split(), section[2].split()
    assert header[:2] == ["dialogue", "GCA"] and row[:2] == ["MUL1110", "31.43"]
    assert "48.84" in row  # FGA at λ = 0.5


def test_the_collector_is_left_as_the_caller_had_it(capsys):
    import gc

    assert gc.isenabled()
    assert main(["score", P1]) == 0
    assert gc.isenabled()
    gc.disable()
    try:
        assert main(["score", P1]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
    status, _, _ = run_cli(["score", str(EXAMPLE_DIR / "absent.json")], capsys)
    assert status == 2 and gc.isenabled()


# --------------------------------------------------------------------------------------------
# explain


def test_explain_shows_changed_slots_by_default_and_every_slot_on_request(capsys):
    assert main(["explain", MUL1110]) == 0
    changed = capsys.readouterr().out
    assert main(["explain", MUL1110, "--all-slots"]) == 0
    every = capsys.readouterr().out
    changed_rows = [line for line in changed.splitlines() if line[:4].strip().isdigit()]
    every_rows = [line for line in every.splitlines() if line[:4].strip().isdigit()]
    assert len(changed_rows) == 4  # the four counted changes of MUL1110 (C=1, W=1, M=2)
    assert all(not row.rstrip().endswith("unchanged") for row in changed_rows)
    assert set(changed_rows) < set(every_rows) and any(row.endswith("unchanged") for row in every_rows)
    for out in (changed, every):  # per-domain GCA at the end
        assert "attraction: correct 0  wrong 1  missed 2  overshot 0  GCA 0.00" in out
        assert "hotel: correct 1  wrong 0  missed 0  overshot 0  GCA 100.00" in out


def test_explain_names_the_nearest_ids_of_an_unknown_dialogue(capsys):
    status, out, err = run_cli(["explain", MUL1110, "--dialogue", "MUL111"], capsys)
    assert (status, out) == (2, "")
    assert 'there is no dialogue "MUL111"; the nearest ids: "MUL1110"' in err


@pytest.mark.parametrize("option", [["--num-slots", "3"], ["--fga-lambda", "1"], ["--json"]])
def test_explain_accepts_only_the_options_it_uses(option, capsys):
    status, out, err = run_cli(["explain", MUL1110, *option], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1 and option[0] in err, err  # argparse's words: not read


def test_explain_keeps_columns_aligned_with_wide_characters(tmp_path, capsys):
    turn0 = {"gt": {"餐厅-区域": "北部"}, "pr": {"餐厅-区域": "南部"}}
    turn1 = {"gt": {"餐厅-区域": "北部", "hotel-area": "north"}, "pr": {"餐厅-区域": "北部"}}
    layout = {"d1": {"0": turn0, "1": turn1}}
    path = tmp_path / "cjk.json"
    path.write_text(json.dumps(layout, ensure_ascii=False), encoding="utf-8")
    assert main(["explain", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = lines[1 : 1 + 4]  # header and three rows
    assert table[0].split()[:2] == ["turn", "slot"]
    starts = {line[: line.index(word)] for line, word in zip(table, ["gold", "北部", "北部", "north"])}
    assert len({display_width(prefix) for prefix in starts}) == 1, table


def test_the_readme_shows_what_the_command_prints():
    # Every "$ dst-metrics …" console block of README.md: the command's output, as shown.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in readme.split("```\n$ dst-metrics ")[1:]]
    assert blocks, "README.md shows no dst-metrics command"
    for block in blocks:
        command, shown = block.split("\n", 1)
        result = subprocess.run(
            [sys.executable, "-m", "dst_metrics", *command.split()], capture_output=True, text=True, cwd=REPO
        )
        assert result.returncode == 0 and result.stdout == shown, command


def test_the_output_says_which_format_was_read(tmp_path, capsys):
    lines = tmp_path / "turns.jsonl"
    lines.write_text(json.dumps({"dialogue_id": "d1", "turn_id": 0, "gt": {}, "pr": {}}) + "\n")
    p1, turns = run_json(capsys, P1, str(lines))
    assert (p1["format"], turns["format"]) == ("reference", "jsonl")
    assert main(["score", P1, str(lines)]) == 0
    assert f"read as {P1}: reference; {lines}: jsonl" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# The first hour (issue 31): what a new user types


def test_a_dash_reads_standard_input_as_every_unix_tool_does():
    data = Path(P1).read_bytes()
    piped = subprocess.run(
        [sys.executable, "-m", "dst_metrics", "score", "-", "--json"], input=data, capture_output=True, timeout=120
    )
    assert piped.returncode == 0, piped.stderr
    (record,) = [json.loads(line) for line in piped.stdout.decode().splitlines()]
    assert round(100 * record["gca"], 2) == 73.33 and record["file"] == "-"
    assert record["gca"] == score(read(P1, "reference")).scores.gca


def test_a_format_asked_for_that_does_not_fit_names_what_the_data_looks_like(tmp_path, capsys):
    status, out, err = run_cli(["score", P1, "--format", "jsonl"], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert "does not look like JSON Lines" in err and "looks like the reference layout" in err
    assert "--format reference" in err and "truncated" not in err
    elf = tmp_path / "program"
    elf.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(200))
    status, _, err = run_cli(["score", str(elf)], capsys)
    assert status == 2 and "an ELF binary" in err and "UTF-16" not in err


def test_gold_from_a_file_holding_both_sides_takes_its_gold_and_says_so(tmp_path, capsys):
    # predictions of P2 against the gold of another layout whose gold differs: the figures are those of a layout
    # holding that gold with P2's predictions, and the signature names the side taken from each file
    other = json.loads(Path(MUL1110).read_text())
    gold_file = tmp_path / "gold.json"
    gold_file.write_text(json.dumps(other))
    pred_layout = {d: {t: {"gt": {}, "pr": turn["pr"]} for t, turn in turns.items()} for d, turns in other.items()}
    for turns in pred_layout.values():  # other predictions: every turn's prediction shifted by one turn
        ids = sorted(turns, key=int)
        for earlier, later in zip(ids, ids[1:]):
            turns[later]["pr"] = other["MUL1110"][earlier]["pr"]
    pred_file = tmp_path / "pred.json"
    pred_file.write_text(json.dumps(pred_layout))
    (record,) = run_json(capsys, str(pred_file), "--gold", str(gold_file))
    merged = {
        d: {t: {"gt": other[d][t]["gt"], "pr": turn["pr"]} for t, turn in ts.items()} for d, ts in pred_layout.items()
    }
    expected = score(read(_write(tmp_path / "merged.json", merged), "reference")).scores
    assert (
        record["gca"] == expected.gca
        and record["jga"] == expected.jga
        and record["gca"] != score(read(str(gold_file), "reference")).scores.gca
    )
    assert "gold:gold-side-of-reference" in record["signature"]
    assert "pred:pred-side-of-reference" in record["signature"]


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def test_calibration_without_confidences_is_an_error_before_any_figure(capsys):
    status, out, err = run_cli(["calibration", P1], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert "carry no confidence" in err and P1 in err


def test_compare_intervals_follow_the_level_unless_set_on_their_own(capsys):
    hp1, hp2 = (str(EXAMPLE_DIR / f"hypothetical_p{n}.json") for n in (1, 2))
    args = ["compare", hp1, hp2, "--bootstrap", "50", "--rounds", "99"]
    status, out, _ = run_cli([*args, "--level", "0.01"], capsys)
    assert status == 0 and "99% CI of B - A" in out and "level:0.99|" in out and "95%" not in out
    assert "(in 1 dialogue)" in out  # one dialogue, singular
    status, out, _ = run_cli([*args, "--level", "0.01", "--ci-level", "0.9"], capsys)
    assert status == 0 and "90% CI of B - A" in out and "level:0.9|" in out


def test_the_figure_table_marks_the_columns_a_profile_computed(capsys):
    status, out, _ = run_cli(["score", MUL1110, "--compat", "trade"], capsys)
    header, *_ = out.splitlines()
    marked = [label.rstrip("†") for label in header.split() if label.endswith("†")]
    (plain,) = run_json(capsys, MUL1110)
    (trade,) = run_json(capsys, MUL1110, "--compat", "trade")
    differing = {key for key in ("jga", "sa", "slot_f1") if plain[key] != trade[key]}
    assert status == 0 and set(marked) == {"JGA", "SA", "F1"} and differing  # "Slot F1" splits in two
    assert "† JGA, SA, Slot F1: computed the trade profile's way" in out
    status, out, _ = run_cli(["score", MUL1110, "--compat", "fnctod"], capsys)
    legend = out.split("(fnctod in --json)\n", 1)[1].split("\n\n", 1)[0].splitlines()[-1]
    assert legend == "JGA: joint goal accuracy; F1: mean of the turns' F1"  # only the columns the table has
