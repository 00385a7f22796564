"""Speed and memory of the DSTC2 scorer on the 100-dialogue sample repeated to >= 1,000 dialogues.

    python benchmarks/bench_dstc2.py [--repeat 10] [--runs 3] [--official DIR]

The sample (../shared/data/dstc2, 100 dialogues, 732 turns) is repeated --repeat times: a temporary
data root holds one symbolic link per copy and session, the flist names every copy, and the track file
(the baseline tracker's output, ../shared/reference/dstc2) repeats its sessions. Prints µs per turn
(median of --runs) for:
  - end to end:    read the flist, log.json/label.json, ontology and track file; check the track file;
                   score every row; write the CSV text (what ``dst-metrics dstc2`` does, in process:
                   `pipeline.score_files`, all cores from 200 sessions up); also with one process;
  - read data:     the sessions alone (decoding only the fields the scorer reads);
  - check + score: the same from data already read;
  - CLI:           ``python -m dst_metrics dstc2 ... --scorefile`` in a fresh process (startup included);
  - official:      with --official DIR, the official score.py (a Python 3 port under DIR, see
                   docs/dstc2.md) in a fresh process on the same files;
and peak memory (tracemalloc peak of end to end in process; max RSS of each fresh process).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import fresh_processes, median_seconds  # noqa: E402  (the benchmarks' timing functions)

from dst_metrics._gc import without_gc  # noqa: E402
from dst_metrics.dstc2.check import check_track  # noqa: E402
from dst_metrics.dstc2.data import read_ontology, read_sessions, read_track  # noqa: E402
from dst_metrics.dstc2.output import csv_text  # noqa: E402
from dst_metrics.dstc2.pipeline import score_files  # noqa: E402
from dst_metrics.dstc2.scorer import score  # noqa: E402

SHARED = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data" / "dstc2"
TRACK = SHARED / "reference" / "dstc2" / "baseline.track.json"
DATASET = "dstc2_bench"


def repeated_dataset(root: Path, repeat: int) -> tuple[Path, Path, Path]:
    """Data root, flist and track file of the sample repeated `repeat` times (links, not copies)."""
    sessions = [line.strip() for line in (DATA / "dstc2_data.flist").read_text().splitlines() if line.strip()]
    lines = []
    for copy in range(repeat):
        for relative in sessions:
            link = root / f"copy{copy}" / relative
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(DATA / relative, target_is_directory=True)
            lines.append(f"copy{copy}/{relative}")
    flist = root / f"{DATASET}.flist"
    flist.write_text("\n".join(lines) + "\n")
    track = json.loads(TRACK.read_text())
    track["sessions"] = track["sessions"] * repeat
    track["dataset"] = DATASET
    track_path = root / "track.json"
    track_path.write_text(json.dumps(track))
    return root, flist, track_path


@without_gc  # as the command line runs
def end_to_end(root: Path, flist: Path, track_path: Path, jobs: int | None = None) -> str:
    ontology = read_ontology(str(DATA / "ontology_dstc2.json"))
    scores, _ = score_files(str(root), str(flist), str(track_path), ontology, DATASET, jobs=jobs)
    return csv_text(scores)


def _official(args: argparse.Namespace, root: Path, flist: Path, track_path: Path, out: Path) -> list[str]:
    config = Path(args.official) / "config"
    (config / f"{DATASET}.flist").write_text(flist.read_text())
    ontology = str(DATA / "ontology_dstc2.json")
    script = str(Path(args.official) / "score.py")
    return ["python3", script, "--dataset", DATASET, "--dataroot", str(root), "--trackfile", str(track_path)] + [
        "--scorefile",
        str(out),
        "--ontology",
        ontology,
    ]


def _in_process(root: Path, flist: Path, track_path: Path, runs: int) -> list[tuple[str, float]]:
    sessions = read_sessions(str(root), str(flist))
    ontology = read_ontology(str(DATA / "ontology_dstc2.json"))
    track = read_track(str(track_path))

    @without_gc
    def check_and_score():
        check_track(track, sessions, ontology, DATASET)
        return score(sessions, track, ontology)

    return [
        ("end to end", median_seconds(lambda: end_to_end(root, flist, track_path), runs)),
        ("end to end, 1 process", median_seconds(lambda: end_to_end(root, flist, track_path, 1), runs)),
        ("read data", median_seconds(lambda: read_sessions(str(root), str(flist)), runs)),
        ("check + score", median_seconds(check_and_score, runs)),
    ]


def _peak_mb(root: Path, flist: Path, track_path: Path) -> float:
    tracemalloc.start()
    end_to_end(root, flist, track_path, 1)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10, help="copies of the sample (10: 1,000 dialogues)")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement; the median is printed")
    parser.add_argument("--official", metavar="DIR", help="folder of a Python 3 port of the official scripts")
    args = parser.parse_args()
    if not TRACK.is_file():
        print(f"skipped: {TRACK} not found (needs ../shared beside the clone)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root, flist, track_path = repeated_dataset(Path(tmp), args.repeat)
        turns = args.repeat * sum(len(s) for s in read_sessions(str(DATA), str(DATA / "dstc2_data.flist")))
        print(f"corpus: {args.repeat * 100} dialogues, {turns} turns (the sample x {args.repeat})")
        # fresh processes first, while this process is small (a child's max RSS counts the pages it forks with)
        out = Path(tmp) / "score.csv"
        data_args = ["--dataset", DATASET, "--dataroot", str(root), "--flist", str(flist)]
        argv = [sys.executable, "-m", "dst_metrics", "dstc2", *data_args]
        argv += [
            "--ontology",
            str(DATA / "ontology_dstc2.json"),
            "--trackfile",
            str(track_path),
            "--scorefile",
            str(out),
        ]
        commands = [("CLI (fresh process)", argv)]
        if args.official:
            commands.append(("official score.py", _official(args, root, flist, track_path, out)))
        measured = fresh_processes([command for _, command in commands], args.runs)
        fresh = [(name, seconds, rss) for (name, _), (seconds, rss) in zip(commands, measured)]
        rows = _in_process(root, flist, track_path, args.runs)
        for name, seconds in rows + [(name, seconds) for name, seconds, _ in fresh]:
            print(f"{name:24s} {seconds * 1e6 / turns:9.1f} µs/turn  ({seconds:.3f} s)")
        print(f"peak memory: {_peak_mb(root, flist, track_path):.1f} MB (tracemalloc, end to end in one process)")
        for name, _, rss in fresh:
            print(f"max RSS, {name}: {rss:.0f} MB")
        if args.official:
            print(f"the CLI is {fresh[1][1] / fresh[0][1]:.1f}x faster per turn than the official score.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
