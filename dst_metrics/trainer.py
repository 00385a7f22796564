"""Scoring generated states where they are made: a `Seq2SeqTrainer`'s ``compute_metrics``
(`make_compute_metrics`) and any generation loop (`score_generations`). Each generation is read with
`generation.parsing.parse_generation` (an unparsed one is an empty state) and mapped back to its dialogue
and turn; the figures are those of ``dst-metrics score`` on the same states, with the share of generations
of each outcome. Nothing here imports transformers or torch.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from . import ids
from .corpus import Corpus
from .errors import InputError, json_text
from .figures.registry import figure_keys
from .generation.parsing import OUTCOMES, ParsedState, malformed_counts, outcome_counts, parse_generation
from .generation.updates import apply_update, sample_looks_like_updates
from .options import Options, gold_separator_part, parse_gold_alternatives_separator
from .reading import Reading, split_reading
from .scoring.scores import score
from .states import Alternatives, LinearizedFormat, normalize_state

IGNORE_INDEX = -100
"""The id the Trainer writes where a sequence has no token."""


def score_generations(
    generations: Sequence[str], dialogue_ids: Sequence[object], turn_ids: Sequence[object],
    references: Sequence[object], *, style: str = "auto", schema: Iterable[str] | None = None,
    gold_alternatives_separator: str | None = None, linearized: LinearizedFormat | None = None,
    show_unparsed: int = 0, show_readings: int = 0, on_updates: Callable[[], None] | None = None, **options: object,
) -> dict[str, Any]:  # fmt: skip
    """Every figure of generated states: row i is `generations[i]` for turn `turn_ids[i]` of dialogue
    `dialogue_ids[i]`, whose gold state is `references[i]` (any shape; a string read with `linearized`).
    Rows may come in any order.

    `style` and `schema` as `parse_generation` takes them; `options` as ``compute()`` takes them, `Options`'
    and the reading settings (``prediction_states="updates"``: each generation is its turn's update);
    `gold_alternatives_separator="|"`: a gold value ``"a|b"`` is a or b (without it, one warning counts such
    values); `show_unparsed` / `show_readings`: print that many unparsed generations / readings on stderr;
    `on_updates` is called when cumulative predictions look like updates. Returns the figures (fractions), the
    share of generations of each outcome (``unparsed``, ``empty``, ``truncated``), ``outcomes`` and
    ``malformed`` per style, and ``signature``.

    >>> figures = score_generations(
    ...     ['{"hotel-area": "north"}', "SELECT * FROM hotel WHERE area = 'north' AND stars = 4"],
    ...     ["d1", "d1"], [0, 1], ["hotel-area=north", "hotel-area=north; hotel-stars=4"],
    ... )
    >>> figures["jga"], figures["unparsed"]
    (1.0, 0.0)
    """
    rows = _checked_rows(generations, dialogue_ids=dialogue_ids, turn_ids=turn_ids, references=references)
    settings, options = split_reading(options, evaluate=True)
    chosen = Options.from_kwargs(options)
    reading = Reading(value_matching=chosen.value_matching, linearized=linearized, **settings)
    separator = parse_gold_alternatives_separator(gold_alternatives_separator)
    updates = reading.prediction_states == "updates"
    predictions, gold, parsed = _records(generations, dialogue_ids, turn_ids, references, style, schema, updates)
    corpus = _generated_corpus(predictions, gold, separator, reading)
    if on_updates is not None and not updates and sample_looks_like_updates(corpus.dialogues):
        on_updates()
    scores = score(corpus, chosen).scores
    figures: dict[str, Any] = {key: scores[key] for key in figure_keys(chosen)}
    figures.update(_outcome_shares(parsed.values(), rows), outcomes=outcome_counts(parsed.values()))
    figures.update(malformed=malformed_counts(parsed.values()), signature=scores.signature)
    for unparsed_only, count in ((True, show_unparsed), (False, show_readings)):
        shown = generation_examples(generations, dialogue_ids, turn_ids, parsed, count, unparsed_only=unparsed_only)
        for line in shown if count else ():
            print(line, file=sys.stderr)
    return figures


def _generated_corpus(predictions: list[dict], gold: list[dict], separator: str | None, reading: Reading) -> Corpus:
    """The Corpus of the parsed generations and their gold: gold values split at `separator` into alternatives,
    else one warning where gold holds joined alternatives."""
    if separator is not None:
        gold = [{**record, "state": _split_gold(record, separator, reading.linearized)} for record in gold]
    corpus = Corpus.from_turn_records(predictions, gold, **msgspec.structs.asdict(reading))
    if separator is None:
        _warn_of_joined_gold(corpus)
        return corpus
    return dataclasses.replace(corpus, reading=(*corpus.reading, *gold_separator_part(separator)))


def _checked_rows(generations: Sequence[str], **columns: Sequence[object]) -> int:
    """The number of generations, once every column holds one per generation (else InputError)."""
    rows = len(generations)
    for name, column in columns.items():
        if len(column) != rows:
            raise InputError(f"{rows} generations but {len(column)} {name}: one per generation, in the same order")
    if not rows:
        raise InputError("there are no generations to score")
    return rows


def _outcome_shares(parsed: Iterable[ParsedState], rows: int) -> dict[str, float]:
    """The share of the `rows` generations of each outcome but ``parsed``."""
    found = [state.outcome for state in parsed]
    return {outcome: found.count(outcome) / rows for outcome in OUTCOMES[1:]}


JOINED_GOLD_WARNING = (
    "gold values holding '|' (IC-DST's and RefPyDST's data files write 'a|b' for a or b): {count}, each read as one "
    "value; gold_alternatives_separator='|' (--gold-alternatives-separator '|') reads them as alternatives"
)


def _warn_of_joined_gold(corpus: Corpus) -> None:
    count = sum(
        type(value) is str and "|" in value
        for dialogue in corpus.dialogues
        for state in dialogue.gold
        for value in state.values()
    )
    if count:
        warnings.warn(JOINED_GOLD_WARNING.format(count=count), stacklevel=3)


def _split_gold(record: dict, separator: str, linearized: LinearizedFormat | None) -> dict[str, object]:
    """A gold state with each value ``a|b`` (`separator`) as its list of acceptable values."""
    try:
        state = normalize_state(record["state"], gold=True, linearized=linearized, field="references")
    except InputError as error:
        raise InputError(
            error.problem, dialogue=record["dialogue_id"], turn=record["turn_id"], field=error.field
        ) from None
    split: dict[str, object] = {}
    for slot, value in state.items():
        values = list(value.order) if isinstance(value, Alternatives) else [value]
        options = [part.strip() for text in values for part in text.split(separator) if part.strip()]
        split[slot] = options if len(options) > 1 else value
    return split


def generation_examples(
    generations: Sequence[str],
    dialogue_ids: Sequence[object],
    turn_ids: Sequence[object],
    parsed: Mapping[int, ParsedState],
    limit: int,
    *,
    unparsed_only: bool = False,
) -> list[str]:
    """A line saying how many generations there are (with `unparsed_only`, unparsed ones), then up to `limit`
    of them in row order: dialogue and turn, how it was read (not with `unparsed_only`) and the text."""
    rows = [row for row in sorted(parsed) if not unparsed_only or parsed[row].outcome == "unparsed"]
    shown = f"; the first {limit}:" if len(rows) > limit else ":" if rows else ""
    head = f"unparsed generations: {len(rows)} of {len(parsed)}" if unparsed_only else f"generations read: {len(rows)}"
    lines = [head + shown]
    for row in rows[:limit]:
        found = parsed[row]
        read = "" if unparsed_only else f"{found.outcome} ({found.style}) {json_text(dict(found.state), 200)} from "
        lines.append(f"  {_row_place(dialogue_ids, turn_ids, row)}: {read}{_text(generations[row], 200)}")
    return lines


def _row_place(dialogue_ids: Sequence[object], turn_ids: Sequence[object], row: int) -> str:
    return f"dialogue {json_text(str(dialogue_ids[row]))}, turn {turn_ids[row]}"


def _text(generation: object, limit: int) -> str:
    return json_text(generation if isinstance(generation, str) else repr(generation), limit)


def _records(
    generations: Sequence[str], dialogue_ids: Sequence[object], turn_ids: Sequence[object],
    references: Sequence[object], style: str, schema: Iterable[str] | None, updates: bool,
) -> tuple[list[dict], list[dict], dict[int, ParsedState]]:  # fmt: skip
    """(predicted turn records, gold turn records, {row: its generation read}): each dialogue's generations
    parsed in turn order, each given the state predicted before its turn."""
    by_dialogue: dict[str, list[tuple[int, int]]] = {}
    for row, (dialogue, turn) in enumerate(zip(dialogue_ids, turn_ids)):
        dialogue_id = ids.dialogue_id(dialogue, field=f"dialogue_ids[{row}]")
        by_dialogue.setdefault(dialogue_id, []).append((ids.turn_id(turn, dialogue=dialogue_id, field=None), row))
    predictions, gold, read = [], [], {}
    for dialogue_id, turns in by_dialogue.items():
        context: dict[str, str] = {}
        for turn_id, row in sorted(turns):
            parsed = read[row] = parse_generation(generations[row], style, schema, context=context, deletions=updates)
            context = apply_update(context, parsed.state) if updates else dict(parsed.state)
            predictions.append({"dialogue_id": dialogue_id, "turn_id": turn_id, "state": parsed.state})
            gold.append({"dialogue_id": dialogue_id, "turn_id": turn_id, "state": references[row]})
    return predictions, gold, read


def decode_generations(predictions: Any, tokenizer: Any) -> list[str]:
    """The texts of generated token ids (``EvalPrediction.predictions`` with ``predict_with_generate``), padding
    and special tokens skipped."""
    if isinstance(predictions, tuple):  # (generated ids, ...) from some models
        predictions = predictions[0]
    shape = getattr(predictions, "shape", None)
    if shape is not None and len(shape) != 2:
        raise InputError(
            f"compute_metrics got predictions of shape {tuple(shape)}, not generated token ids (rows x tokens): "
            "set predict_with_generate=True in Seq2SeqTrainingArguments"
        )
    rows = [[tokenizer.pad_token_id if token == IGNORE_INDEX else int(token) for token in row] for row in predictions]
    return tokenizer.batch_decode(rows, skip_special_tokens=True)


def make_compute_metrics(
    tokenizer: Any, eval_dataset: Any, *, reference_column: str = "target", dialogue_column: str = "dialogue_id",
    turn_column: str = "turn_id", **settings: object,
) -> Callable[[Any], dict[str, Any]]:  # fmt: skip
    """A `Seq2SeqTrainer` ``compute_metrics`` (``predict_with_generate=True``): decode the generated ids and
    score them (`score_generations`, which takes `settings`) against row i of `eval_dataset` (its
    `dialogue_column`, `turn_column` and gold `reference_column`). `eval_dataset` is the evaluated dataset in
    the Trainer's row order, before tokenization drops its columns."""
    columns = {}
    for name in (dialogue_column, turn_column, reference_column):
        try:
            columns[name] = list(eval_dataset[name])
        except (KeyError, ValueError, TypeError):
            raise InputError(f"the eval dataset has no column {name!r} (one value per evaluated row)") from None

    def compute_metrics(eval_pred: Any) -> dict[str, Any]:
        texts = decode_generations(eval_pred.predictions, tokenizer)
        if len(texts) != len(columns[reference_column]):
            raise InputError(
                f"the Trainer evaluated {len(texts)} rows but the eval dataset has {len(columns[reference_column])}: "
                "give make_compute_metrics the dataset the Trainer evaluates, in its order"
            )
        return score_generations(
            texts, columns[dialogue_column], columns[turn_column], columns[reference_column], **settings
        )

    return compute_metrics
