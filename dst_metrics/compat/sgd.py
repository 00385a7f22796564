"""Profile ``sgd``: the official SGD evaluator's figures (DSTC8; github google-research/google-research,
``schema_guided_dst/metrics.py`` and ``evaluate.py``). It scores SGD / MultiWOZ 2.2 dialogue files with
the test and train schemas, which a Corpus does not hold, so `sgd_metrics` reads the files themselves.
Its conventions: ``docs/compat.md``.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ..corpus import Corpus
from ..errors import InputError, describe, json_text
from ..options import OptionError, Options
from ..readers.base import decode_json, read_file
from ..readers.sgd import Frame, SgdDialogue, Turn, load_dialogues
from .base import Profile

NAME = "sgd"
ALL_SERVICES, SEEN_SERVICES, UNSEEN_SERVICES = "#ALL_SERVICES", "#SEEN_SERVICES", "#UNSEEN_SERVICES"
JOINT = ("joint_goal_accuracy", "joint_cat_accuracy", "joint_noncat_accuracy")

Schema = dict[str, tuple[tuple[str, bool], ...]]
"""Service name -> its slots as (name, is categorical), in the schema's order."""


# --------------------------------------------------------------------------------------------
# Schema and value matching


def _slot_ok(slot: object) -> bool:
    return isinstance(slot, dict) and type(slot.get("name")) is str and type(slot.get("is_categorical")) is bool


def load_schema(path: str | Path) -> Schema:
    """The services of a ``schema.json`` and their slots; bad input raises a located InputError."""
    source = str(path)
    data = decode_json(read_file(Path(path), source), source)  # decompressed where compressed
    if not isinstance(data, list):
        raise InputError(f"a schema must be an array of services, got {describe(data)}", source=source)
    schema: Schema = {}
    for index, service in enumerate(data):
        where = f"[{index}]"
        if not isinstance(service, dict) or type(service.get("service_name")) is not str:
            raise InputError("a service must be an object with a service_name string", field=where, source=source)
        slots = service.get("slots")
        if not isinstance(slots, list):
            raise InputError(f"expected an array, got {describe(slots)}", field=f"{where}.slots", source=source)
        for number, slot in enumerate(slots):
            if not _slot_ok(slot):
                problem = "a slot must be an object with a name string and is_categorical true or false"
                raise InputError(problem, field=f"{where}.slots[{number}]", source=source)
        schema[service["service_name"]] = tuple((slot["name"], slot["is_categorical"]) for slot in slots)
    return schema


_NON_WORD = re.compile(r"(?ui)\W")
_LATIN1 = {code: None for code in range(128, 256)}


def _sorted_tokens(text: str) -> str:
    cleaned = _NON_WORD.sub(" ", text.translate(_LATIN1)).lower().strip()
    return " ".join(sorted(cleaned.split())).strip()


def token_sort_ratio(reference: str, hypothesis: str, backend: str = "levenshtein") -> int:
    """fuzzywuzzy's ``fuzz.token_sort_ratio`` (0-100) with python-Levenshtein (``levenshtein``:
    the Indel ratio, computed by rapidfuzz) or with its pure-Python fallback (``difflib``)."""
    a, b = _sorted_tokens(reference), _sorted_tokens(hypothesis)
    if a == b:
        return 100
    if not a or not b:
        return 0
    if backend == "difflib":
        import difflib  # the fallback only: not at every start

        return int(round(100 * difflib.SequenceMatcher(None, a, b).ratio()))
    from rapidfuzz.distance import Indel  # on first use, as `fuzzy`

    return int(round(100 * Indel.normalized_similarity(a, b)))


def _value_score(references: list[str], hypothesis: str, categorical: bool, fuzzy: bool | str) -> float:
    if categorical:
        return float(references[0] == hypothesis)
    if not fuzzy:
        return float(hypothesis in references)
    backend = "difflib" if fuzzy == "difflib" else "levenshtein"
    return max(token_sort_ratio(reference, hypothesis, backend) / 100.0 for reference in references)


# --------------------------------------------------------------------------------------------
# One frame


