"""Reading an input (`dst_metrics.readers.inputs`): folders, detection once, duplicate keys, objects."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from dst_metrics import score
from dst_metrics.cli import main
from dst_metrics.errors import InputError
from dst_metrics.options import OptionError
from dst_metrics.readers import inputs as inputs_module
from dst_metrics.readers import read
from dst_metrics.readers.inputs import READERS, InputSpec, resolve_input
from dst_metrics.reading import Reading
from dst_metrics.scoring.streaming import Tallying, tally_input
from tests.samples import read_side

from .fuzz import FIXTURES
from .test_parallel import random_layout
from .test_streaming import write_records

TRADE = {"MUL0003.json": {"0": {"turn_belief": ["hotel-area-north"], "pred_bs_ptr": ["hotel-area-north"]}}}


def run(capsys, *argv: str) -> tuple[int, list[dict], str]:
    status = main(["score", *argv, "--json", "--quiet"])
    captured = capsys.readouterr()
    return status, [json.loads(line) for line in captured.out.splitlines()], captured.err


def without_file(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("file", "format", "inputs")} for r in records]


@pytest.fixture
def two_files(tmp_path):
    """A folder of a.json and z.json (the reference layout) and one file holding both."""
    layout = random_layout(4, dialogues=12)
    ids = list(layout)
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps({d: layout[d] for d in ids[:5]}))
    (folder / "z.json").write_text(json.dumps({d: layout[d] for d in ids[5:]}))
    (tmp_path / "both.json").write_text(json.dumps(layout))
    return folder, tmp_path / "both.json"


@pytest.mark.parametrize("extra", [[], ["--jobs", "2"], ["--by", "domain"], ["--mode", "corrected"]])
def test_a_folder_is_one_corpus_of_every_file(two_files, capsys, extra):
    folder, both = two_files
    status, found, _ = run(capsys, str(folder) + "/", "--per-dialogue", *extra)
    assert status == 0
    status, expected, _ = run(capsys, str(both), "--per-dialogue", *extra)
    assert status == 0 and without_file(found) == without_file(expected)
    assert found[0]["turns"] == read(both).num_turns and len(found[0]["dialogues"]) == 12
    assert read(folder) == read(both)


def test_a_file_of_the_folder_that_is_not_dst_data_is_an_error_naming_it(two_files, capsys):
    folder, _ = two_files
    (folder / "zz.json").write_text("this is no dialogue data")
    status, out, err = run(capsys, str(folder))
    assert (status, out) == (2, []) and err.startswith(f"dst-metrics: error: {folder / 'zz.json'}: ")
    with pytest.raises(InputError, match="zz.json"):
        read(folder)


def test_a_dialogue_id_in_two_files_is_an_error_naming_both(two_files, capsys):
    folder, both = two_files
    first = next(iter(json.loads(both.read_text())))
    (folder / "m.jsonl").write_text(json.dumps({"dialogue_id": first, "turn_id": 0, "gt": {}, "pr": {}}) + "\n")
    for extra in ([], ["--jobs", "2"], ["--ci", "--bootstrap", "10"]):  # streamed, in processes, read whole
        status, _, err = run(capsys, str(folder), *extra)
        assert status == 2 and f'dialogue "{first}"' in err, err
        assert "a.json" in err and "m.jsonl" in err


def test_streamed_and_whole_reads_give_equal_figures_and_only_the_file_that_cannot_stream_is_read_whole(
    tmp_path,
):
    layout = random_layout(8, dialogues=15)
    ids = list(layout)
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps({d: layout[d] for d in ids[:5]}))
    write_records(folder / "b.jsonl", {d: layout[d] for d in ids[5:10]}, order=lambda r: r[::-1])
    lines = {d: layout[d] for d in ids[10:]}  # lines of a dialogue apart: this file cannot stream
    write_records(folder / "c.jsonl", lines, order=lambda r: sorted(r, key=lambda x: x["turn_id"]))
    opened = resolve_input(InputSpec(folder), stream=True)
    assert opened.corpus is None and opened.format == "jsonl+reference"
    for mode in ("official", "corrected"):
        tallies, folded = tally_input(opened, Tallying(mode, per_dialogue=True))
        total, by_dialogue = tallies.total, tallies.dialogues
        assert [f.streamed for f in folded] == [True, True, False]
        whole = score(read(folder), mode=mode, per_dialogue=True)
        assert total == whole.tally and list(by_dialogue.items()) == list(whole.dialogue_tallies.items())


def test_detection_happens_once_per_file(two_files, tmp_path, capsys, monkeypatch):
    folder, _ = two_files
    write_records(folder / "m.jsonl", random_layout(1, dialogues=2))
    (folder / "t.json").write_text(json.dumps(TRADE))
    calls = []
    real = inputs_module.detect
    monkeypatch.setattr(inputs_module, "detect", lambda data: calls.append(len(data)) or real(data))
    for extra in ([], ["--per-dialogue"], ["--by", "slot"], ["--jobs", "2"], ["--ci", "--bootstrap", "5"]):
        calls.clear()
        status, found, err = run(capsys, str(folder), *extra)
        assert status == 0, err
        assert len(calls) == 4, extra  # a.json, m.jsonl, t.json, z.json: once each
        assert found[0]["format"] == "jsonl+reference+trade"
    calls.clear()
    resolve_input(InputSpec(folder / "a.json"), stream=True).read_stream(list)
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("text", "fmt", "where"),
    [
        ('{"d": {"0": {"gt": {}, "pr": {}}}, "d": {"0": {"gt": {"a-b": "c"}, "pr": {}}}}', "reference", 'dialogue "d"'),
        (
            '{"d": {"0": {"gt": {}, "pr": {}}, "0": {"gt": {"a-b": "c"}, "pr": {}}}}',
            "reference",
            'dialogue "d", turn 0',
        ),
        ('{"d": {"0": {"gt": {}, "pr": {}, "gt": {"a-b": "c"}}}}', "reference", 'dialogue "d", turn 0, field gt'),
        (
            '{"D.json": {"0": {"turn_belief": [], "pred_bs_ptr": []}, "0": {"turn_belief": [], "pred_bs_ptr": []}}}',
            "trade",
            'dialogue "D.json", turn 0',
        ),
        ('{"d": [{"state": {}}], "d": [{"state": {}}]}', "mwzeval", 'dialogue "d"'),
        (
            '{"D.json": {"goal": {}, "log": [{"metadata": {}}, {"metadata": {}}]}, "D.json": {"goal": {}, "log": []}}',
            "multiwoz21",
            'dialogue "D.json"',
        ),
    ],
)
def test_a_key_given_twice_at_an_id_level_is_an_error(text, fmt, where, tmp_path):
    path = tmp_path / "twice.json"
    path.write_text(text)
    side = {"mwzeval": "pred", "multiwoz21": "gold"}.get(fmt)
    with pytest.raises(InputError, match="given twice") as caught:
        if side is None:
            read(path)
        else:
            read_side(path, side)
    assert str(caught.value).startswith(f"{path}, {where}:"), str(caught.value)


def test_a_dialogue_id_twice_is_an_error_on_every_path(tmp_path, capsys):
    layout = random_layout(2, dialogues=4)
    first = next(iter(layout))
    text = json.dumps(layout)
    again = json.dumps({first: layout[first]})[1:-1]
    path = tmp_path / "twice.json"
    path.write_text(text[:-1] + ", " + again + "}")
    for extra in ([], ["--jobs", "2"], ["--by", "domain"]):  # streamed, in processes, read whole
        status, _, err = run(capsys, str(path), *extra)
        assert status == 2 and f'dialogue "{first}": the dialogue id is given twice' in err, err
    assert read(text) == read(json.loads(text))  # the same text without the repeat is fine


def test_python_objects_go_through_the_door(tmp_path):
    layout = random_layout(5, dialogues=3)
    records = [{"dialogue_id": d, "turn_id": int(t), **v} for d, turns in layout.items() for t, v in turns.items()]
    assert read(layout) == read(json.dumps(layout))
    by_id = lambda corpus: sorted(corpus, key=lambda d: d.dialogue_id)  # noqa: E731 - JSON Lines sort by id
    assert by_id(read(records)) == by_id(read(json.dumps(layout)))
    assert resolve_input(InputSpec(records)).format == "jsonl"
    with pytest.raises(InputError, match="not JSON data"):
        read([{"dialogue_id": "d", "turn_id": 0, "gt": {"a-b": float("nan")}, "pr": {}}])


def test_the_input_spec_is_small_frozen_and_picklable(tmp_path):
    spec = InputSpec("x.json", "reference", name="x", reading=Reading(value_matching="normalized"))
    assert pickle.loads(pickle.dumps(spec)) == spec
    with pytest.raises(AttributeError):
        spec.format = "jsonl"  # type: ignore[misc]
    with pytest.raises(ValueError, match="format must be one of"):
        InputSpec("x.json", "xml")


def test_the_input_spec_reading_follows_its_settings_through_pickling_and_replace():
    reading = Reading(value_matching="normalized", gold_alternatives="first")
    spec = InputSpec("x.json", "reference", "g.json", reading=reading)
    assert (reading.value_matching, reading.gold_alternatives, reading.only_predicted) == ("normalized", "first", False)
    assert pickle.loads(pickle.dumps(spec)).reading == reading
    changed = msgspec.structs.replace(spec, reading=Reading(only_predicted=True))
    assert (changed.reading.value_matching, changed.reading.only_predicted) == ("exact", True)
    assert spec.reading == reading  # the original keeps its own
    with pytest.raises(OptionError, match="value_matching must be one of"):
        Reading(value_matching="loose")
    with pytest.raises(OptionError, match="only_predicted"):  # checked again on replace, as on creation
        msgspec.structs.replace(changed, gold=None)


def test_every_reading_setting_is_a_flag_a_keyword_and_where_not_the_default_a_signature_part(tmp_path, capsys):
    """`reading.READING_SETTINGS` is read from `Reading`'s declarations: each is a flag of every command that
    reads inputs, a keyword of `read()`, and (those with a key) a part of the signature where not the default."""
    from dst_metrics.cli import score as score_command
    from dst_metrics.cli.common import CommandParser
    from dst_metrics.reading import READING_SETTINGS

    assert [s.name for s in READING_SETTINGS] == ["value_matching", "prediction_states", "gold_alternatives",
                                                  "only_predicted"]  # fmt: skip
    parser = CommandParser(prog="dst-metrics score")
    score_command.add_arguments(parser)
    parsed = parser.parse_args(["x"])
    for setting in READING_SETTINGS:
        assert getattr(parsed, setting.name) is None  # unset: filled with the default when run
    layout = {"d": {"0": {"gt": {"hotel-area": ["north", "centre"]}, "pr": {"hotel-area": "centre"}}}}
    path = tmp_path / "x.json"
    path.write_text(json.dumps(layout))
    assert read(path).reading == () and read(path, gold_alternatives="first").reading == ("alts:first",)
    with pytest.raises(TypeError):
        read(path, gold_alternative="first")  # a misspelt setting is no setting
    assert main(["score", str(path), "--gold-alternatives", "first", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["jga"] == 0.0 and "alts:first" in found["signature"]
    assert main(["score", str(path), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["jga"] == 1.0 and "alts:" not in found["signature"]


def test_parallel_no_longer_imports_the_command_line():
    code = (
        "import sys, dst_metrics.scoring.parallel, dst_metrics.scoring.distributed;"
        " print('dst_metrics.command_line' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_an_invalid_json_file_says_so_and_utf16_says_so(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("hello\tthere")
    with pytest.raises(InputError, match=r"bad.json: not valid JSON at line 1, column 1"):
        read(bad)
    wide = tmp_path / "wide.json"
    wide.write_bytes(json.dumps(random_layout(1, dialogues=1)).encode("utf-16"))
    with pytest.raises(InputError, match=r"wide.json: the data is UTF-16"):
        read(wide)


def test_num_slots_names_file_dialogue_and_turn_on_every_path(tmp_path, capsys):
    layout = {
        "a": {"0": {"gt": {}, "pr": {}}},
        "b": {"0": {"gt": {}, "pr": {}}, "3": {"gt": {"x-y": "1", "x-z": "2"}, "pr": {}}},
    }
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(layout))
    records = tmp_path / "wide.jsonl"
    write_records(records, layout)
    for file, extra in ((path, []), (path, ["--by", "slot"]), (records, []), (path, ["--jobs", "2"])):
        status, _, err = run(capsys, str(file), "--num-slots", "1", *extra)
        assert status == 2, err
        assert f'{file}, dialogue "b", turn 3: num_slots (K, slots per turn for SA) is 1, but this turn has 2' in err


def test_a_one_sided_folder_of_several_files_pairs_as_one_side(tmp_path):
    gold = FIXTURES / "convlab" / "data.json"
    dialogues = json.loads((FIXTURES / "convlab" / "dialogues.json").read_text())
    folder = tmp_path / "pred"
    folder.mkdir()
    (folder / "one.json").write_text(json.dumps(dialogues[:1]))
    (folder / "two.json").write_text(json.dumps(dialogues[1:]))
    opened = resolve_input(InputSpec(folder, gold=gold))
    assert opened.format == "convlab-unified, gold multiwoz21"
    assert opened.corpus == read(FIXTURES / "convlab" / "dialogues.json", gold=gold) == read(folder, gold=gold)
    (folder / "three.json").write_text(json.dumps(dialogues[:1]))
    with pytest.raises(InputError, match=r'three.json, dialogue "MUL0003.json": the dialogue is also in .*one.json'):
        read(folder, gold=gold)


@pytest.mark.parametrize(
    "text, said",
    [("1e400", "a JSON number (too large for a float)"), ("42", "a JSON number"), ("true", "the JSON literal true"),
     ('"hotel-area=north"', "a JSON string")],
)  # fmt: skip
def test_one_json_scalar_is_named_as_json_not_as_the_closest_format(text, said):
    """Issue 23, item 7: bytes that are JSON say so, rather than "looks closest to linearized lines"."""
    with pytest.raises(InputError) as caught:
        read(text.encode())  # bytes: a string would be a path
    assert str(caught.value) == f"the data is {said}, not DST data (an object of dialogues, or turn records)"


def _junk_layout(wrong_at: int, dialogues: int = 400) -> dict:
    """A layout of `dialogues` right dialogues but the one at `wrong_at` (an array), the rest junk-sized."""
    layout = {f"d{i}": {"0": {"gt": {"hotel-area": "north"}, "pr": {"hotel-area": "north"}}} for i in range(dialogues)}
    layout[f"d{wrong_at}"] = [{"junk": list(range(50))}] * 20
    return layout


@pytest.mark.parametrize("wrong_at", [0, 3, 399])
def test_input_that_is_not_dst_data_is_refused_at_its_first_wrong_dialogue(wrong_at, tmp_path, capsys):
    path = tmp_path / "junk.json"
    path.write_text(json.dumps(_junk_layout(wrong_at)))
    status, _, err = run(capsys, str(path))
    assert status == 2
    assert err.startswith(f'dst-metrics: error: {path}, dialogue "d{wrong_at}": a dialogue must map turn ids to turns')


def test_a_key_given_twice_before_the_first_wrong_dialogue_is_named_first_and_one_after_it_is_not(tmp_path, capsys):
    text = json.dumps(_junk_layout(3))
    twice = '"d1": {"0": {"gt": {}, "pr": {}}}, '
    before = tmp_path / "before.json"
    before.write_text(text.replace('"d2": ', twice + '"d2": ', 1))
    assert run(capsys, str(before))[2].startswith(
        f'dst-metrics: error: {before}, dialogue "d1": the dialogue id is given'
    )
    after = tmp_path / "after.json"
    after.write_text(text.replace('"d6": ', twice.replace("d1", "d5") + '"d6": ', 1))
    assert run(capsys, str(after))[2].startswith(f'dst-metrics: error: {after}, dialogue "d3": a dialogue must map')


def test_a_json_array_that_no_format_reads_names_its_first_invalid_byte_or_the_closest_format(tmp_path):
    path = tmp_path / "list.json"
    path.write_bytes(b'[{"a": 1}, {"b": "caf\xe9"}]')
    with pytest.raises(InputError, match=r"list\.json: not UTF-8 text at line 1, column 22"):
        resolve_input(InputSpec(path))
    path.write_bytes(b'[{"a": 1},\n {"b": [1, 2,]}]')
    with pytest.raises(InputError, match=r"list\.json: not valid JSON at line 2, column 14: "):
        resolve_input(InputSpec(path))
    path.write_text(json.dumps([{"a": [1, {"b": "c"}]}] * 100))
    with pytest.raises(InputError, match=r"list\.json: the data looks closest to .* but it is a JSON array"):
        resolve_input(InputSpec(path))


def test_each_readers_sample_file_ends_as_it_declares_and_the_space_takes_it():
    """`Reader.suffixes` is what the Space's upload buttons take (`UPLOAD_TYPES`): the file each reader is fuzzed
    with (tests/fuzz.py) ends in one of its own suffixes, so a reader's files are never refused at upload."""
    from dst_metrics.readers import compression
    from dst_metrics.readers.inputs import SUFFIXES

    from .fuzz import fixtures

    for reader, (_, name, _) in fixtures().items():
        assert Path(name).suffix in READERS[reader].suffixes, (reader, name)
    upload_types = pytest.importorskip("dst_metrics.space.inputs", exc_type=ImportError).UPLOAD_TYPES
    assert upload_types == [*SUFFIXES, *compression.SUFFIXES] and ".csv" in upload_types


def test_undecodable_bytes_say_so_by_the_errors_kind_not_its_words():
    """`InputError.kind`: `UNDECODABLE` for bytes that are not UTF-8 or valid JSON, wherever it is located again;
    what `--format NAME` on another format's data reads (test_cli) rather than the message's text."""
    from dst_metrics.errors import UNDECODABLE

    for data in (b'{"d1": {"0": {"gt": {}, "pr": ', b'{"d1": "\xff"}', b"[" * 100_000):
        with pytest.raises(InputError) as caught:
            read(data)
        assert caught.value.kind == UNDECODABLE, caught.value
        assert caught.value.within("f.json").kind == UNDECODABLE
    with pytest.raises(InputError) as caught:
        read(b'{"d1": {"0": {"gt": 3, "pr": {}}}}')
    assert caught.value.kind == "invalid", caught.value
