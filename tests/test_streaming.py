"""JSON Lines turn records are scored as a stream, with the figures of reading the file whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import read, score
from dst_metrics.cli import main
from dst_metrics.core.tally import Tally, tally_dialogue
from dst_metrics.corpus import CorpusBuilder
from dst_metrics.errors import InputError
from dst_metrics.readers import InputFile
from dst_metrics.readers.inputs import STREAMED_FORMATS, resolve, stream_file
from dst_metrics.scoring.streaming import Tallying, _in_reading_order

from .test_parallel import random_layout

REFERENCE_SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mul1110.json"


# Streaming one file, as `streaming.tally_input` does, for the tests here and test_compiled.py


def streamable(path: str, format: str = "auto") -> str | None:
    """The format `path` (one file) is streamed as (`STREAMED_FORMATS`: given, or detected), or None."""
    try:
        shards = resolve(path, format)
    except InputError:
        return None
    if len(shards) != 1 or shards[0].path is None or not shards[0].path.is_file():
        return None
    return shards[0].format if shards[0].format in STREAMED_FORMATS else None


def stream_tally(
    path: str,
    *,
    value_matching: str,
    mode: str,
    per_dialogue: bool = False,
    format: str = "jsonl",
    dialogue_ids: list[str] | None = None,
    share: tuple[int, int] | None = None,
) -> tuple[Tally, dict[str, Tally]] | None:
    """(corpus tally, each dialogue's tally in the order reading whole gives) of the file `path` in
    `format` (`STREAMED_FORMATS`), streamed; None when it must be read whole (see the module).
    `dialogue_ids`, if given, receives the dialogues' ids in file order. With `share` (k, n; reference
    layout only), only the dialogues at positions k modulo n are built and tallied."""
    if share is not None and format != "reference":
        raise ValueError("a share of the dialogues is streamed from the reference layout only")
    tallying = Tallying(mode, per_dialogue)
    found = stream_file(InputFile(format, path, path=Path(path)), tallying, value_matching, share)
    if found is None:
        return None
    if dialogue_ids is not None:
        dialogue_ids.extend(found.dialogue_ids)
    tallies = _in_reading_order(found)
    return tallies.total, tallies.dialogues


def write_records(path, layout: dict, order=None) -> None:
    records = [
        {"dialogue_id": d, "turn_id": int(t), "gt": turn["gt"], "pr": turn["pr"]}
        for d, turns in layout.items()
        for t, turn in turns.items()
    ]
    if order is not None:
        records = order(records)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_streamed_tallies_equal_reading_whole(seed, mode, tmp_path):
    path = tmp_path / "turns.jsonl"
    write_records(path, random_layout(seed, dialogues=5 + 10 * seed), order=lambda r: r[::-1])  # turns reversed
    assert streamable(str(path))
    whole = score(read(path), mode=mode, per_dialogue=True)
    streamed = stream_tally(str(path), value_matching="exact", mode=mode, per_dialogue=True)
    assert streamed is not None
    assert streamed[0] == whole.tally
    assert list(streamed[1].items()) == list(whole.dialogue_tallies.items())  # same tallies, same (id) order


def test_lines_of_a_dialogue_apart_or_bad_lines_are_read_whole(tmp_path, capsys):
    layout = random_layout(5, dialogues=4)
    apart = tmp_path / "apart.jsonl"
    write_records(apart, layout, order=lambda r: sorted(r, key=lambda x: x["turn_id"]))  # dialogues interleaved
    assert stream_tally(str(apart), value_matching="exact", mode="official") is None
    assert main(["score", str(apart), "--json"]) == 0  # read whole: lines in any order are fine
    (record,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert record["gca"] == score(read(apart)).scores.gca
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"dialogue_id": "a", "turn_id": 0, "gt": {}, "pr": {}}\n{"dialogue_id": "a", "turn_id": 0, "gt": {}}\n'
    )
    assert stream_tally(str(bad), value_matching="exact", mode="official") is None
    assert main(["score", str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err  # the whole-file reader names the line


def test_the_command_line_streams_with_the_same_output(tmp_path, capsys):
    path = tmp_path / "turns.jsonl"
    layout = random_layout(9, dialogues=12)
    write_records(path, layout)
    assert main(["score", str(path), "--json", "--per-dialogue"]) == 0
    streamed = capsys.readouterr().out
    reference = tmp_path / "layout.json"
    reference.write_text(json.dumps(layout))
    assert main(["score", str(reference), "--json", "--per-dialogue"]) == 0
    whole = capsys.readouterr().out
    drop = lambda text: {k: v for k, v in json.loads(text).items() if k not in ("file", "format", "inputs")}  # noqa: E731
    assert drop(streamed) == drop(whole) and json.loads(streamed)["format"] == "jsonl"


@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_the_reference_layout_streams_dialogue_by_dialogue_with_the_figures_of_reading_whole(mode, tmp_path):
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(random_layout(11, dialogues=25)))
    assert streamable(str(path)) == "reference"
    whole = score(read(path), mode=mode, per_dialogue=True)
    streamed = stream_tally(str(path), value_matching="exact", mode=mode, per_dialogue=True, format="reference")
    assert streamed is not None and streamed[0] == whole.tally
    assert list(streamed[1].items()) == list(whole.dialogue_tallies.items())  # file order, as read whole
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": {"0": {"gt": {}, "pr": {}}}, "b": {"0": {"gt": {}}}}')
    assert stream_tally(str(bad), value_matching="exact", mode=mode, format="reference") is None  # read whole


@pytest.mark.parametrize("n", [2, 3, 5])
def test_shares_of_the_layout_add_up_to_the_whole(tmp_path, n):
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(random_layout(3, dialogues=23)))
    whole, by_dialogue = stream_tally(str(path), value_matching="exact", mode="official", per_dialogue=True,
                                      format="reference")  # fmt: skip
    total, placed = Tally(), {}
    for k in range(n):
        ids: list[str] = []
        found = stream_tally(str(path), value_matching="exact", mode="official", per_dialogue=True,
                             format="reference", dialogue_ids=ids, share=(k, n))  # fmt: skip
        assert found is not None and list(found[1]) == ids
        total = total + found[0]
        placed.update({k + n * i: dialogue_id for i, dialogue_id in enumerate(ids)})
        assert all(found[1][d] == by_dialogue[d] for d in ids)
    assert total == whole
    assert [placed[position] for position in sorted(placed)] == list(by_dialogue)  # positions in file order
    with pytest.raises(ValueError):
        stream_tally(str(path), value_matching="exact", mode="official", format="jsonl", share=(0, 2))


_VALUES = st.one_of(st.sampled_from(["north", "none", "", "guest-house", "2"]), st.integers(-2, 3), st.none(),
                    st.lists(st.sampled_from(["north", "south"]), max_size=2))  # fmt: skip
_INNER = st.dictionaries(st.sampled_from(["area", "name", "value", "score"]), _VALUES, max_size=3)
_STATES = st.one_of(
    st.dictionaries(st.sampled_from(["hotel", "taxi"]), _INNER, max_size=2),  # nested
    st.dictionaries(st.sampled_from(["hotel-area", "hotel-name", "taxi"]), _VALUES, max_size=3),  # flat
    st.dictionaries(st.sampled_from(["hotel", "hotel-area"]), st.one_of(_INNER, _VALUES), max_size=2),  # mixed
    st.sampled_from([[], "hotel-area=north", 3]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(range(4)), _STATES, _STATES), min_size=1, max_size=6))
def test_raw_json_states_build_as_their_decoded_objects(turns):
    # `CorpusBuilder` takes undecoded JSON (msgspec.Raw) through a one-loop path for states of strings and
    # anything else through the general one; either way the dialogue, or the error, is that of the objects.
    golds = [gold for _, gold, _ in turns]
    preds = [turns[0][1] if i % 3 == 2 else pred for i, (_, _, pred) in enumerate(turns)]  # some equal gold
    turn_ids = list(range(len(turns)))
    raw = lambda states: [msgspec.Raw(json.dumps(state).encode()) for state in states]  # noqa: E731
    outcomes = []
    for golds_in, preds_in in ((golds, preds), (raw(golds), raw(preds))):
        builder = CorpusBuilder("exact")
        try:
            builder.add("d", turn_ids, golds_in, preds_in)
        except InputError as error:
            outcomes.append(str(error))
            continue
        (dialogue,) = builder.corpus().dialogues
        tallies = [tally_dialogue(dialogue, mode) for mode in ("official", "corrected")]
        outcomes.append((dialogue, tallies))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("fmt", ["reference", "jsonl"])
def test_a_file_with_a_byte_order_mark_streams_with_the_figures_of_reading_whole(fmt, tmp_path):
    # the mark is skipped as reading whole skips it: the file streams (read once), not read again whole
    layout = random_layout(5, dialogues=12)
    path = tmp_path / f"bom.{'json' if fmt == 'reference' else 'jsonl'}"
    if fmt == "reference":
        path.write_text(json.dumps(layout))
    else:
        write_records(path, layout)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    whole = score(read(path), per_dialogue=True)
    streamed = stream_tally(str(path), value_matching="exact", mode="official", per_dialogue=True, format=fmt)
    assert streamed is not None and streamed[0] == whole.tally
    assert list(streamed[1].items()) == list(whole.dialogue_tallies.items())


@pytest.mark.parametrize("keys", [["0", "1", "2"], ["2", "0", "1"], ["03", "1"], ["+3", "1"], ["1", "01"], ["-1", "0"]])
def test_turn_ids_of_the_layout_stream_as_read_whole(keys, tmp_path):
    # digit strings decode straight to ints; any other id ("03", "+3") takes the general path: the same ids,
    # the same order and the same errors ("1" and "01" are one turn id used twice)
    path = tmp_path / "layout.json"
    turns = {key: {"gt": {"hotel-area": f"v{i}"}, "pr": {"hotel-area": "v0"}} for i, key in enumerate(keys)}
    path.write_text(json.dumps({"d": turns}))
    try:
        whole = score(read(path), per_dialogue=True).tally
    except InputError:
        whole = None
    streamed = stream_tally(str(path), value_matching="exact", mode="official", format="reference")
    assert (streamed and streamed[0]) == whole


def test_score_imports_no_fuzzy_matcher_report_or_process_pool():
    # `dst-metrics score` on a small file needs none of them (each was imported on every run: ~60 ms)
    code = (
        "import sys\nfrom dst_metrics.cli import main\n"
        f"main(['score', {str(REFERENCE_SAMPLE)!r}, '--json', '--quiet'])\n"
        "print(sorted(m for m in ('rapidfuzz', 'dst_metrics.report', 'multiprocessing', 'concurrent.futures',"
        " 'logging', 'dst_metrics.stats') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert '"gca"' in result.stdout and result.stdout.splitlines()[-1] == "[]"


# Each input is read once: to score it, streamed; with --calibration, whole


def _counting_reads(monkeypatch, path: Path, log: Path) -> None:
    """Every open of `path` (by `open`, `io.open` or pathlib) appends how far into the file it read to
    `log`: one line per open, written with `os.write`, so that forked workers' reads are counted too."""
    import builtins
    import io
    import os

    real_open = io.open
    target = os.path.realpath(path)

    class Counted:
        def __init__(self, handle):
            self.handle, self.position, self.count = handle, 0, 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

        def close(self):
            if self.handle is not None:
                self.handle.close()
                self.handle = None
                fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                os.write(fd, f"{self.count}\n".encode())
                os.close(fd)

        def read(self, size=-1):
            data = self.handle.read(size)
            self._advance(len(data))
            return data

        def _advance(self, read: int) -> None:
            self.position += read
            self.count = max(self.count, self.position)

        def seek(self, offset, whence=0):
            self.position = self.handle.seek(offset, whence)
            return self.position

        def __iter__(self):
            for line in self.handle:
                self._advance(len(line))
                yield line

    def counted_open(file, *args, **kwargs):
        handle = real_open(file, *args, **kwargs)
        is_target = isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == target
        return Counted(handle) if is_target else handle

    monkeypatch.setattr(builtins, "open", counted_open)
    monkeypatch.setattr(io, "open", counted_open)