def f1_scores(reference: list, hypothesis: list) -> tuple[float, float, float]:
    """(F1, precision, recall) of two multisets; an empty side has precision (recall) 1."""
    if not reference or not hypothesis:
        true_positive = 0
    elif len(reference) == 1 == len(hypothesis):
        true_positive = int(reference[0] == hypothesis[0])
    else:
        true_positive = sum((Counter(reference) & Counter(hypothesis)).values())
    precision = true_positive / len(hypothesis) if hypothesis else 1.0
    recall = true_positive / len(reference) if reference else 1.0
    f1 = 2.0 * precision * recall / (precision + recall) if precision + recall > 0.0 else 0.0
    return f1, precision, recall


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def goal_figures(gold: Frame, pred: Frame, slots: tuple[tuple[str, bool], ...], fuzzy: bool | str) -> dict[str, float]:
    """Average and joint goal accuracy of one frame, all slots and by kind (absent when undefined)."""
    # the scores of every schema slot, in schema order: all, categorical, non-categorical; and those of the
    # slots active in gold
    every: tuple[list[float], list[float], list[float]] = ([], [], [])
    active: tuple[list[float], list[float], list[float]] = ([], [], [])
    gold_values, pred_values = gold.slot_values, pred.slot_values
    for name, categorical in slots:
        kind = 1 if categorical else 2
        if name in gold_values:
            if name in pred_values:
                score = _value_score(gold_values[name], pred_values[name][0], categorical, fuzzy)
            else:
                score = 0.0
            active[0].append(score)
            active[kind].append(score)
        else:
            score = float(name not in pred_values)
        every[0].append(score)
        every[kind].append(score)
    figures = {}
    for index, suffix in enumerate(("goal", "cat", "noncat")):
        if active[index]:
            figures[f"average_{suffix}_accuracy"] = _mean(active[index])
        if every[index]:
            figures[f"joint_{suffix}_accuracy"] = math.prod(every[index])
    return figures


def _spans(frame: Frame, utterance: str, noncategorical: set[str]) -> list[tuple[str, str]]:
    return [(slot, utterance[start:end]) for slot, start, end in frame.spans if slot in noncategorical]


def frame_figures(
    gold: Frame, pred: Frame, slots: tuple[tuple[str, bool], ...], utterance: str | None, fuzzy: bool | str
) -> dict[str, float]:
    """Every figure of one frame, as the evaluator computes it (see the module)."""
    for frame, side in ((gold, "gold"), (pred, "predicted")):
        for value, field in ((frame.active_intent, "active_intent"), (frame.requested_slots, "requested_slots")):
            if value is None:
                raise InputError(f"the {side} frame of service {json_text(frame.service)} has no state.{field}")
    f1, precision, recall = f1_scores(gold.requested_slots, pred.requested_slots)
    figures = {
        "active_intent_accuracy": float(gold.active_intent == pred.active_intent),
        "requested_slots_f1": f1,
        "requested_slots_precision": precision,
        "requested_slots_recall": recall,
    }
    if pred.spans is not None:
        if gold.spans is None or utterance is None:
            raise InputError(f"the gold frame of service {json_text(gold.service)} has no slots or utterance")
        noncategorical = {name for name, categorical in slots if not categorical}
        tagging = f1_scores(_spans(gold, utterance, noncategorical), _spans(pred, utterance, noncategorical))
        figures.update(zip(("slot_tagging_f1", "slot_tagging_precision", "slot_tagging_recall"), tagging))
    figures.update(goal_figures(gold, pred, slots, fuzzy))
    return figures


# --------------------------------------------------------------------------------------------
# The corpus


def _check_dialogues(gold: dict[str, SgdDialogue], pred: dict[str, SgdDialogue]) -> None:
    for ours, other, name in ((gold, pred, "the predictions"), (pred, gold, "the gold")):
        missing = [d for d in ours if d not in other]
        if missing:
            shown = ", ".join(json_text(d) for d in missing[:5])
            raise InputError(f"dialogues with no partner in {name}: {shown}", source=ours[missing[0]].source)


