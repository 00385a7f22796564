"""What the two Hugging Face `evaluate` modules share; each module file only names its figures and
documents them.

- `FEATURES`: one row per turn: the dialogue id, the turn index and each side's state as a list
  of slot/value entries (a gold entry may carry several acceptable values);
- `TurnEncoder`: validates what ``add_batch()`` receives with the core (`Corpus`) and turns it
  into Arrow rows, written straight into evaluate's cache file (so evaluate's generic per-example
  encoding is skipped) and gathered from every process by evaluate;
- `corpus_from_arrow`: the rows of all batches and processes back to a `Corpus`;
- `ComputeOptions` and `compute_figures`: the ``compute()`` options and the figures they give;
- `DSTMetric`: the ``evaluate.Metric`` base class of ``gca_metric`` and ``jga_fga_metrics``.

Input shapes accepted by ``add_batch()`` and ``compute()`` (both sides in the same shape):

- dialogues: ``predictions`` and ``references`` are lists of dialogues, each a list of states in
  any shape the core accepts, a linearized string included;
- turn records ``{"dialogue_id": str, "turn_id": int, "state": state}``, in any order and over any
  number of batches; the records of one batch must cover the same turns on both sides.
"""

from __future__ import annotations

import abc
import numbers
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from itertools import compress
from typing import TYPE_CHECKING

import datasets
import evaluate
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .corpus import Corpus, Dialogue, _without_gc
from .errors import InputError
from .metrics import DEFAULT_FGA_LAMBDA, MULTIWOZ_NUM_SLOTS, OFFICIAL_ALPHA
from .scoring import Options, score
from .states import VALUE_MATCHINGS, LinearizedFormat, State, normalize_state

if TYPE_CHECKING:
    import gradio

# --------------------------------------------------------------------------------------------
# The Arrow schema: one row per turn

ENTRY_FIELDS = ("slot", "values")
STATE_FEATURE = datasets.List({"slot": datasets.Value("string"), "values": datasets.List(datasets.Value("string"))})
"""A state: its slot/value entries; ``values`` holds one value, or a gold slot's acceptable values."""
TURN_FEATURE = {
    "dialogue_id": datasets.Value("string"),
    "turn_id": datasets.Value("int64"),
    "state": STATE_FEATURE,
}
FEATURES = datasets.Features({"predictions": TURN_FEATURE, "references": TURN_FEATURE})
"""The rows evaluate caches and gathers: a turn's predicted and gold side (same dialogue and turn)."""

INPUT_ARGS = """\
    predictions: predicted states, as `references`.
    references: gold states, either
        - a list of dialogues, each a list of states (turn 0, 1, ...), or
        - a list of turn records {"dialogue_id": str, "turn_id": int, "state": state}, in any order;
          the records of one batch must cover the same turns on both sides.
        A state is nested {domain: {slot: value}}, flat {"domain-slot": value}, a list of
        (domain, slot, value) or "domain-slot-value" items, or a linearized string
        "hotel-area=north; hotel-stars=4". A gold value may be a list of acceptable values.
    mode: "official" (default) or "corrected".
"""
"""The input arguments both modules document (their `_KWARGS_DESCRIPTION` starts with it)."""

GCA_FIGURES = (
    "gca",
    "correct",
    "wrong",
    "missed",
    "overshot",
    "value_precision",
    "value_recall",
    "label_precision",
    "label_recall",
)
"""What ``gca_metric`` returns (besides ``signature``)."""
TURN_FIGURES = ("jga", "fga", "sa", "aga", "rsa", "slot_f1")
"""What ``jga_fga_metrics`` returns (besides ``signature``)."""
ALL_FIGURES = GCA_FIGURES + TURN_FIGURES

INPUT_OPTIONS = ("dialogue_ids", "linearized")
"""Keyword arguments of ``add_batch()`` (and of ``compute()`` with inputs) about reading inputs."""


def linearized_format(value: LinearizedFormat | Mapping | None) -> LinearizedFormat | None:
    """A `LinearizedFormat` from itself, a mapping of its fields (``{"slot_separator": ","}``) or
    None (the default format ``slot=value; slot=value``)."""
    if value is None or isinstance(value, LinearizedFormat):
        return value
    if isinstance(value, Mapping):
        return LinearizedFormat(**value)
    raise TypeError(f"linearized must be a LinearizedFormat or a mapping of its fields, got {value!r}")


