"""JSON Lines turn records are scored as a stream, with the figures of reading the file whole."""

from __future__ import annotations

import json

import pytest

from dst_metrics import read, score
from dst_metrics.cli import main
from dst_metrics.core import Tally
from dst_metrics.streaming import stream_tally, streamable

from .test_parallel import random_layout


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
    drop = lambda text: {k: v for k, v in json.loads(text).items() if k not in ("file", "format")}  # noqa: E731
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
