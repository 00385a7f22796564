"""``dst-metrics calibration FILE [--gold PATH] [--bins 10] [--by-slot] [--compat slt2024] [--json]``: the
calibration figures of a prediction file whose values carry confidences (`dst_metrics.calibration`):
a table per level (slot, joint; ``--by-slot`` one row per slot) with the slot level's reliability bins,
or with ``--json`` one object (the keys are listed in docs/calibration.md). ``--compat slt2024``: ECE
and AUROC of the predicted (slot, value) pairs as SLT 2024's code computes them.
"""

from __future__ import annotations

import argparse

from ..errors import InputError

HELP = "calibration of confidence scores: DSTC2 accuracy, L2, MRR, ROC CA05; ECE, Brier, AUROC"
CALIBRATION_PROFILES = ("slt2024",)  # calibration.slt2024.PROFILE
DEFAULT_BINS = 10  # the same as metrics.DEFAULT_BINS (kept here so parsing imports nothing heavy)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments: FILE, the shared input options, --bins and --json."""
    from .common import add_input_options, whole_number

    parser.add_argument("file", metavar="FILE")
    add_input_options(parser)
    parser.add_argument(
        "--bins", type=whole_number, default=DEFAULT_BINS, help=f"bins of ECE and the diagram ({DEFAULT_BINS})"
    )
    parser.add_argument("--by-slot", action="store_true", help="also each slot name's figures (JSON: by_slot)")
    parser.add_argument(
        "--compat",
        dest="calibration_profile",
        choices=CALIBRATION_PROFILES,
        help="slt2024: ECE (bin centres) and AUROC of predicted pairs as SLT 2024's confidence-estimation code",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object (fractions, not percent)")


def _print_table(result, path: str, read_as: str, signature: str) -> None:
    from ..figures.calibration import CALIBRATION_FIGURES
    from .common import figure_cell as _cell
    from .common import format_table, levels_table

    print(f"{path}: calibration ({read_as})")
    print(levels_table(result.figures, result.slots, result.turns, result.by_slot))
    bins = [
        [f"({b.low:.2f}, {b.high:.2f}]", str(b.count), f"{b.mean_confidence:.4f}", f"{b.accuracy:.4f}"]
        for b in result.reliability["slot"]["width"]
    ]
    print("\nreliability of slot decisions (equal-width bins)")
    print(format_table(["bin", "count", "confidence", "accuracy"], bins, "lrrr"))
    print(
        "\njoint ECE with the turn's confidence the minimum over its slots (ConvLab-3 SetSUMBT's joint-goal ECE, "
        f"10 equal-width bins): {_cell(result.joint_ece_min, False)}"
    )
    figures = result.figures
    peers = [f"{e.label} {_cell(figures[e.key], e.higher_is_better)}" for e in CALIBRATION_FIGURES if e.signature]
    print(f"predicted (slot, value) pairs as the peer's code scores them (bins: the signature): {', '.join(peers)}")
    print("\nAcc, MRR, CA05, AUROC in percent; L2, ECE, Brier as fractions; - undefined")
    print(f"signature: {signature}")


def run(args: argparse.Namespace) -> int:
    """Read FILE (with --gold: paired with it), compute and print the calibration figures."""
    from ..calibration.metrics import calibration
    from ..protocols.extras import calibration_part
    from .common import options_from_args
    from .inputs import read_input
    from .json_output import json_output

    options = options_from_args(args)
    corpus, read_as = read_input(args.file, args)
    if args.calibration_profile:
        if corpus.reading and options.reading != corpus.reading:  # how the input was read, as `score` says it
            options = options.replace(reading=corpus.reading)
        return _run_profile(args, corpus, read_as, options.signature())
    result = calibration(corpus, bins=args.bins, by_slot=args.by_slot)
    if not result.has_confidences:
        raise InputError(
            "the predictions carry no confidence scores, so there is nothing to calibrate (every value would "
            "count as certain); give values with confidences (docs/calibration.md shows the shapes)",
            source=args.file,
        )
    signature = f"{options.signature()}|{calibration_part(args.bins)}"
    if args.json:
        record = {"file": args.file, "format": read_as, **result.as_dict(), "signature": signature}
        print(json_output("calibration", _inputs(args), record))
    else:
        _print_table(result, args.file, read_as, signature)
    return 0


def _inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    return [("predictions", args.file), ("gold", args.gold)]


def _run_profile(args: argparse.Namespace, corpus, read_as: str, signature: str) -> int:
    """``--compat slt2024``: the profile's figures (`calibration.slt2024.slt2024_calibration`)."""
    from ..calibration.slt2024 import slt2024_calibration
    from ..options import OptionError
    from .common import figure_cell as _cell
    from .common import format_table
    from .json_output import json_output

    if args.by_slot:
        raise OptionError("--by-slot gives our figures per slot; the slt2024 profile has no per-slot figures")
    found = slt2024_calibration(corpus, bins=args.bins)
    if not found["pairs"]:
        raise InputError("no predicted value carries a confidence, so there is no pair to calibrate", source=args.file)
    signature = f"{signature}|calibration|compat:{args.calibration_profile}|bins:{args.bins}"
    if args.json:
        record = {"file": args.file, "format": read_as, "compat": args.calibration_profile}
        print(json_output("calibration", _inputs(args), {**record, **found, "signature": signature}))
        return 0
    print(f"{args.file}: calibration, SLT 2024's convention ({read_as})")
    print(
        f"pairs {found['pairs']} (right {found['right']}), ECE {_cell(found['pair_ece'], False)}, "
        f"AUROC {_cell(found['pair_auroc'], True)}"
    )
    rows = [[f"{centre:.2f}", str(count), f"{accuracy:.4f}"] for centre, count, accuracy in found["reliability"]]
    print(format_table(["bin centre", "count", "accuracy"], rows, "rrr"))
    print("AUROC in percent, ECE as a fraction; - undefined")
    print(f"signature: {signature}")
    return 0