# --------------------------------------------------------------------------------------------
# Input -> Arrow rows


def _state_array(states: list[State]) -> pa.ListArray:
    """Normalized states as a list<struct<slot, values: list<string>>> array.

    A state object repeated on consecutive rows (the core shares unchanged states) is encoded
    once and repeated by Arrow.
    """
    changed = list(map(operator.is_not, states, [None, *states[:-1]]))
    distinct = list(compress(states, changed))
    offsets = [0]
    slots: list[str] = []
    values: list = []
    end = offsets.append
    for state in distinct:
        slots += state
        values += state.values()
        end(len(slots))
    if set(map(type, values)) <= {str}:
        value_array = pa.ListArray.from_arrays(
            np.arange(len(values) + 1, dtype=np.int32), pa.array(values, pa.string())
        )
    else:  # gold with several acceptable values
        value_offsets = [0]
        flat: list[str] = []
        for value in values:
            if value.__class__ is str:
                flat.append(value)
            else:
                flat += sorted(value)
            value_offsets.append(len(flat))
        value_array = pa.ListArray.from_arrays(pa.array(value_offsets, pa.int32()), pa.array(flat, pa.string()))
    entries = pa.StructArray.from_arrays([pa.array(slots, pa.string()), value_array], names=ENTRY_FIELDS)
    array = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), entries)
    if len(distinct) < len(states):
        array = array.take(pa.array(np.cumsum(changed) - 1))
    return array


def corpus_table(corpus: Corpus) -> pa.Table:
    """A validated corpus as Arrow rows in `FEATURES` layout, one per turn."""
    dialogue_ids: list[str] = []
    turn_ids: list[int] = []
    gold: list[State] = []
    pred: list[State] = []
    for dialogue in corpus.dialogues:
        dialogue_ids += [dialogue.dialogue_id] * len(dialogue.turn_ids)
        turn_ids += dialogue.turn_ids
        gold += dialogue.gold
        pred += dialogue.pred
    ids = pa.array(dialogue_ids, pa.string())
    turns = pa.array(turn_ids, pa.int64())
    names = list(TURN_FEATURE)
    return pa.Table.from_arrays(
        [
            pa.StructArray.from_arrays([ids, turns, _state_array(pred)], names=names),
            pa.StructArray.from_arrays([ids, turns, _state_array(gold)], names=names),
        ],
        names=["predictions", "references"],
    )


def _as_list(items: object, name: str, where: str) -> list:
    if items is None:
        raise InputError(f"{name} are missing: pass both predictions and references", source=where)
    if isinstance(items, (str, bytes, Mapping)) or not hasattr(items, "__len__"):
        raise InputError(
            f"{name} must be a list of dialogues or of turn records, got {type(items).__name__}", source=where
        )
    return items if isinstance(items, list) else list(items)


def _kind(item: object) -> str | None:
    if isinstance(item, Mapping):
        return "records"
    if isinstance(item, Sequence) and not isinstance(item, (str, bytes)):
        return "dialogues"
    return None


def _input_kind(predictions: list, references: list, where: str) -> str:
    kinds = {}
    for name, items in (("predictions", predictions), ("references", references)):
        kind = kinds[name] = _kind(items[0])
        if kind is None:
            hint = (
                "; a linearized state belongs inside a dialogue (a list of states) or in a turn record's 'state'"
                if isinstance(items[0], str)
                else ""
            )
            raise InputError(
                f"expected a dialogue (a list of states) or a turn record (a mapping with 'dialogue_id', "
                f"'turn_id' and 'state'), got {type(items[0]).__name__} {items[0]!r:.80}{hint}",
                source=f"{where}, {name}[0]",
            )
    if kinds["predictions"] != kinds["references"]:
        raise InputError(
            f"predictions are {kinds['predictions']} but references are {kinds['references']}: "
            "give both sides in the same shape",
            source=where,
        )
    return kinds["references"]


def _record_position(records: list, dialogue: object, turn: object) -> int | None:
    for position, record in enumerate(records):
        if isinstance(record, Mapping) and record.get("dialogue_id") == dialogue and record.get("turn_id") == turn:
            return position
    return None


