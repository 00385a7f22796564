"""Where one core's time goes in ``dst-metrics score``, stage by stage, against the official GCA code.

    python benchmarks/bench_floor.py [--turns 201540] [--runs 5] [--official DIR] [--compiled]

Each stage runs in a fresh process and does the work of the stages above it plus its own, with this
project's own code (the collector paused, as ``score`` runs), so the increments show what each part
costs and the cumulative time what any scorer doing that much work in Python pays at least:

  1. the interpreter alone;
  2. + start-up of the score command (imports, the argument parser);
  3. + reading the file: one undecoded slice per turn side (`readers.reference.layout_dialogues`);
  4. + building the states: each changed state decoded and flattened (`CorpusBuilder`);
  5. + the one diff per changed side (`core.advance_side`), nothing counted;
  6. ``dst-metrics score FILE --jobs 1 --json``: every figure (counts, turn figures, FGA, output).

With ``--compiled`` the core is also compiled with mypyc (``setup.py``, ``DST_METRICS_COMPILE=1``, into a
temporary copy of the package; needs mypy and a C compiler) and the diff stage and the whole command run
again with it: the pure-Python rows stay the reference.

With ``--official DIR`` (a clone of github.com/cuthalionn/Granular_Change_Accuracy, run outside the
project as in bench_vs_official.py) the official script runs in turn with them and each line also
shows official / time: the issue's "10x on one core" is a line at official / 10.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import SOURCE, fresh_processes, write_repeated_layout  # noqa: E402

TURNS_PER_COPY = 3359

_START = (
    "import gc; gc.disable()\nfrom dst_metrics.cli import common, score\n"
    "score.add_arguments(common.CommandParser(prog='dst-metrics score'))\n"
)
_READ = (
    "from pathlib import Path\nfrom dst_metrics.readers.reference import layout_dialogues\n"
    "dialogues = layout_dialogues(Path(PATH).read_bytes(), PATH)\n"
)
_BUILD = (
    "from dst_metrics.corpus import CorpusBuilder\nbuilder = CorpusBuilder('exact')\n"
    "def built():\n    for d in dialogues:\n        builder.add(*d)\n        yield builder.dialogues.pop()\n"
)
_DIFF = (
    "from dst_metrics.core.tally import advance_side\n"
    "for dialogue in built():\n"
    "    for states in (dialogue.gold, dialogue.pred):\n"
    "        previous, prior, hyphen = None, {}, False\n"
    "        for state in states:\n"
    "            if state is not previous:\n"
    "                _, prior, _, hyphen = advance_side(state, prior, True, hyphen)\n"
    "                previous = state\n"
)
STAGES = {
    "interpreter": "pass\n",
    "+ start-up (imports, parser)": _START,
    "+ read (a slice per turn side)": _START + _READ + "for _ in dialogues:\n    pass\n",
    "+ build (decode, flatten states)": _START + _READ + _BUILD + "for _ in built():\n    pass\n",
    "+ diff (advance_side only)": _START + _READ + _BUILD + _DIFF,
}


def _program(code: str, path: Path) -> str:
    """`code` as the body of a function (local names, as the library's own loops use), run on `path`."""
    body = "".join(f"    {line}\n" for line in code.splitlines())
    return f"def stage(PATH):\n{body}\nstage({str(path)!r})\n"


REPO = Path(__file__).resolve().parents[1]


def compiled_tree(work: Path) -> Path:
    """A copy of the package with its core compiled by mypyc (the build's own setup.py)."""
    tree = work / "compiled"
    shutil.copytree(REPO / "dst_metrics", tree / "dst_metrics", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "setup.py", tree / "setup.py")
    env = {**os.environ, "DST_METRICS_COMPILE": "1"}
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tree, env=env, check=True,
                   capture_output=True)  # fmt: skip
    return tree


def _on_tree(tree: Path, program: str) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tree)!r})\n{program}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=201540)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--official", metavar="DIR", help="a clone of the official GCA code")
    parser.add_argument("--compiled", action="store_true", help="also with the core compiled by mypyc")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "data" / "bench"
        folder.mkdir(parents=True)
        path = folder / "corpus.json"
        turns = write_repeated_layout(path, max(1, round(args.turns / TURNS_PER_COPY)))
        rows = {name: [sys.executable, "-c", _program(code, path)] for name, code in STAGES.items()}
        rows["score --jobs 1 --json (everything)"] = [sys.executable, "-m", "dst_metrics", "score", str(path),
                                                     "--json", "--jobs", "1"]  # fmt: skip
        if args.compiled:
            tree = compiled_tree(Path(work))
            diff = _program(_START + _READ + _BUILD + _DIFF, path)
            rows["+ diff, compiled core"] = _on_tree(tree, diff)
            run = f"from dst_metrics.cli import main\nmain(['score', {str(path)!r}, '--json', '--jobs', '1'])"
            rows["score --jobs 1 --json, compiled core"] = _on_tree(tree, run)
        env = dict(os.environ, PYTHONPATH=str(REPO))  # this clone's package, whatever is installed
        if args.official:
            official = str(Path(args.official).resolve())
            script = str(Path(official) / "src" / "compute_accuracies.py")
            rows["official compute_accuracies.py"] = [sys.executable, script, "bench"]
            env["PYTHONPATH"] = os.pathsep.join([official, str(REPO)])  # the official script imports `src.gca`
        measured = dict(zip(rows, fresh_processes(list(rows.values()), args.runs, cwd=work, env=env)))
    official_seconds = measured.get("official compute_accuracies.py", (None,))[0]
    print(f"{turns:,} turns, {args.runs} runs each, fresh processes taking turns; medians")
    print(f"{'stage':<38} {'seconds':>8} {'added':>7} {'µs/turn':>8} {'RSS MB':>7} {'official /':>10}")
    before = 0.0
    for name, (seconds, rss) in measured.items():
        added = "" if name.startswith(("score", "official")) or "compiled" in name else f"{seconds - before:7.2f}"
        ratio = f"{official_seconds / seconds:9.1f}x" if official_seconds else ""
        print(f"{name:<38} {seconds:8.2f} {added:>7} {seconds * 1e6 / turns:8.2f} {rss:7.0f} {ratio:>10}")
        before = seconds
    if official_seconds:
        print(f"10x the official code on one core means at most {official_seconds / 10:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
