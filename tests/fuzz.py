"""Hostile mutants of the project's own fixtures, one reader at a time, and what reading them gives.

`mutants(seeds)` yields (reader, kind, name, bytes) for every reader of the registry,
`dst_metrics.readers.READERS`: its fixture (below, for the readers that need one made or a gold beside it;
JSON Lines and linearized lines are written from examples/; any other reader's is the first file of
tests/fixtures/ or examples/ that detection names it) truncated, with bytes flipped, with 100,000 ``[``
nested inside a value, re-encoded as UTF-16, with NUL bytes, with a value (a JSON string, or a field or
``slot=value`` value of lines and tables) swapped for 1e400, NaN, null, an array, …, with a key of an object
(a dialogue id, a turn id, a field) given twice, and compressed (gzip, bzip2, xz, zip) with its compressed
bytes cut or flipped, or whole around another kind's mutant. `outcome` reads one through `resolve_input`
or the command line (`main([...])`, in this process) and says how it ended: ``ok`` (a result; exit 0),
``input-error`` (one located line; exit 2) or ``other: …`` (anything else: a bug).
Used by tests/test_fuzz_inputs.py and benchmarks/fuzz_inputs.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from dst_metrics.cli import main
from dst_metrics.errors import InputError
from dst_metrics.readers.inputs import READERS, InputSpec, detect, resolve_input

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
EXAMPLES = REPO / "examples"
DEEP = 100_000
KINDS = ("truncated", "flipped", "deep", "utf16", "nul", "value", "dupkey", "compressed")
TEXT_VALUE = re.compile(rb"(?<=[=,\t]) *[^=,;\t\n\[\]()<>|\"]+")
"""A value of a format that is not JSON: a TAB-separated field, a CSV cell, a ``slot=value``'s value."""
SWAPS = (b"1e400", b"NaN", b"null", b"[1, [2]]", b"-1", b"true", b"{}", b'"\\ud800"', b"1" * 400)


def _layout_records(layout: dict) -> list[dict]:
    return [{"dialogue_id": d, "turn_id": int(t), **turn} for d, turns in layout.items() for t, turn in turns.items()]


def _examples() -> dict:
    layout: dict = {}
    for name in ("mul1110.json", "first_example_p1.json", "hypothetical_p2.json"):
        layout.update(json.loads((EXAMPLES / name).read_text(encoding="utf-8")))
    return layout


def _linearized(state: dict) -> str:
    return "; ".join(f"{slot}={value}" for slot, value in state.items() if isinstance(value, str))


def _data_json(layout: dict) -> bytes:
    """A MultiWOZ 2.1 data.json holding the gold states of a reference layout nested by domain."""
    dialogues = {}
    for dialogue_id, turns in layout.items():
        log = []
        for _, turn in sorted(turns.items(), key=lambda item: int(item[0])):
            metadata = {}
            for domain, slots in turn["gt"].items():
                semi = {s: v for s, v in slots.items() if not s.startswith("book ")}
                book = {s.removeprefix("book "): v for s, v in slots.items() if s.startswith("book ")}
                metadata[domain] = {"semi": semi, "book": {"booked": [], **book}}
            log += [{"text": "", "metadata": {}}, {"text": "", "metadata": metadata}]
        dialogues[dialogue_id] = {"goal": {}, "log": log}
    return json.dumps(dialogues, indent=1).encode()


_WRITTEN: dict[str, Path] = {}


def _written(name: str, data: bytes) -> Path:
    """`data` in a file of this process's temporary folder (written once)."""
    if name not in _WRITTEN:
        folder = Path(tempfile.mkdtemp(prefix="dst-fuzz-"))
        (folder / name).write_bytes(data)
        _WRITTEN[name] = folder / name
    return _WRITTEN[name]