def _turn_pairs(gold: SgdDialogue, pred: SgdDialogue) -> Iterator[tuple[int, Turn, Turn]]:
    """(USER turn position, gold turn, predicted turn) of one dialogue, checked as the evaluator does."""
    where = {"dialogue": gold.dialogue_id, "source": pred.source}
    if gold.services is not None and pred.services is not None and set(gold.services) != set(pred.services):
        raise InputError("the services of the gold and the predicted dialogue differ", field="services", **where)
    if len(gold.turns) != len(pred.turns):
        raise InputError(f"{len(gold.turns)} gold turns but {len(pred.turns)} predicted turns", **where)
    user = 0
    for index, (gold_turn, pred_turn) in enumerate(zip(gold.turns, pred.turns)):
        if gold_turn.speaker != pred_turn.speaker:
            raise InputError("the speakers of the gold and the predicted turn differ", field=f"turns[{index}]", **where)
        if gold_turn.speaker != "USER":
            continue
        if None not in (gold_turn.utterance, pred_turn.utterance) and gold_turn.utterance != pred_turn.utterance:
            problem = "the utterances of the gold and the predicted turn differ"
            raise InputError(problem, turn=user, field=f"turns[{index}].utterance", **where)
        yield user, gold_turn, pred_turn
        user += 1


def _groups(service: str, seen: set[str] | None) -> list[str]:
    """The groups a frame of `service` counts in, as the evaluator lists them (repeats included)."""
    groups = [ALL_SERVICES, service, service.split("_")[0]]
    if seen is not None:
        groups.append(SEEN_SERVICES if service in seen else UNSEEN_SERVICES)
    return groups


def _turn_frames(
    user: int, gold_turn: Turn, pred_turn: Turn, schema: Schema, fuzzy: bool | str, where: dict
) -> Iterator[tuple[str, dict[str, float]]]:
    """(service, figures) of every gold frame of one USER turn."""
    for service, gold_frame in gold_turn.frames.items():
        if service not in pred_turn.frames:
            raise InputError(f"the prediction has no frame of service {json_text(service)}", turn=user, **where)
        if service not in schema:
            raise InputError(f"service {json_text(service)} is not in the schema", turn=user, **where)
        pred_frame = pred_turn.frames[service]
        try:
            yield service, frame_figures(gold_frame, pred_frame, schema[service], gold_turn.utterance, fuzzy)
        except InputError as error:
            raise error.located(turn=user, **where) from None