def _located(error: InputError, kind: str, predictions: list, references: list, ids: list) -> InputError:
    """The core's error with the batch position of the offending dialogue or record added."""
    if error.source is not None:
        return error
    field = error.field
    sides = [("predictions", predictions), ("references", references)]
    if field is not None and field.split(".", 1)[0].split("[", 1)[0] in ("gt", "pr"):
        gold = field.startswith("gt")
        field = "state" + field[2:]
        sides = [sides[1]] if gold else [sides[0]]
    source = None
    if kind == "records" and error.dialogue is not None and error.turn is not None:
        for name, records in sides:
            position = _record_position(records, error.dialogue, error.turn)
            if position is not None:
                source = f"{name}[{position}]"
                break
    elif kind == "dialogues" and error.dialogue in ids:
        position = ids.index(error.dialogue)
        turn = "" if error.turn is None else f"[{error.turn}]"
        source = " and ".join(f"{name}[{position}]{turn}" for name, _ in sides)
    return InputError(error.problem, dialogue=error.dialogue, turn=error.turn, field=field, source=source)


class TurnEncoder:
    """Checks each ``add_batch()`` call with the core and encodes it as Arrow rows.

    Every problem is an `InputError` raised before anything is written, naming the batch
    (``batch 0`` is the first call since the last ``compute()``), the position in it, the
    dialogue, the turn and the field. A (dialogue_id, turn_id) added twice, in one batch or two,
    is an error; so is a turn record without a partner on the other side of its batch.
    """

    def __init__(self, linearized: LinearizedFormat | Mapping | None = None, id_prefix: str = "") -> None:
        self.linearized = linearized_format(linearized)
        self.id_prefix = id_prefix  # keeps generated dialogue ids distinct across processes
        self.reset()

    def reset(self) -> None:
        """Forget the batches added so far (after ``compute()``)."""
        self.batches = 0
        self.dialogues = 0
        self.seen: set[tuple[str, int]] = set()

    @_without_gc
    def encode(
        self,
        predictions: object,
        references: object,
        *,
        dialogue_ids: Sequence[str] | None = None,
        linearized: LinearizedFormat | Mapping | None = None,
    ) -> pa.Table | None:
        """Validate one batch and return its rows (None for an empty batch).

        Dialogue-level input gets the dialogue ids `dialogue_ids`, or else running numbers
        ``"0"``, ``"1"``, … over the batches (prefixed by the process id with several processes).
        """
        where = f"batch {self.batches}"
        fmt = linearized_format(linearized) or self.linearized
        predictions = _as_list(predictions, "predictions", where)
        references = _as_list(references, "references", where)
        if len(predictions) != len(references):
            raise InputError(f"{len(predictions)} predictions but {len(references)} references", source=where)
        if not references:
            self.batches += 1
            return None
        kind = _input_kind(predictions, references, where)
        ids: list = []
        try:
            if kind == "records":
                if dialogue_ids is not None:
                    raise InputError("dialogue_ids is for dialogue-level input; turn records carry their own")
                corpus = Corpus.from_turn_records(predictions, references, linearized=fmt)
            else:
                if dialogue_ids is None:
                    first = self.dialogues
                    ids = [f"{self.id_prefix}{first + i}" for i in range(len(references))]
                else:
                    ids = [str(d) for d in dialogue_ids]
                corpus = Corpus.from_dialogues(predictions, references, dialogue_ids=ids, linearized=fmt)
        except InputError as error:
            raise _located(error, kind, predictions, references, ids).within(where) from None
        keys = [(d.dialogue_id, turn) for d in corpus.dialogues for turn in d.turn_ids]
        if not self.seen.isdisjoint(keys):
            dialogue, turn = next(key for key in keys if key in self.seen)
            error = InputError(
                "this (dialogue_id, turn_id) was already added by an earlier batch", dialogue=dialogue, turn=turn
            )
            raise _located(error, kind, predictions, references, ids).within(where)
        table = corpus_table(corpus)
        self.seen.update(keys)
        self.batches += 1
        if kind == "dialogues":
            self.dialogues += len(references)
        return table


# --------------------------------------------------------------------------------------------
# Arrow rows -> Corpus


def _struct(column: pa.ChunkedArray | pa.Array) -> pa.StructArray:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column