def _made_fixtures() -> dict[str, tuple[bytes, str, Path | None]]:
    """The fixtures made here, or with a gold to read beside them."""
    records = _layout_records(_examples())
    jsonl = "".join(json.dumps(r) + "\n" for r in records).encode()
    tsv = "".join(
        f"{r['dialogue_id']}\t{r['turn_id']}\t{_linearized(r['gt'])}\t{_linearized(r['pr'])}\n" for r in records
    )
    convlab, trade = FIXTURES / "convlab", FIXTURES / "trade_mwzeval"
    mwzeval_gold = _written("data.json", _data_json(json.loads((trade / "reference.json").read_bytes())))
    return {
        "jsonl": (jsonl, "turns.jsonl", None),
        "trade": ((trade / "trade.json").read_bytes(), "trade.json", None),
        "mwzeval": ((trade / "mwzeval.json").read_bytes(), "mwzeval.json", mwzeval_gold),
        "multiwoz21": ((convlab / "data.json").read_bytes(), "data.json", None),  # the gold: see `outcome`
        "convlab": ((convlab / "predictions.json").read_bytes(), "predictions.json", None),
        "convlab-unified": ((convlab / "dialogues.json").read_bytes(), "dialogues.json", convlab / "data.json"),
        "sgd": (
            (FIXTURES / "sgd" / "sgd_pred" / "dialogues_001.json").read_bytes(),
            "dialogues_001.json",
            FIXTURES / "sgd" / "sgd_gold",
        ),  # fmt: skip
        "reference": ((EXAMPLES / "mul1110.json").read_bytes(), "reference.json", None),
        "linearized": (tsv.encode(), "turns.tsv", None),
        "slt2024": ((FIXTURES / "slt2024" / "results.csv").read_bytes(), "results.csv", mwzeval_gold),
        "dstc10": (
            (FIXTURES / "dstc10" / "entry.json").read_bytes(),
            "entry.json",
            FIXTURES / "dstc10" / "labels.json",
        ),
        "simmc": ((FIXTURES / "simmc" / "pred.txt").read_bytes(), "pred.txt", FIXTURES / "simmc" / "target.txt"),
    }


def _detected_fixture(reader: str) -> tuple[bytes, str, Path | None]:
    """The first file of tests/fixtures/ or examples/ (sorted) that detection names `reader`."""
    for path in sorted([*FIXTURES.rglob("*"), *EXAMPLES.iterdir()]):
        if not path.is_file() or path.stat().st_size > 1_000_000:
            continue
        data = path.read_bytes()
        try:
            if detect(data) == reader:
                return data, path.name, None
        except InputError:
            continue
    raise LookupError(f"no file of tests/fixtures/ or examples/ is detected as {reader!r}: add a sample to fuzz it")


def fixtures() -> dict[str, tuple[bytes, str, Path | None]]:
    """{reader: (the fixture's bytes, the file name to write it as, the gold to give with it or None)}
    for every registered reader (`READERS`), in the registry's order."""
    made = _made_fixtures()
    return {reader: made[reader] if reader in made else _detected_fixture(reader) for reader in READERS}


GOLD_OF_PREDICTIONS = {"multiwoz21": FIXTURES / "convlab" / "dialogues.json"}
"""Readers whose fixture is gold: the predictions it is scored with (read ``--gold`` = the mutant)."""


class _Pairs(list):
    pass


def _dumped(node: object) -> str:
    if type(node) is _Pairs:
        return "{" + ", ".join(f"{json.dumps(k)}: {_dumped(v)}" for k, v in node) + "}"
    if type(node) is list:
        return "[" + ", ".join(_dumped(v) for v in node) + "]"
    return json.dumps(node)


def _duplicated_key(data: bytes, rng: random.Random) -> bytes:
    """A key of an object within three levels given twice (the second time with another value)."""
    try:
        tree = json.loads(data, object_pairs_hook=_Pairs)
    except ValueError:  # lines: one line given twice, or a key of one line's object
        lines = data.splitlines(keepends=True)
        index = rng.randrange(len(lines))
        if lines[index].lstrip()[:1] == b"{" and rng.random() < 0.5:
            return b"".join([*lines[:index], _duplicated_key(lines[index], rng) + b"\n", *lines[index + 1 :]])
        return b"".join(lines[: index + 1] + [lines[index]] + lines[index + 1 :])
    objects, level = [], [(0, tree)]
    while level:
        depth, node = level.pop()
        if type(node) is _Pairs and node:
            objects.append((depth, node))
        children = [v for _, v in node] if type(node) is _Pairs else node if type(node) is list else []
        if depth < 3:
            level.extend((depth + 1, child) for child in children)
    depth, target = rng.choice(objects)
    key, value = rng.choice(target)
    target.insert(rng.randrange(len(target) + 1), (key, value if rng.random() < 0.5 else {}))
    return _dumped(tree).encode()


