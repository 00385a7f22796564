"""``dst-metrics score`` side by side with the official GCA code, in fresh processes, on the same files.

    python benchmarks/bench_vs_official.py --official DIR [--turns 33590 201540 2015400] [--runs 3] [--compiled]

DIR is a clone of the official code (github.com/cuthalionn/Granular_Change_Accuracy: it runs
``python src/compute_accuracies.py NAME`` on every file of ``data/NAME/`` under the working folder);
it is run outside this project, never imported. The corpus is the T5 restaurant file of ../shared
(3,359 turns) repeated under new dialogue ids (as bench_core.py), one file per size. Rows, the
commands taking turns run after run (medians; max RSS of each process by ``wait4``):
  - official:              ``compute_accuracies.py`` (every figure, per-dialogue figures included);
  - ours, all cores:       ``dst-metrics score FILE --json`` (default ``--jobs``: all cores from 8 MB);
  - ours, 1 core:          the same with ``--jobs 1`` (streamed dialogue by dialogue);
  - ours, --per-dialogue:  all cores, each dialogue's figures too (what the official code always computes);
  - ours, 1 core, --per-dialogue: the same with ``--jobs 1``;
then --per-dialogue's time as a multiple of the same command without it (all cores, 1 core).
With ``--compiled`` the three rows of ours again on a copy of the package whose ``setup.py`` ``COMPILED``
modules are built with mypyc (bench_floor.py's `compiled_tree`), in the same turns.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import SOURCE, fresh_processes, write_repeated_layout  # noqa: E402
from bench_floor import compiled_tree  # noqa: E402

TURNS_PER_COPY = 3359


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--official", required=True, metavar="DIR", help="a clone of the official GCA code")
    parser.add_argument("--turns", type=int, nargs="+", default=[33590, 201540, 2015400])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--compiled", action="store_true", help="also ours with the COMPILED modules built by mypyc")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    official = str(Path(args.official).resolve())
    script = str(Path(official) / "src" / "compute_accuracies.py")
    cli = [sys.executable, "-m", "dst_metrics", "score"]
    print(f"{'turns':>10}  {'how':<32} {'seconds':>8} {'µs/turn':>8} {'RSS MB':>7} {'vs official':>12}")
    for wanted in args.turns:
        with tempfile.TemporaryDirectory() as work:
            folder = Path(work) / "data" / "bench"
            folder.mkdir(parents=True)
            path = folder / "corpus.json"
            turns = write_repeated_layout(path, max(1, round(wanted / TURNS_PER_COPY)))
            rows = {
                "official": ["python3", script, "bench"],
                "ours, all cores": [*cli, str(path), "--json"],
                "ours, 1 core": [*cli, str(path), "--json", "--jobs", "1"],
                "ours, --per-dialogue": [*cli, str(path), "--json", "--per-dialogue"],
                "ours, 1 core, --per-dialogue": [*cli, str(path), "--json", "--jobs", "1", "--per-dialogue"],
            }
            if args.compiled:  # the same commands with the compiled package first on the path
                tree = str(compiled_tree(Path(work)))
                on_tree = [sys.executable, "-c", f"import sys, runpy; sys.path.insert(0, {tree!r}); "
                           "runpy.run_module('dst_metrics', run_name='__main__')", "score"]  # fmt: skip
                for name, command in list(rows.items())[1:]:
                    rows[f"{name}, compiled"] = [*on_tree, *command[len(cli) :]]
            # the official script imports `src.gca` from its clone; a PYTHONPATH given (e.g. another checkout
            # of this project, to compare two versions) stays after it
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [official, os.environ.get("PYTHONPATH")]))}
            measured = dict(zip(rows, fresh_processes(list(rows.values()), args.runs, cwd=work, env=env)))
            official_seconds = measured["official"][0]
            for name, (median, rss) in measured.items():
                print(f"{turns:>10,}  {name:<32} {median:8.2f} {median * 1e6 / turns:8.2f} {rss:7.0f} "
                      f"{official_seconds / median:11.1f}x")  # fmt: skip
            for suffix in ("", ", compiled") if args.compiled else ("",):  # the line: at most 1.3x
                ratios = [measured[f"ours, {how}--per-dialogue{suffix}"][0] / measured[f"ours, {plain}{suffix}"][0]
                          for how, plain in (("", "all cores"), ("1 core, ", "1 core"))]  # fmt: skip
                line = f"all cores {ratios[0]:.2f}x, 1 core {ratios[1]:.2f}x"
                print(f"{turns:>10,}  --per-dialogue / plain{suffix}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
