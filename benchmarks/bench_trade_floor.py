"""How fast could anything score TRADE's file? The floor under issue 22's 3x target for TRADE's `evaluate_metrics`.

    python benchmarks/bench_trade_floor.py [--repeat 20] [--runs 9] [--compiled]

On the file `bench_peers.py` gives TRADE (the T5 restaurant file x20: 67,180 turns, TRADE's
``{dialogue: {turn: {"turn_belief", "pred_bs_ptr"}}}`` of ``domain-slot-value`` strings), in this process,
the collector paused, medians of --runs:

  - decode only:   msgspec's typed decoding of the file into lists of strings (the fastest decoder here);
  - TRADE alone:   that decoding and TRADE's three figures (JGA, SA with K = 30, mean F1) computed from the
                   strings as TRADE computes them: no check of ids or values, none of our figures; what a
                   scorer that does only what TRADE does costs with the fastest decoder;
  - TRADE alone, compiled (--compiled): the same function built with mypyc (into a temporary folder);
  - ours:          ``dst-metrics score FILE --format trade --compat trade --json`` in this process (reading,
                   validation, every figure of ours, TRADE's), one process.

The three figures of "TRADE alone" are checked against ours (``--compat trade``) before any timing. Compare
with the "peer s" of `bench_peers.py --trade DIR`: 3x faster than the peer means its time divided by 3.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import median_seconds, repeated_source  # noqa: E402
from bench_readers import write_trade  # noqa: E402

FLOOR_MODULE = '''
import msgspec


class Turn(msgspec.Struct):
    turn_belief: list[str]
    pred_bs_ptr: list[str]


DECODER = msgspec.json.Decoder(dict[str, dict[str, Turn]])


def decode_only(data: bytes) -> int:
    return len(DECODER.decode(data))


def trade_alone(data: bytes, k: int) -> tuple[float, float, float]:
    """(JGA, SA, F1) as TRADE's evaluate_metrics computes them, from the file's bytes."""
    dialogues: dict[str, dict[str, Turn]] = DECODER.decode(data)
    turns = 0
    joint = 0
    errors = 0
    f1 = 0.0
    for turns_of_dialogue in dialogues.values():
        for turn in turns_of_dialogue.values():
            gold: set[str] = set(turn.turn_belief)
            pred: set[str] = set(turn.pred_bs_ptr)
            turns += 1
            if gold == pred:
                joint += 1
                f1 += 1.0
                continue
            missed = gold - pred
            missed_slots = {item.rsplit("-", 1)[0] for item in missed}
            wrong = 0
            for item in pred - gold:
                if item.rsplit("-", 1)[0] not in missed_slots:
                    wrong += 1
            errors += len(missed) + wrong
            if gold:
                hits = len(gold & pred)
                precision = hits / len(pred) if pred else 0.0
                recall = hits / len(gold)
                f1 += 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return joint / turns, (turns * k - errors) / (turns * k), f1 / turns
'''


def load(folder: Path, compiled: bool):
    """The floor module written to `folder`, imported (built with mypyc first when `compiled`)."""
    folder.mkdir()
    source = folder / "trade_floor.py"
    source.write_text(FLOOR_MODULE)
    if compiled:
        built = subprocess.run(["mypyc", source.name], cwd=folder, capture_output=True, text=True)
        if built.returncode:
            raise SystemExit(f"mypyc failed: {built.stdout[-2000:]}{built.stderr[-2000:]}")
        source.unlink()  # import the extension, not the source
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.find_spec("trade_floor")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module


def ours(path: Path) -> dict:
    from dst_metrics.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["score", str(path), "--format", "trade", "--compat", "trade", "--json"])  # one process
    if status:
        raise SystemExit(f"dst-metrics score failed ({status})")
    return json.loads(out.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="copies of the restaurant file (20: 67,180 turns)")
    parser.add_argument("--runs", type=int, default=9, help="timed runs of each; the median is printed")
    parser.add_argument("--compiled", action="store_true", help="also time the floor built with mypyc")
    args = parser.parse_args()
    data = repeated_source(args.repeat)
    if data is None:
        return 0
    turns = sum(len(t) for t in data.values())
    if args.compiled and shutil.which("mypyc") is None:
        raise SystemExit("--compiled needs mypyc (pip install mypy)")
    with tempfile.TemporaryDirectory() as temp:
        path = write_trade(data, Path(temp))
        raw = path.read_bytes()
        expected = ours(path)  # also imports our modules before the timings
        floors = [("TRADE alone", load(Path(temp) / "pure", False))]
        if args.compiled:
            floors.append(("TRADE alone, compiled", load(Path(temp) / "compiled", True)))
        for name, module in floors:
            got = module.trade_alone(raw, 30)
            want = (expected["jga"], expected["sa"], expected["slot_f1"])
            if any(abs(a - b) > 1e-12 for a, b in zip(got, want)):
                raise SystemExit(f"{name} gives {got}, ours {want}: not TRADE's figures")
        rows = []
        gc.disable()
        try:
            rows.append(("decode only (msgspec)", median_seconds(lambda: floors[0][1].decode_only(raw), args.runs)))
            for name, module in floors:
                rows.append((name, median_seconds(lambda module=module: module.trade_alone(raw, 30), args.runs)))
        finally:
            gc.enable()
        rows.append(("ours: score --compat trade, one process", median_seconds(lambda: ours(path), args.runs)))
    print(f"{turns:,} turns, {len(raw) / 1e6:.1f} MB; median of {args.runs} runs, in this process")
    for name, seconds in rows:
        print(f"  {name:42} {seconds:7.3f} s  {seconds / turns * 1e6:6.2f} µs/turn")
    print("3x faster than TRADE's evaluate_metrics: its 'peer s' from bench_peers.py --trade DIR, divided by 3")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