def collect(
    gold: dict[str, SgdDialogue],
    pred: dict[str, SgdDialogue],
    schema: Schema,
    seen: set[str] | None,
    *,
    fuzzy: bool | str = True,
    joint_across_turns: bool = False,
) -> dict[str, dict[str, list[float]]]:
    """{group: {figure: [value per frame (or per turn for joint figures across turns)]}}."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    buckets: dict[str, list] = {}  # {service: (group, its value lists) of each of its groups}
    _check_dialogues(gold, pred)
    for dialogue_id, pred_dialogue in pred.items():
        where = {"dialogue": dialogue_id, "source": pred_dialogue.source}
        for user, gold_turn, pred_turn in _turn_pairs(gold[dialogue_id], pred_dialogue):
            per_turn: dict[str, dict[str, float]] = defaultdict(dict)
            for service, figures in _turn_frames(user, gold_turn, pred_turn, schema, fuzzy, where):
                groups = buckets.get(service)
                if groups is None:
                    groups = buckets[service] = [(group, values[group]) for group in _groups(service, seen)]
                for group, bucket in groups:
                    for key, value in figures.items():
                        if joint_across_turns and key in JOINT:
                            per_turn[group][key] = per_turn[group].get(key, 1.0) * value
                        else:
                            bucket[key].append(value)
            for group, figures in per_turn.items():
                for key, value in figures.items():
                    values[group][key].append(value)
    return values


def sgd_metrics(
    predictions: str | Path,
    gold: str | Path,
    schema: str | Path,
    train_schema: str | Path | None = None,
    *,
    fuzzy: bool | str = True,
    joint_across_turns: bool = False,
) -> dict[str, dict[str, float]]:
    """The SGD evaluator's figures {group: {figure: mean}} for prediction and gold dialogue files
    or folders (see the module); without `train_schema` there are no seen/unseen groups."""
    services = load_schema(schema)
    seen = None if train_schema is None else set(services) & set(load_schema(train_schema))
    flags = {"fuzzy": fuzzy, "joint_across_turns": joint_across_turns}
    values = collect(load_dialogues(gold), load_dialogues(predictions), services, seen, **flags)
    return {group: {key: _mean(found) for key, found in figures.items()} for group, figures in values.items()}


# --------------------------------------------------------------------------------------------
# The profile


class SgdInputs(msgspec.Struct, frozen=True):
    """What `figures` scores: the files, the schemas and the evaluator's two flags (`sgd_metrics`' arguments)."""

    predictions: str
    gold: str
    schema: str
    train_schema: str | None = None
    fuzzy: bool | str = True
    joint_across_turns: bool = False


def default_schemas(gold: str | Path, schema: str | None, train_schema: str | None) -> tuple[str | None, str | None]:
    """(test schema, train schema): each as given, else GOLD/schema.json and GOLD/../train/schema.json where
    `gold` is a folder holding it, else None."""
    folder = Path(gold)
    if folder.is_dir():
        if schema is None and (folder / "schema.json").is_file():
            schema = str(folder / "schema.json")
        if train_schema is None and (folder.parent / "train" / "schema.json").is_file():
            train_schema = str(folder.parent / "train" / "schema.json")
    return schema, train_schema


def cli_inputs(path: str, *, gold: str | None, schema=None, train_schema=None, fuzzy=True, by=None) -> SgdInputs:
    """The files for one prediction path: `gold` (``--gold``), `schema`, `train_schema` (see the module);
    `fuzzy` unless exact matching was asked for; `by` (``--by``) is refused."""
    if not gold:
        raise OptionError("--compat sgd scores SGD dialogue files: give the gold file or folder with --gold")
    if by:
        raise OptionError("--compat sgd groups its figures itself (sgd: each service and domain): drop --by")
    schema, train = default_schemas(gold, schema or None, train_schema or None)
    if schema is None:
        raise OptionError("--compat sgd needs the schema of the evaluated split: give it with --schema")
    return SgdInputs(path, gold, str(schema), train, fuzzy)


def matching_name(fuzzy: bool | str) -> str:
    """The name of an evaluator `fuzzy` setting: ``exact``, ``fuzzy`` or ``fuzzy-difflib``."""
    return "exact" if not fuzzy else "fuzzy-difflib" if fuzzy == "difflib" else "fuzzy"


def figures(corpus: Corpus, options: Options, inputs: SgdInputs | None = None) -> dict[str, object]:
    """The figures of the files `inputs` names, under ``sgd``, with ``jga`` and ``aga`` of ``#ALL_SERVICES``."""
    if inputs is None:
        raise OptionError(
            "the sgd profile scores SGD dialogue files with their schema, which a corpus does not hold: "
            "use dst-metrics score PRED --gold GOLD --schema schema.json --compat sgd, or "
            "dst_metrics.compat.sgd.sgd_metrics (or score(corpus, compat='sgd', compat_inputs=SgdInputs(...)))"
        )
    found = sgd_metrics(**msgspec.structs.asdict(inputs))
    overall = found.get(ALL_SERVICES, {})
    replaced = {"jga": "joint_goal_accuracy", "aga": "average_goal_accuracy"}
    result: dict[str, object] = {key: overall[name] for key, name in replaced.items() if name in overall}
    return {**result, "sgd": found, "sgd_value_matching": matching_name(inputs.fuzzy)}


def signature_fields(found: dict[str, object]) -> str:
    """The value matching the evaluator's figures used, for the signature: ``|sgd-match:fuzzy``."""
    return f"|sgd-match:{found['sgd_value_matching']}"


PROFILE = Profile(
    NAME,
    "the SGD evaluator (DSTC8): per-frame goal accuracies with fuzzy non-categorical slots, needs --schema",
    figures,
    cli_inputs=cli_inputs,
    signature_fields=signature_fields,
)
