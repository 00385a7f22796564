"""Decoding failures are located by the project's own means, whatever msgspec's version words them.

`find_json_problem` places a fault put at a known byte of valid JSON; `shape.first_mismatch` agrees with
msgspec's typed decoder on which data it rejects, and names the place where a value of the wrong kind
was put. Neither reads msgspec's message, so these hold at every msgspec version the project declares.
"""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics.cli import main
from dst_metrics.json_problems import find_json_problem
from dst_metrics.readers import sgd
from dst_metrics.readers.shape import first_mismatch

_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=6)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _KEYS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


def _string_positions(data: bytes) -> list[int]:
    """The byte offsets just inside each string's opening quote (where a fault is still inside the string)."""
    positions, inside, escaped = [], False, False
    for offset, byte in enumerate(data):
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
            positions.append(offset + 1)
    return positions


@settings(max_examples=150, deadline=None)
@given(value=_VALUES, indent=st.sampled_from([None, 1]), choice=st.integers(0, 10**6), fault=st.sampled_from(
    [b"\xff", b"\xe9", b"\xc3(", b"\x01"]))  # fmt: skip
def test_a_fault_put_inside_a_string_is_found_at_its_byte(value, indent, choice, fault):
    data = json.dumps(value, indent=indent, ensure_ascii=False).encode()
    positions = _string_positions(data)
    if not positions:
        value, data, positions = [value, ""], json.dumps([value, ""], ensure_ascii=False).encode(), [0]
        positions = _string_positions(data)
    at = positions[choice % len(positions)]
    broken = data[:at] + fault + data[at:]
    with pytest.raises(msgspec.DecodeError if fault == b"\x01" else (msgspec.DecodeError, UnicodeDecodeError)):
        msgspec.json.decode(broken)
    found = find_json_problem(broken)
    assert (found.offset, found.utf8) == (at, fault != b"\x01"), (broken, found)


@settings(max_examples=100, deadline=None)
@given(value=_VALUES, cut=st.integers(1, 10**6))
def test_a_document_cut_short_ends_where_its_last_character_is(value, cut):
    data = json.dumps({"x": value, "y": [1, 2]}).encode()
    short = data[: 1 + cut % (len(data) - 1)]
    try:
        msgspec.json.decode(short)
    except msgspec.DecodeError:
        found = find_json_problem(short)
        assert found.problem and not found.utf8
        assert found.offset <= len(short.rstrip()), (short, found)
    else:  # a prefix that is itself a document (none of these are: they open with "{")
        pytest.fail(f"{short!r} decoded")


@pytest.mark.parametrize(
    "data, offset",
    [
        (b'{"a": 1e400}', 6),  # json reads it as inf, msgspec refuses it
        (b'{"a": [1, NaN]}', 10),
        (b'{"a": -Infinity}', 6),
        (b'{"a": "\\ud800"}', 6),  # an escaped surrogate with no pair: not UTF-8 once decoded
        (b'{"b": 2} [', 9),  # more after the document
        (b'{"a": ' + b"7" * 5000 + b"}", 6),  # more digits than Python converts
        (b'{"caf\xc3\xa9": {"k": "\xed\xa0\x80"}}', 17),  # an encoded surrogate: not UTF-8
    ],
)
def test_what_python_json_accepts_and_msgspec_refuses_is_located(data, offset):
    with pytest.raises((msgspec.DecodeError, UnicodeDecodeError)):
        msgspec.json.decode(data)
    found = find_json_problem(data)
    assert found.problem and found.offset == offset, found


def test_valid_json_has_no_problem():
    data = json.dumps({"a": ["\U0001f600", 1.5e300, -(10**40)], "b": None}, ensure_ascii=False).encode()
    assert msgspec.json.decode(data) and find_json_problem(data).problem == ""


def test_the_issue_example_names_line_and_column_in_score_and_in_generations(tmp_path, capsys):
    path = tmp_path / "list.json"
    path.write_bytes(b'[{"a": 1}, {"b": "caf\xe9"}]')
    assert main(["score", str(path)]) == 2
    assert capsys.readouterr().err.strip().endswith("list.json: not UTF-8 text at line 1, column 22")
    lines = tmp_path / "generations.jsonl"
    lines.write_bytes(b'{"dialogue_id": "d", "turn_id": 0, "text": "ok"}\n{"dialogue_id": "d", "text": "caf\xe9"}\n')
    assert main(["generations", str(lines)]) == 2
    assert capsys.readouterr().err.strip().endswith("generations.jsonl:2: not UTF-8 text at column 34")


# The SGD reader's typed decoders, against data with one value replaced by one of another kind.
_SGD_DIALOGUE = {
    "dialogue_id": "1_00000",
    "services": ["Hotels_1"],
    "turns": [
        {"speaker": "USER", "utterance": "hi", "frames": [
            {"service": "Hotels_1", "slots": [{"slot": "city", "start": 0, "exclusive_end": 2}],
             "state": {"active_intent": "Find", "requested_slots": [], "slot_values": {"city": ["Paris"]}}}]},
        {"speaker": "SYSTEM", "utterance": "ok", "frames": []},
    ],
}  # fmt: skip


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _replaced(value, path, new):
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return copy


def _rejected(decoder: msgspec.json.Decoder, value) -> bool:
    try:
        decoder.decode(msgspec.json.encode(value))
    except msgspec.ValidationError:
        return True
    return False


@pytest.mark.parametrize("new", [None, 3, "x", [], {}, ["a"], True, 2.5])
@pytest.mark.parametrize("part", ["dialogues", "frames"])
def test_shape_rejects_exactly_what_msgspec_rejects_and_names_where(part, new):
    decoder, whole = (sgd._DIALOGUES, [_SGD_DIALOGUE]) if part == "dialogues" else (
        sgd._DECODED_FRAMES, _SGD_DIALOGUE["turns"][0]["frames"])  # fmt: skip
    assert first_mismatch(decoder, whole) is None and not _rejected(decoder, whole)
    rejections = 0
    for path in _paths(whole):
        value = _replaced(whole, path, new)
        found = first_mismatch(decoder, value)
        assert _rejected(decoder, value) == (found is not None), (path, new, found)
        if found is not None:
            rejections += 1
            assert found.path[: len(path)] == path or found.missing is not None, (path, new, found)
    assert rejections > 0