def _compressed(data: bytes, rng: random.Random) -> bytes:
    """`data` gzip-, bzip2-, xz-compressed or zipped (one member), then cut or with bytes flipped in its
    compressed bytes, or left whole with a mutant of another kind inside."""
    import bz2
    import gzip
    import lzma
    import zipfile

    way = rng.randrange(3)
    if way == 2:
        data = mutate(data, rng.choice(KINDS[:-1]), rng)
    kind = rng.choice(("gzip", "bzip2", "xz", "zip"))
    if kind == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("data.json", data)
        packed = buffer.getvalue()
    else:
        packed = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](data)
    return packed if way == 2 else mutate(packed, ("truncated", "flipped")[way], rng)


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    """One hostile mutant of `data` (see the module)."""
    if kind == "compressed":
        return _compressed(data, rng)
    if kind == "truncated":
        return data[: rng.randrange(1, len(data))]
    if kind == "flipped":
        out = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == "nul":
        at = rng.randrange(len(data))
        return data[:at] + b"\x00" * rng.randint(1, 3) + data[at:]
    if kind == "utf16":
        return data.decode("utf-8").encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be"]))
    spans = [m.span() for m in re.finditer(rb'(?<=[:\[,])\s*"[^"\\\n\t]*"', data)]  # a string value
    spans = spans or [m.span() for m in TEXT_VALUE.finditer(data)]  # lines and tables: a field or a value
    at, end = rng.choice(spans) if spans else (len(data) // 2, len(data) // 2)
    if kind == "deep":
        if data.lstrip()[:1] not in (b"{", b"["):  # lines: inside a field
            return data[:at] + b"[" * DEEP + data[at:]
        return data[:at] + b" " + b"[" * DEEP + b"]" * rng.choice([0, DEEP]) + data[end:]
    if kind == "value":
        swap = rng.choice(SWAPS)
        return data[:at] + b" " + swap + data[end:]
    if kind == "dupkey":
        return _duplicated_key(data, rng)
    raise ValueError(kind)


def mutants(seeds: range) -> Iterator[tuple[str, str, str, bytes]]:
    """(reader, kind, file name, mutant) of every reader's fixture, every kind, every seed."""
    for reader, (data, name, _) in fixtures().items():
        for kind in KINDS:
            for seed in seeds:
                rng = random.Random(f"{reader}/{kind}/{seed}")
                if kind == "utf16" and seed:
                    continue  # one UTF-16 mutant per reader and encoding is enough
                yield reader, kind, name, mutate(data, kind, rng)


def _paths(reader: str, mutant: Path) -> tuple[Path, Path | None]:
    """(predictions, gold) to read for a mutant of `reader`'s fixture."""
    if reader in GOLD_OF_PREDICTIONS:
        return GOLD_OF_PREDICTIONS[reader], mutant
    return mutant, fixtures()[reader][2]


def outcome(reader: str, mutant: Path, through: str = "door") -> str:
    """How reading `mutant` (a file holding a mutant of `reader`'s fixture) ends: ``ok``,
    ``input-error`` or ``other: …`` (see the module)."""
    predictions, gold = _paths(reader, mutant)
    if through == "door":
        try:
            resolve_input(InputSpec(predictions, gold=gold))
        except InputError as error:
            return "input-error" if "\n" not in str(error) else f"other: a message of several lines: {error!r}"
        except Exception as error:  # noqa: BLE001 - what the fuzz looks for
            return f"other: {type(error).__name__}: {error}"[:300]
        return "ok"
    err = io.StringIO()
    argv = ["score", str(predictions), "--quiet", "--json", *(["--gold", str(gold)] if gold else [])]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = main(argv)
    except BaseException as error:  # noqa: BLE001 - a traceback, or SystemExit other than 0 and 2
        return f"other: {type(error).__name__}: {error}"[:300]
    text = err.getvalue()
    if status == 0:
        return "ok"
    if status == 2 and text.startswith("dst-metrics: error: ") and text.count("\n") == 1:
        return "input-error"
    return f"other: exit {status}: {text[:200]}"


# --------------------------------------------------------------------------------------------
# Every command that reads files, on the hostile inputs


HOSTILE_READERS = ("reference", "jsonl", "trade")
"""The readers whose fixture's mutants (seed 0, every kind) every command reads: one JSON object of
dialogues, JSON Lines of turn records, a JSON array."""


def hostile_inputs() -> list[tuple[str, str, bytes]]:
    """(label, file name, bytes) of each hostile input every command is run on: the seed-0 mutant of every
    kind of `HOSTILE_READERS`' fixtures, and bytes no reader's fixture gives (a program, a zip archive,
    Latin-1 text, UTF-16 with and without a byte order mark, only white space, nothing, a bare ``[``
    100,000 deep, a JSON number, a list of non-objects)."""
    found = []
    for reader, kind, name, data in mutants(range(1)):
        if reader in HOSTILE_READERS:
            found.append((f"{reader}-{kind}", name, data))
    text = '{"d1": {"0": {"gt": {"hotel-area": "café"}, "pr": {}}}}'
    found += [
        ("elf", "run.json", b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4),
        ("zip", "run.json", b"PK\x03\x04" + bytes(200)),
        ("latin1", "run.json", text.encode("latin-1")),
        ("utf16-bom", "run.json", text.encode("utf-16")),
        ("utf16-le", "run.json", text.encode("utf-16-le")),
        ("blank", "run.json", b" \n\t\n"),
        ("empty", "run.json", b""),
        ("deep", "run.json", b"[" * DEEP),
        ("number", "run.json", b"1e400"),
        ("array-of-numbers", "run.json", b"[1, 2, 3]"),
    ]
    return found


def _dstc2_data() -> tuple[Path, Path]:
    """A small DSTC2 dataset (its root and its ontology), written once."""
    if "dstc2" not in _WRITTEN:
        from tests.fixtures.dstc2.builders import random_dataset

        data, _ = random_dataset(Path(tempfile.mkdtemp(prefix="dst-fuzz-")), 0, sessions=2)
        _WRITTEN["dstc2"] = data
    data = _WRITTEN["dstc2"]
    return data, data / "ontology.json"


def _dstc2_options() -> list[str]:
    data, ontology = _dstc2_data()
    return ["--dataset", "mini", "--dataroot", str(data), "--ontology", str(ontology)]


COMMAND_ARGV: dict[str, Callable[[str], list[str]]] = {
    "score": lambda f: ["score", f, "--quiet"],
    "generations": lambda f: ["generations", f],
    "table": lambda f: ["table", f, f, "--quiet"],
    "compare": lambda f: ["compare", f, f, "--quiet"],
    "report": lambda f: ["report", f, "--markdown", "--bootstrap", "1", "--quiet"],
    "explain": lambda f: ["explain", f],
    "analyze": lambda f: ["analyze", f],
    "check": lambda f: ["check", f],
    "calibration": lambda f: ["calibration", f],
    "checkdst": lambda f: ["checkdst", f, f],
    "sgdx": lambda f: ["sgdx", "--gold", str(FIXTURES / "sgd" / "sgd_gold"), f, f, f],
    "dstc2": lambda f: ["dstc2", *_dstc2_options(), "--trackfile", f],
    "dstc2-compare": lambda f: ["dstc2-compare", *_dstc2_options(), f, f],
}
"""Each command that reads files -> its arguments with the hostile file `f` as the file it reads."""


def command_outcome(argv: list[str], path: str) -> str:
    """How ``dst-metrics ARGV`` (in this process) ends on a hostile file at `path`: ``ok`` (exit 0),
    ``input-error`` (exit 2, one line ``dst-metrics: error: `` naming the file) or ``other: …`` (a
    traceback, another exit status, a message of several lines or without the file)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = main(argv)
    except BaseException as error:  # noqa: BLE001 - a traceback, or SystemExit other than 0 and 2
        return f"other: {type(error).__name__}: {error}"[:300]
    errors = [line for line in err.getvalue().splitlines() if not line.startswith("warning: ")]
    if status == 0:
        return "ok"
    if status == 2 and len(errors) == 1 and errors[0].startswith("dst-metrics: error: ") and path in errors[0]:
        return "input-error"
    return f"other: exit {status}: {err.getvalue()[:300]}"
