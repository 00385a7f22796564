"""``dst-metrics model-index FILE --model-name M --dataset-name D --dataset-type T --split S``: a model card's
``model-index`` (Hugging Face Hub metadata) of FILE's figures, printed as YAML; ``--update README.md`` merges it
into a card. FILE is read and scored as ``dst-metrics score`` reads and scores it (the same options, the same
engines), the results are built by `dst_metrics.model_card` with huggingface_hub (the ``model-card`` extra).
"""

from __future__ import annotations

import argparse
import sys

from .common import add_compat_option, add_figure_options, add_input_options

HELP = "a model card's model-index (Hugging Face Hub metadata) of one prediction file; --update merges it into a card"
EXTRA = "model-card"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """FILE, the card's model and dataset, --update, and the input and figure options of ``dst-metrics score``."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="one prediction file: the model's on the split")
    card = parser.add_argument_group("the model card")
    card.add_argument("--model-name", required=True, metavar="M", help="the model-index's name (the model)")
    card.add_argument("--dataset-name", required=True, metavar="D", help="the dataset's name: MultiWOZ 2.1")
    card.add_argument("--dataset-type", required=True, metavar="T", help="the dataset's Hub id: multi_woz_v22")
    card.add_argument("--split", required=True, metavar="S", help="the dataset's split: test")
    card.add_argument("--dataset-config", metavar="C", help="the dataset's configuration (its Hub config name)")
    update_help = "merge the results into this model card's metadata and write it back (its text and the rest kept)"
    card.add_argument("--update", metavar="README.md", help=update_help)
    add_input_options(parser)
    add_figure_options(parser)
    add_compat_option(parser)


def run(args: argparse.Namespace) -> int:
    """Score FILE as ``dst-metrics score`` does, print its model-index YAML; with --update write the card."""
    from ..errors import InputError
    from ..model_card import model_index, update_card
    from ..options import OptionError
    from ..scoring.engines import Request, score_inputs
    from .common import options_from_args, warn_of_updates, write_text
    from .inputs import input_spec, sgd_fuzzy

    if len(args.files) > 1:
        raise OptionError(
            f"a card's model-index holds one model's figures on one split, and {len(args.files)} files "
            "were given: give one FILE (run the command once per model)"
        )
    card_text = None
    if args.update:  # read before scoring: a typo costs no minutes
        try:
            with open(args.update, encoding="utf-8") as card_file:
                card_text = card_file.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise InputError(f"cannot read the model card to update: {reason}", source=args.update) from None
    options = options_from_args(args)
    compat_files = {"gold": args.gold, "schema": None, "train_schema": None, "by": None, "fuzzy": sgd_fuzzy(args)}
    request = Request(compat_files=compat_files, on_updates=warn_of_updates)
    (scored,) = score_inputs([input_spec(args.files[0], args)], options, request)
    card_data = model_index(
        scored.report,
        model_name=args.model_name,
        dataset_name=args.dataset_name,
        dataset_type=args.dataset_type,
        split=args.split,
        dataset_config=args.dataset_config,
    )
    if card_text is not None:
        write_text(args.update, update_card(card_text, card_data, args.update), "the model card")
        print(f"updated {args.update}: {len(card_data.eval_results)} results of {args.model_name}", file=sys.stderr)
    sys.stdout.write(card_data.to_yaml() + "\n")
    return 0