def _codes(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(code per element, distinct Python strings): equal strings become one Python object."""
    if strings.null_count:
        raise InputError("the cached rows hold a null slot or value")
    encoded = pc.dictionary_encode(strings)
    distinct = np.empty(len(encoded.dictionary), dtype=object)
    distinct[:] = encoded.dictionary.to_pylist()
    return encoded.indices.to_numpy(zero_copy_only=False), distinct


def _decode_states(states: pa.ListArray, continues: np.ndarray) -> list[State]:
    """A list<struct<slot, values>> array back to normalized states (several values: frozenset).

    `continues[i]` tells that row i is the turn after row i-1 in the same dialogue; such a row
    equal to the previous one gets the previous state object, as `Corpus` shares them.
    """
    offsets = states.offsets.to_numpy().astype(np.int64)
    offsets -= offsets[0]
    starts, ends = offsets[:-1], offsets[1:]
    slot_array, values_array = states.flatten().flatten()
    slot_codes, slot_names = _codes(slot_array)
    flat_values = values_array.flatten()
    if len(flat_values) == len(values_array):  # one value per entry (value lists are never empty)
        value_codes, value_names = _codes(flat_values)
        values = value_names[value_codes].tolist()
        # Entry k of a row equals entry k of the row before: same codes, one row length earlier.
        lengths = ends - starts
        same = np.zeros(len(lengths), dtype=bool)
        same[1:] = continues[1:] & (lengths[1:] == lengths[:-1])
        entry = np.arange(len(slot_codes))
        earlier = np.maximum(entry - np.repeat(lengths, lengths), 0)
        differs = (slot_codes != slot_codes[earlier]) | (value_codes != value_codes[earlier])
        differing = np.concatenate(([0], np.cumsum(differs)))
        same &= differing[ends] == differing[starts]
    else:
        values = [items[0] if len(items) == 1 else frozenset(items) for items in values_array.to_pylist()]
        same = None
    slots = slot_names[slot_codes].tolist()
    if same is None:
        out, previous = [], None
        for start, end, follows in zip(starts.tolist(), ends.tolist(), continues.tolist()):
            state = dict(zip(slots[start:end], values[start:end]))
            previous = previous if follows and state == previous else state
            out.append(previous)
        return out
    new = ~same
    built = np.empty(int(new.sum()), dtype=object)
    built[:] = [dict(zip(slots[a:b], values[a:b])) for a, b in zip(starts[new].tolist(), ends[new].tolist())]
    return built[np.cumsum(new) - 1].tolist()


def _renormalized(state: State, gold: bool, matching: str) -> State:
    raw = {slot: sorted(value) if isinstance(value, frozenset) else value for slot, value in state.items()}
    return normalize_state(raw, gold=gold, matching=matching)


@_without_gc
def corpus_from_arrow(
    predictions: pa.ChunkedArray | pa.Array,
    references: pa.ChunkedArray | pa.Array,
    value_matching: str = "exact",
) -> Corpus:
    """The Corpus of rows in `FEATURES` layout from any number of batches and processes.

    Rows are grouped by dialogue id and ordered by turn id; a (dialogue_id, turn_id) that occurs
    twice (e.g. added by two processes) raises InputError. Consecutive equal states of a dialogue
    become one object, as `Corpus` builds them.
    """
    if value_matching not in VALUE_MATCHINGS:
        raise ValueError(f"value_matching must be one of {VALUE_MATCHINGS}, got {value_matching!r}")
    pred = _struct(predictions)
    gold = _struct(references)
    if len(gold) == 0:
        raise InputError("the corpus is empty: there is no turn to score")
    order = pc.sort_indices(
        pa.table({"d": gold.field("dialogue_id"), "t": gold.field("turn_id")}),
        sort_keys=[("d", "ascending"), ("t", "ascending")],
    )
    pred_ids, pred_turns, pred_states = pred.take(order).flatten()
    gold_ids, gold_turns, gold_states = gold.take(order).flatten()
    if not (pred_ids.equals(gold_ids) and pred_turns.equals(gold_turns)):
        raise InputError("the cached rows pair predictions and references of different turns")
    dialogue_codes, dialogue_names = _codes(gold_ids)
    turn_ids = gold_turns.to_numpy()
    continues = np.zeros(len(turn_ids), dtype=bool)
    continues[1:] = dialogue_codes[1:] == dialogue_codes[:-1]
    twice = np.flatnonzero(continues[1:] & (turn_ids[1:] == turn_ids[:-1]))
    if len(twice):
        row = int(twice[0]) + 1
        raise InputError(
            "this (dialogue_id, turn_id) was added twice (by two batches or processes)",
            dialogue=dialogue_names[dialogue_codes[row]],
            turn=int(turn_ids[row]),
        )
    golds = _decode_states(gold_states, continues)
    preds = _decode_states(pred_states, continues)
    if value_matching != "exact":
        for states, is_gold in ((golds, True), (preds, False)):
            cache: dict[int, State] = {}  # shared states stay shared
            for i, state in enumerate(states):
                if id(state) not in cache:
                    cache[id(state)] = _renormalized(state, is_gold, value_matching)
                states[i] = cache[id(state)]
    bounds = [*np.flatnonzero(~continues).tolist(), len(turn_ids)]
    turns = turn_ids.tolist()
    dialogues = tuple(
        Dialogue(
            dialogue_names[dialogue_codes[start]],
            tuple(turns[start:end]),
            tuple(golds[start:end]),
            tuple(preds[start:end]),
        )
        for start, end in zip(bounds, bounds[1:])
    )
    return Corpus(dialogues, value_matching)


# --------------------------------------------------------------------------------------------
# compute() options and figures


@dataclass(frozen=True)
class ComputeOptions:
    """The options ``compute()`` takes, shared by both modules (see the metric cards).

    `fga_lambda` is one λ (figure ``fga``) or several (figures ``fga@0.25``, ``fga@0.5``, …);
    `figures` picks figures by name (``None``: all of the module's); ``signature`` always comes.
    """

    mode: str = "official"
    alpha: float = OFFICIAL_ALPHA
    fga_lambda: float | tuple[float, ...] = DEFAULT_FGA_LAMBDA
    num_slots: int = MULTIWOZ_NUM_SLOTS
    value_matching: str = "exact"
    figures: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        lambdas = self.lambdas
        if not lambdas:
            raise ValueError("fga_lambda must be a number or a non-empty list of numbers")
        self.core_options()  # the core validates mode, alpha, λ and K
        if self.value_matching not in VALUE_MATCHINGS:
            raise ValueError(f"value_matching must be one of {VALUE_MATCHINGS}, got {self.value_matching!r}")
        if self.figures is not None:
            unknown = [name for name in self.figures if name not in ALL_FIGURES and name != "signature"]
            if unknown:
                raise ValueError(f"unknown figures {unknown}; known: {list(ALL_FIGURES)}")

    @classmethod
    def from_kwargs(cls, kwargs: Mapping) -> ComputeOptions:
        """Options from ``compute()`` keyword arguments; an unknown name is a TypeError."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise TypeError(f"unknown compute() arguments {unknown}; accepted: {sorted(known | set(INPUT_OPTIONS))}")
        values = dict(kwargs)
        lam = values.get("fga_lambda")
        if lam is not None and not _is_number(lam):
            values["fga_lambda"] = tuple(lam)
        figures = values.get("figures")
        if figures is not None:
            values["figures"] = (figures,) if isinstance(figures, str) else tuple(figures)
        return cls(**values)

    @property
    def lambdas(self) -> tuple[float, ...]:
        """The FGA λ values asked for."""
        return (self.fga_lambda,) if _is_number(self.fga_lambda) else tuple(self.fga_lambda)

    def core_options(self) -> Options:
        """The core's `Options` (its first λ is `Options.fga_lambda`)."""
        lambdas = self.lambdas
        return Options(self.mode, self.alpha, lambdas[0], lambdas, self.num_slots)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def compute_figures(corpus: Corpus, options: ComputeOptions, module_figures: Sequence[str]) -> dict:
    """The module's figures of `corpus` under `options`, with the signature; scores are fractions."""
    core = options.core_options()
    report = score(
        corpus,
        mode=core.mode,
        alpha=core.alpha,
        fga_lambda=core.fga_lambda,
        fga_lambdas=core.fga_lambdas,
        num_slots=core.num_slots,
    )
    scores = report.scores
    wanted = module_figures if options.figures is None else [f for f in module_figures if f in options.figures]
    out: dict = {}
    for name in wanted:
        if name != "fga":
            out[name] = getattr(scores, name)
        elif _is_number(options.fga_lambda):
            out["fga"] = scores.fga
        else:
            out.update({f"fga@{float(lam)!r}": scores.fga_grid[lam] for lam in core.fga_lambdas})
    out["signature"] = report.signature
    return out


# --------------------------------------------------------------------------------------------
# The evaluate.Metric base class


def metric_info(*, description: str, citation: str, inputs_description: str) -> evaluate.MetricInfo:
    """The MetricInfo of a dst-metrics module: `FEATURES`, read back as Arrow (``format="arrow"``).

    ``format`` is set after construction: MetricInfo's own check admits only flat features for a
    format, but evaluate hands any format to ``Dataset.set_format``, and "arrow" suits nesting.
    """
    info = evaluate.MetricInfo(
        description=description,
        citation=citation,
        inputs_description=inputs_description,
        features=FEATURES,
        codebase_urls=["https://github.com/cuthalionn/Granular_Change_Accuracy"],
        reference_urls=["https://arxiv.org/abs/2403.11123"],
    )
    info.format = "arrow"
    return info


class DSTMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base of ``gca_metric`` and ``jga_fga_metrics``: inputs, validation, Arrow rows, options.

    A subclass sets `figures` and implements ``_info`` (with `metric_info`). Init keyword:
    ``linearized``, the default `LinearizedFormat` of string states.
    """

    figures: tuple[str, ...] = ()

    def __init__(self, *args, linearized: LinearizedFormat | Mapping | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        prefix = f"{self.process_id}/" if self.num_process > 1 else ""
        self._encoder = TurnEncoder(linearized=linearized, id_prefix=prefix)

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """The module's MetricInfo (see `metric_info`)."""

    def add_batch(self, *, predictions=None, references=None, **kwargs) -> None:
        """Add a batch: lists of dialogues or of turn records, validated now with the core.

        Keyword arguments: ``dialogue_ids`` (dialogue-level input), ``linearized`` (a
        LinearizedFormat for string states). Bad input raises InputError naming the batch,
        the position in it, the dialogue, the turn and the field.
        """
        table = self._encoder.encode(predictions, references, **kwargs)
        if self.writer is None:  # even for an empty batch: a process with no rows still meets the others
            self.selected_feature_format = self.features
            self._init_writer()
        if table is not None:
            self.writer.write_table(table)

    def add(self, *, prediction=None, reference=None, **kwargs) -> None:
        """Add one dialogue, or one turn record, on each side (see ``add_batch``)."""
        self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs) -> dict | None:
        """Score everything added so far, plus `predictions`/`references` if given.

        Options: ``mode``, ``alpha``, ``fga_lambda`` (one or several), ``num_slots``,
        ``value_matching``, ``figures``; they are checked before the cached rows are read.
        Returns the figures on process 0 and None on the other processes.
        """
        inputs = {name: kwargs.pop(name) for name in INPUT_OPTIONS if name in kwargs}
        ComputeOptions.from_kwargs(kwargs)
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references, **inputs)
        try:
            return super().compute(**kwargs)
        finally:
            self._encoder.reset()

    def _compute(self, *, predictions=None, references=None, **kwargs) -> dict:
        """Score the rows of every batch and process (Arrow columns) with the core."""
        options = ComputeOptions.from_kwargs(kwargs)
        corpus = corpus_from_arrow(predictions, references, options.value_matching)
        return compute_figures(corpus, options, self.figures)