def _written(stem: Path, dialogues: dict, layout: str) -> Path:
    """`dialogues` ({id: {turn: record}}) written in the reference layout or as JSON Lines."""
    if layout == "reference":
        path = stem.with_suffix(".json")
        path.write_text(json.dumps(dialogues))
        return path
    path = stem.with_suffix(".jsonl")
    records = [
        {"dialogue_id": dialogue, "turn_id": int(turn), **record}
        for dialogue, turns in dialogues.items()
        for turn, record in turns.items()
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("layout", ["reference", "jsonl"])
def test_score_json_reads_an_input_with_confidences_once(capsys, monkeypatch, tmp_path, jobs, layout):
    # a streamed input (or one scored in processes) with confidences is opened twice, its first 64 KiB to
    # detect the format and all of it once, and holds no block; with --calibration it is read whole, the
    # same way, once, and the block is `calibration --json`'s
    from dst_metrics.readers.inputs import HEAD_BYTES

    example = json.loads((REFERENCE_SAMPLE.parent / "confidences.json").read_text())
    copies = {f"{dialogue}#{copy}": turns for copy in range(200) for dialogue, turns in example.items()}
    path = _written(tmp_path / "confidences", copies, layout)
    size = path.stat().st_size
    assert size > 2 * HEAD_BYTES
    assert main(["calibration", str(path), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    log = tmp_path / "reads.log"
    _counting_reads(monkeypatch, path, log)
    assert main(["score", str(path), "--json", "--jobs", jobs]) == 0
    assert "calibration" not in json.loads(capsys.readouterr().out)
    # and once more, whole, for the sha256 of its entry in `inputs` (`cli.json_output`)
    assert sorted(int(line) for line in log.read_text().split()) == [HEAD_BYTES, size, size]
    log.unlink()
    assert main(["score", str(path), "--json", "--calibration"]) == 0
    found = json.loads(capsys.readouterr().out)["calibration"]
    assert sorted(int(line) for line in log.read_text().split()) == [HEAD_BYTES, size, size]
    drop = ("schema", "inputs", "file", "format", "signature")
    assert {k: v for k, v in found.items() if k != "signature"} == {k: v for k, v in expected.items() if k not in drop}


@pytest.mark.parametrize("layout", ["reference", "jsonl", "two files"])
def test_score_calibration_of_a_confidence_first_met_after_the_first_dialogue(capsys, tmp_path, layout):
    # a confidence met after the first dialogue (or in another file of the input) gets the block of
    # `calibration --json`; scored without it, the input streams and its figures are the whole read's
    example = json.loads((REFERENCE_SAMPLE.parent / "confidences.json").read_text())
    plain = {turn: {"gt": record["gt"], "pr": record["gt"]} for turn, record in example["conf-1"].items()}
    scored = {f"b-{dialogue}": turns for dialogue, turns in example.items()}
    if layout == "two files":  # one input: a folder of JSON Lines shards, the first without confidences
        path = tmp_path / "shards"
        path.mkdir()
        _written(path / "a_part", {"a-plain": plain}, "jsonl")
        _written(path / "b_part", scored, "jsonl")
    else:
        path = _written(tmp_path / "late", {"a-plain": plain, **scored}, layout)
    assert main(["calibration", str(path), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert expected["turns"] == 3 + 5  # the plain dialogue's turns are calibrated too (as certain)
    assert main(["score", str(path), "--json", "--jobs", "1"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    assert main(["score", str(path), "--json", "--calibration"]) == 0
    whole = json.loads(capsys.readouterr().out)
    drop = ("schema", "inputs", "file", "format", "signature")
    found = whole.pop("calibration")
    assert {k: v for k, v in found.items() if k != "signature"} == {k: v for k, v in expected.items() if k not in drop}
    assert whole.pop("signature") == streamed.pop("signature") + "|calibration|bins:10|slt2024|bins:10"
    assert whole == streamed  # the file's own figures: the same, streamed or read whole