def build_demo(module: evaluate.EvaluationModule) -> gradio.Interface:
    """A small Gradio app for a module's Space: JSON predictions/references and the options.

    (evaluate's own ``launch_gradio_widget`` targets flat features and an older Gradio.)
    """
    import json

    import gradio as gr

    def run(predictions: str, references: str, mode: str) -> dict:
        try:
            return module.compute(predictions=json.loads(predictions), references=json.loads(references), mode=mode)
        except (InputError, ValueError) as error:
            return {"error": str(error)}

    example = json.dumps([[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]])
    return gr.Interface(
        fn=run,
        inputs=[
            gr.Textbox(label="predictions (JSON: a list of dialogues or of turn records)", value=example),
            gr.Textbox(label="references (JSON)", value=example),
            gr.Dropdown(["official", "corrected"], value="official", label="mode"),
        ],
        outputs=gr.JSON(label=module.name),
        title=f"Metric: {module.name}",
        description=module.info.description,
    )


__all__ = [
    "ALL_FIGURES",
    "FEATURES",
    "GCA_FIGURES",
    "TURN_FIGURES",
    "ComputeOptions",
    "DSTMetric",
    "TurnEncoder",
    "build_demo",
    "compute_figures",
    "corpus_from_arrow",
    "corpus_table",
    "linearized_format",
    "metric_info",
]
