"""Properties of the core that hold for every corpus (hypothesis).

Corpora are decoded from a byte string (fast to generate, and shrinking the bytes towards
zeros shrinks the corpus towards one empty turn). Each dialogue's states evolve turn by turn:
a few slots set or overwritten and, where allowed, one dropped, over a small pool of slots and
values, so that changes, repeated turns and removals are all frequent.
"""

from __future__ import annotations

import math
import os
import pickle
from functools import reduce

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dst_metrics import (
    Corpus,
    Dialogue,
    InputError,
    Options,
    Tally,
    score,
    score_tallies,
    tally_corpus,
    tally_dialogue,
)

# DST_METRICS_EXAMPLES=5000 runs every property with that many examples (a longer, deeper run).
EXAMPLES = int(os.environ.get("DST_METRICS_EXAMPLES", "0"))
SETTINGS = settings(max_examples=EXAMPLES or 150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODES = ("official", "corrected")

DOMAINS = ("hotel", "train")
SLOTS = ("area", "book day", "name")
SLOT_NAMES = tuple(f"{domain}-{slot}" for domain in DOMAINS for slot in SLOTS)
ACTIVE = ("north", "south", "cheap", "dontcare", "4")
INACTIVE = ("none", "")
HYPHENATED = ("guest-house", "2019-03-08")
ANY = ACTIVE + INACTIVE + HYPHENATED
LISTS = (("north", "south"), ("cheap", "guest-house", "4"), ("dontcare", "north"))  # acceptable values

FLOAT_FIELDS = (
    "gca",
    "value_precision",
    "value_recall",
    "label_precision",
    "label_recall",
    "jga",
    "fga",
    "sa",
    "aga",
    "rsa",
    "slot_precision",
    "slot_recall",
    "slot_f1",
)


# --------------------------------------------------------------------------------------------
# Corpora decoded from bytes


class Source:
    """Reads small numbers from a byte string; 0 once it is used up."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def below(self, n: int) -> int:
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1] % n

    def choice(self, options):
        return options[self.below(len(options))]


def evolving_states(src: Source, turns: int, values, removals: bool, first_nonempty: bool = False):
    """`turns` states, each the previous one with up to 2 slots set (and, with `removals`,
    sometimes one dropped). Gold lists of acceptable values are tuples."""
    states, current = [], {}
    for turn in range(turns):
        updates = src.below(3)
        if first_nonempty and turn == 0:
            updates = max(updates, 1)
        current = {**current, **{src.choice(SLOT_NAMES): src.choice(values) for _ in range(updates)}}
        if removals and src.below(4) == 0:
            current.pop(src.choice(SLOT_NAMES), None)
        states.append(current)
    return states


def pick_acceptable(src: Source, state: dict) -> dict:
    """A prediction equal to `state`: one acceptable value of each gold list."""
    return {slot: src.choice(v) if isinstance(v, tuple) else v for slot, v in state.items()}


def decode_pairs(data: bytes, gold_values=ANY, pred_values=ANY, removals=True, max_dialogues=5):
    """[(gold states, predicted states)] of 1 to `max_dialogues` dialogues of 1 to 6 turns. The
    prediction is independent of the gold, or a copy of it with a few slots changed or dropped."""
    src = Source(data)
    pairs = []
    for _ in range(1 + src.below(max_dialogues)):
        turns = 1 + src.below(6)
        gold = evolving_states(src, turns, gold_values, removals)
        if src.below(2):
            pred = evolving_states(src, turns, pred_values, removals)
        else:
            pred = []
            for state in gold:
                noisy = pick_acceptable(src, state)
                if src.below(3) == 0:
                    noisy[src.choice(SLOT_NAMES)] = src.choice(pred_values)
                if removals and src.below(4) == 0:
                    noisy.pop(src.choice(SLOT_NAMES), None)
                pred.append(noisy)
        pairs.append((gold, pred))
    return pairs


def build(pairs, ids=None) -> Corpus:
    ids = [f"d{i}" for i in range(len(pairs))] if ids is None else ids
    return Corpus.from_dialogues(
        predictions=[pred for _, pred in pairs], references=[gold for gold, _ in pairs], dialogue_ids=ids
    )


BYTES = st.binary(max_size=400)
pair_lists = BYTES.map(decode_pairs)
corpora = pair_lists.map(build)
corpora_with_lists = BYTES.map(lambda b: build(decode_pairs(b, gold_values=ANY + LISTS)))


def figures(scores) -> dict:
    out = scores.as_dict()
    out.pop("signature")
    return out


def assert_all_in_unit_interval(scores):
    for name in FLOAT_FIELDS:
        value = getattr(scores, name)
        assert 0.0 <= value <= 1.0, (name, value)
    for lam, value in scores.fga_grid.items():
        assert 0.0 <= value <= 1.0, (lam, value)
    assert min(scores.correct, scores.wrong, scores.missed, scores.overshot) >= 0


# --------------------------------------------------------------------------------------------
# A perfect prediction


def decode_perfect(data: bytes) -> Corpus:
    src = Source(data)
    pairs = []
    for _ in range(1 + src.below(4)):
        gold = evolving_states(src, 1 + src.below(6), ANY + LISTS, removals=True)
        pairs.append((gold, [pick_acceptable(src, state) for state in gold]))
    return build(pairs)


def non_empty_turns(dialogue: Dialogue) -> int:
    """Turns whose gold state has an active slot (a value other than 'none' and '')."""
    return sum(1 for state in dialogue.gold if any(value not in INACTIVE for value in state.values()))


@SETTINGS
@given(BYTES.map(decode_perfect))
def test_a_perfect_prediction_scores_one_everywhere_but_rsa_on_empty_turns_in_corrected_mode(corpus):
    # Gold may hold lists of acceptable values, 'none', '' and removals; the prediction picks any
    # acceptable value in each turn. Corrected mode: every figure is exactly 1, except RSA: a
    # turn where neither state has an active slot has T* = 0 and scores 0 (the RSA paper's
    # definition, kept in both modes), and every other turn scores T*/T* = 1 (the predicted
    # slots are the gold slots, each with an acceptable value). So RSA is exactly the share of
    # turns with a non-empty gold state, counted here from the states, not from the tally.
    report = score(corpus, mode="corrected", per_dialogue=True)
    ones = tuple(name for name in FLOAT_FIELDS if name != "rsa")
    parts = [(corpus.dialogues, report.scores)]
    parts += [((dialogue,), report.dialogues[dialogue.dialogue_id]) for dialogue in corpus]
    for dialogues, scores in parts:
        assert {name: getattr(scores, name) for name in ones} == dict.fromkeys(ones, 1.0)
        assert set(scores.fga_grid.values()) == {1.0}
        assert scores.wrong == scores.missed == scores.overshot == 0
        turns = sum(len(dialogue) for dialogue in dialogues)
        assert scores.rsa == sum(non_empty_turns(dialogue) for dialogue in dialogues) / turns


def test_a_perfect_prediction_of_empty_and_filled_turns_by_hand():
    # Turns: {} / {} (T* = 0 -> 0), north / north (1), {area: none} / {} (inactive: T* = 0 -> 0),
    # north+cheap / north+cheap (1): RSA = 2/4 in both modes; corrected JGA = FGA = GCA = 1.
    gold = [{}, {"hotel-area": "north"}, {"hotel-area": "none"}, {"hotel-area": "north", "hotel-name": "cheap"}]
    pred = [{}, {"hotel-area": "north"}, {}, {"hotel-area": "north", "hotel-name": "cheap"}]
    for mode in MODES:
        assert score(build([(gold, pred)]), mode=mode).scores.rsa == 0.5
    corrected = score(build([(gold, pred)]), mode="corrected").scores
    assert (corrected.jga, corrected.fga, corrected.gca) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("mode", MODES)
def test_gca_of_a_perfect_prediction_is_exactly_one(mode):
    # One turn with n slots, all predicted right: C = n, W = M = O = 0, so VP = VR = LP = LR = 1
    # and GCA = (P + G) / (a P + a G + (1-a) P + (1-a) G) = 1 exactly, not 1 ± 2e-16.
    off = {}
    for n in range(1, 31):
        state = {f"hotel-slot{i}": "x" for i in range(n)}
        scores = score(build([([state], [state])]), mode=mode).scores
        assert (scores.correct, scores.wrong, scores.missed, scores.overshot) == (n, 0, 0, 0)
        if scores.gca != 1.0:
            off[n] = scores.gca
    assert off == {}


# --------------------------------------------------------------------------------------------
# Sums, order and batches


@SETTINGS
@given(pair_lists, st.randoms(use_true_random=False))
def test_figures_do_not_depend_on_the_order_of_dialogues(pairs, random):
    ids = [f"d{i}" for i in range(len(pairs))]
    order = list(range(len(pairs)))
    random.shuffle(order)
    corpus = build(pairs, ids)
    shuffled = build([pairs[i] for i in order], [ids[i] for i in order])
    for mode in MODES:
        a = score(corpus, mode=mode, per_dialogue=True)
        b = score(shuffled, mode=mode, per_dialogue=True)
        assert a.scores.as_dict() == b.scores.as_dict()
        assert {d: s.as_dict() for d, s in a.dialogues.items()} == {d: s.as_dict() for d, s in b.dialogues.items()}


@SETTINGS
@given(corpora)
def test_a_corpus_is_the_sum_of_its_dialogues(corpus):
    for mode in MODES:
        report = score(corpus, mode=mode, per_dialogue=True)
        assert set(report.dialogues) == {d.dialogue_id for d in corpus}
        dialogues = list(report.dialogues.values())
        for kind in ("correct", "wrong", "missed", "overshot", "turns"):
            assert getattr(report.scores, kind) == sum(getattr(s, kind) for s in dialogues), kind
        assert report.tally == reduce(Tally.__add__, report.dialogue_tallies.values())
        assert report.tally == reduce(Tally.__add__, (tally_dialogue(d, mode) for d in corpus))
        assert report.tally == tally_corpus(corpus.dialogues, mode)
        assert report.tally == score(corpus, mode=mode).tally
        assert report.scores.turns == corpus.num_turns
        # A tally survives pickling (how worker processes send it), and the empty tally is neutral.
        assert pickle.loads(pickle.dumps(report.tally)) == report.tally
        assert report.tally + Tally() == report.tally == Tally() + report.tally


@SETTINGS
@given(BYTES.map(lambda b: build(decode_pairs(b, max_dialogues=8))), st.lists(st.integers(0, 8), max_size=4))
def test_merged_batch_tallies_give_exactly_the_same_figures(corpus, cuts):
    dialogues = list(corpus.dialogues)
    cuts = sorted(min(cut, len(dialogues)) for cut in cuts)
    batches = [dialogues[a:b] for a, b in zip([0, *cuts], [*cuts, len(dialogues)], strict=True)]
    for mode in MODES:
        whole = score(corpus, mode=mode)
        # Each batch tallied on its own (here in reverse order), sent pickled, merged by addition.
        sent = [pickle.dumps(tally_corpus(batch, mode)) for batch in reversed(batches)]
        merged = reduce(Tally.__add__, (pickle.loads(data) for data in sent), Tally())
        assert merged == whole.tally
        merged_report = score_tallies((merged, {}), Options(mode=mode, value_matching=corpus.value_matching))
        assert merged_report.scores.as_dict() == whole.scores.as_dict()


@SETTINGS
@given(corpora)
def test_shared_and_copied_state_objects_score_the_same(corpus):
    # The builder shares the state object of unchanged consecutive turns; scoring must not
    # depend on that: the same corpus with every state copied gives the same tally.
    copied = Corpus(
        tuple(
            Dialogue(d.dialogue_id, d.turn_ids, tuple(dict(s) for s in d.gold), tuple(dict(s) for s in d.pred))
            for d in corpus
        ),
        corpus.value_matching,
    )
    for mode in MODES:
        assert score(corpus, mode=mode).tally == score(copied, mode=mode).tally


# --------------------------------------------------------------------------------------------
# Official and corrected mode agree when states only grow


def decode_growing(data: bytes, gold_values=ACTIVE) -> Corpus:
    """States that only gain slots or overwrite active values: no removal, no 'none' or '', no
    hyphenated value, turn ids 0, 1, 2, ...; every gold state is non-empty (so no turn has
    T* = 0 and AGA has turns to average). The first dialogue's first prediction is non-empty
    (P > 0: with nothing predicted VP and LP are 0 official, 1 corrected)."""
    src = Source(data)
    pairs = []
    for index in range(1 + src.below(4)):
        turns = 1 + src.below(6)
        gold = evolving_states(src, turns, gold_values, removals=False, first_nonempty=True)
        pred = evolving_states(src, turns, ACTIVE, removals=False, first_nonempty=index == 0)
        pairs.append((gold, pred))
    return build(pairs)


@SETTINGS
@given(BYTES.map(decode_growing))
def test_official_and_corrected_agree_without_removals_or_inactive_values(corpus):
    official = score(corpus, mode="official", per_dialogue=True)
    corrected = score(corpus, mode="corrected", per_dialogue=True)
    assert figures(official.scores) == figures(corrected.scores)
    assert official.tally == corrected.tally


@SETTINGS
@given(BYTES.map(lambda b: decode_growing(b, gold_values=ACTIVE + (("north", "south"), ("cheap", "4")))))
def test_official_and_corrected_agree_with_acceptable_value_lists(corpus):
    # The same with gold lists of acceptable values: "equal" means "one of them" in both modes.
    assert figures(score(corpus, mode="official").scores) == figures(score(corpus, mode="corrected").scores)


# --------------------------------------------------------------------------------------------
# The turn-level figures agree without hyphenated values or '' (RSA's empty turns included)

PLAIN = ACTIVE + ("none",)  # no '' (a value in official mode) and no hyphen (the string quirk)
PLAIN_LISTS = (("north", "south"), ("cheap", "dontcare", "4"))


@SETTINGS
@given(BYTES.map(lambda b: build(decode_pairs(b, gold_values=PLAIN + PLAIN_LISTS, pred_values=PLAIN))))
def test_turn_figures_agree_in_both_modes_without_hyphens_or_empty_strings(corpus):
    # Removals, explicit 'none' and turns with no slot on either side are all frequent here. The
    # turn-level figures of the two modes differ only through the last-hyphen quirk, '' and FGA's
    # turn ids (0, 1, 2, ... here), so without those they are equal, corpus and per dialogue;
    # in particular RSA scores T* = 0 turns 0 in both modes. (AGA is left out: with no gold slot
    # in the whole corpus it is 0 official, 1 corrected.)
    names = ("jga", "sa", "rsa", "slot_precision", "slot_recall", "slot_f1", "fga_grid")
    official = score(corpus, mode="official", per_dialogue=True)
    corrected = score(corpus, mode="corrected", per_dialogue=True)
    pairs = [(official.scores, corrected.scores)]
    pairs += [(official.dialogues[d], corrected.dialogues[d]) for d in official.dialogues]
    for a, b in pairs:
        assert {name: getattr(a, name) for name in names} == {name: getattr(b, name) for name in names}


# --------------------------------------------------------------------------------------------
# Ranges and orderings


@SETTINGS
@given(corpora_with_lists)
def test_all_scores_lie_in_the_unit_interval(corpus):
    for mode in MODES:
        report = score(corpus, mode=mode, per_dialogue=True)
        for scores in (report.scores, *report.dialogues.values()):
            assert_all_in_unit_interval(scores)


@SETTINGS
@given(corpora_with_lists)
def test_gca_is_a_mean_of_its_rates_and_fga_lies_between_jga_and_one(corpus):
    for mode in MODES:
        s = score(corpus, mode=mode, fga_lambdas=(0.1, 0.25, 0.5, 0.75, 1.0, 5.0)).scores
        # A weighted harmonic mean lies between the smallest and the largest rate, and is 0 when
        # one of them is 0; a value match is also a label match.
        rates = (s.value_precision, s.value_recall, s.label_precision, s.label_recall)
        if min(rates) == 0:
            assert s.gca == 0
        else:
            assert min(rates) - 1e-12 <= s.gca <= max(rates) + 1e-12
        assert s.value_precision <= s.label_precision
        assert s.value_recall <= s.label_recall
        # FGA gives type-2 errors 1 - e^{-λd} in (0, 1): JGA <= FGA, growing with λ.
        grid = [s.fga_grid[lam] for lam in sorted(s.fga_grid)]
        assert s.jga <= grid[0] + 1e-12
        assert all(a <= b + 1e-12 for a, b in zip(grid, grid[1:], strict=False))


# --------------------------------------------------------------------------------------------
# Symmetry of corrected mode


@SETTINGS
@given(pair_lists)
def test_corrected_mode_is_symmetric_in_gold_and_prediction(pairs):
    # Corrected mode compares each changed slot once: swapping gold and prediction turns missed
    # into overshot and back (C and W stay), so P and G, VP and VR, LP and LR trade places and
    # GCA (symmetric in those pairs) is unchanged; JGA, FGA and RSA are symmetric too, and slot
    # precision and recall trade places. (Official mode is not: a shared removal is correct +
    # missed whichever side is called gold.)
    forward = score(build(pairs), mode="corrected").scores
    backward = score(build([(pred, gold) for gold, pred in pairs]), mode="corrected").scores
    assert (backward.correct, backward.wrong, backward.missed, backward.overshot) == (
        forward.correct,
        forward.wrong,
        forward.overshot,
        forward.missed,
    )
    assert math.isclose(backward.gca, forward.gca, rel_tol=1e-12, abs_tol=1e-15)
    assert (backward.value_precision, backward.label_precision) == (
        forward.value_recall,
        forward.label_recall,
    )
    assert (backward.jga, backward.rsa, backward.fga_grid) == (forward.jga, forward.rsa, forward.fga_grid)
    assert (backward.slot_precision, backward.slot_recall) == (forward.slot_recall, forward.slot_precision)
    assert backward.slot_f1 == forward.slot_f1


# --------------------------------------------------------------------------------------------
# Input shapes

SHAPE_VALUES = ("north", "guest-house", "2019-03-08", "a b", "18:45", "12", "it's", "-", "a-b-c", "")


def decode_contents(src: Source) -> list[tuple[str, str, str]]:
    """A state's content: (domain, slot, value) triples with distinct (domain, slot)."""
    content = {}
    for _ in range(src.below(5)):
        content[(src.choice(DOMAINS), src.choice(SLOTS))] = src.choice(SHAPE_VALUES)
    return [(domain, slot, value) for (domain, slot), value in content.items()]


def nested(content):
    out: dict = {}
    for domain, slot, value in content:
        out.setdefault(domain, {})[slot] = value
    return out


SHAPES = {
    "nested": nested,
    "flat": lambda c: {f"{d}-{s}": v for d, s, v in c},
    "triples": lambda c: [(d, s, v) for d, s, v in c],
    "lists": lambda c: [[d, s, v] for d, s, v in c],
    "strings": lambda c: [f"{d}-{s}-{v}" for d, s, v in c],
    "linearized": lambda c: "; ".join(f"{d}-{s}={v}" for d, s, v in c),
}


@SETTINGS
@given(BYTES)
def test_every_input_shape_gives_identical_results(data):
    src = Source(data)
    dialogues = []
    for _ in range(1 + src.below(3)):
        turns = 1 + src.below(4)
        dialogues.append(([decode_contents(src) for _ in range(turns)], [decode_contents(src) for _ in range(turns)]))
    built = {
        name: build([([shape(c) for c in gold], [shape(c) for c in pred]) for gold, pred in dialogues])
        for name, shape in SHAPES.items()
    }
    reference = built["flat"]
    for name, corpus in built.items():
        assert corpus == reference, name
    for mode in MODES:
        assert score(built["strings"], mode=mode).scores.as_dict() == score(reference, mode=mode).scores.as_dict()


@SETTINGS
@given(corpora_with_lists)
def test_normalized_matching_equals_exact_on_canonical_values(corpus):
    # Every generated value is lower case with single spaces, so normalizing changes nothing.
    raw = {
        d.dialogue_id: {
            str(t): {"gt": {s: sorted(v) if isinstance(v, frozenset) else v for s, v in g.items()}, "pr": p}
            for t, g, p in zip(d.turn_ids, d.gold, d.pred, strict=True)
        }
        for d in corpus
    }
    exact = Corpus.from_reference_layout(raw, value_matching="exact")
    normalized = Corpus.from_reference_layout(raw, value_matching="normalized")
    assert exact.dialogues == normalized.dialogues == corpus.dialogues
    for mode in MODES:
        assert figures(score(exact, mode=mode).scores) == figures(score(normalized, mode=mode).scores)


# --------------------------------------------------------------------------------------------
# Fuzz: garbage in, a corpus or an InputError out

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["none", "", "hotel-area-north", "hotel-area=north", "a=b;c", "1", "-1", "01"]),
)
garbage = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(SLOT_NAMES + DOMAINS)), children, max_size=4),
    ),
    max_leaves=16,
)
state_like = st.one_of(
    garbage,
    st.dictionaries(st.sampled_from(SLOT_NAMES), st.one_of(scalars, st.lists(scalars, max_size=3)), max_size=4),
    st.dictionaries(st.sampled_from(DOMAINS), st.dictionaries(st.sampled_from(SLOTS), scalars, max_size=3), max_size=2),
    st.lists(
        st.one_of(st.text(max_size=12), st.tuples(scalars, scalars, scalars), st.lists(scalars, max_size=4)),
        max_size=3,
    ),
)
turn_like = st.one_of(
    garbage,
    st.fixed_dictionaries({"gt": state_like, "pr": state_like}),
    st.fixed_dictionaries({"gt": state_like}),
)
turn_key = st.one_of(
    st.integers(-2, 6),
    st.integers(-2, 6).map(str),
    st.text(max_size=3),
    st.sampled_from([" 1", "1_0", "٣", "1.0"]),
)
reference_like = st.one_of(
    garbage,
    st.dictionaries(
        st.text(max_size=4), st.one_of(garbage, st.dictionaries(turn_key, turn_like, max_size=4)), max_size=3
    ),
)


@settings(SETTINGS, max_examples=EXAMPLES or 200)
@given(reference_like, st.sampled_from(["exact", "normalized"]))
def test_garbage_gives_a_corpus_or_an_input_error(data, matching):
    try:
        corpus = Corpus.from_reference_layout(data, value_matching=matching)
    except InputError as error:
        assert str(error)
        return
    assert len(corpus) >= 1
    for mode in MODES:
        report = score(corpus, mode=mode, per_dialogue=True)
        for scores in (report.scores, *report.dialogues.values()):
            assert_all_in_unit_interval(scores)


record_like = st.one_of(
    garbage, st.fixed_dictionaries({"dialogue_id": scalars, "turn_id": scalars, "state": state_like})
)


@settings(SETTINGS, max_examples=EXAMPLES or 100)
@given(st.lists(record_like, max_size=4), st.lists(garbage, max_size=2))
def test_garbage_turn_records_give_a_corpus_or_an_input_error(records, extra):
    try:
        corpus = Corpus.from_turn_records(records, records + extra)
    except InputError:
        return
    for mode in MODES:
        assert_all_in_unit_interval(score(corpus, mode=mode).scores)


STRING_SLOTS = ("hotel-area", "hotel-type", "hotel-type-guest", "taxi-leave at")
STRING_VALUES = ("north", "house", "guest-house", "hotel", "12:00")
string_states = st.dictionaries(st.sampled_from(STRING_SLOTS), st.sampled_from(STRING_VALUES), max_size=4)
plain_string_states = st.dictionaries(st.sampled_from(STRING_SLOTS), st.sampled_from(("north", "12:00")), max_size=4)


@SETTINGS
@given(st.one_of(string_states, plain_string_states), st.one_of(string_states, plain_string_states))
def test_the_string_reading_of_sa_and_rsa_is_exact_without_hyphenated_values(gold, pred):
    # Official SA/RSA read 'domain-slot-value' strings (slot = text before the last hyphen). With
    # no hyphen in any value that reading is the (slot, value) one, so the scorer may use the
    # string path for every state of a dialogue once a hyphenated value has appeared in it.
    from dst_metrics.core.tally import official_string_figures, turn_figures

    fast = turn_figures(gold, pred)
    slot_errors, relative_hits, relative_total = official_string_figures(gold, pred)
    if not any("-" in value for value in (*gold.values(), *pred.values())):
        assert (slot_errors, relative_hits, relative_total) == (fast[1], fast[4], fast[5])


def test_tally_addition_adds_every_field():
    # Distinct values in every field (and distinct histogram keys), so a field the addition forgot
    # or took from the wrong side shows; a new Tally field must be added to __add__ too.
    from dataclasses import fields

    def filled(offset: int) -> Tally:
        values = {}
        for index, f in enumerate(fields(Tally)):
            number = 10 * index + offset
            values[f.name] = {offset: number, 99: number} if "dict" in str(f.type) else number
        return Tally(**values)

    a, b = filled(1), filled(2)
    total = a + b
    for index, f in enumerate(fields(Tally)):
        mine, theirs = getattr(a, f.name), getattr(b, f.name)
        if isinstance(mine, dict):
            assert getattr(total, f.name) == {1: mine[1], 2: theirs[2], 99: mine[99] + theirs[99]}, f.name
        else:
            assert getattr(total, f.name) == mine + theirs == 20 * index + 3, f.name


@SETTINGS
@given(corpora)
def test_each_sides_changes_are_the_pairs_a_plain_diff_finds(corpus):
    # advance_side computes a turn's changes as set operations on the maps; they must be exactly the pairs
    # side_changes lists, on maps built the plain way (official: every slot seen so far, absent -> "none")
    from dst_metrics.core.tally import advance_side, side_changes
    from dst_metrics.states import INACTIVE_VALUES

    for dialogue in corpus.dialogues:
        for states in (dialogue.gold, dialogue.pred):
            for official in (True, False):
                previous: dict = {}
                seen: dict = {}
                hyphen = False
                for state in states:
                    active, gca_map, changes, hyphen = advance_side(state, previous, official, hyphen)
                    if official:
                        seen.update(dict.fromkeys(state, None))
                        expected_map = {**dict.fromkeys(seen, "none"), **state}
                        expected = side_changes(expected_map, previous, False)
                        assert active == {s: v for s, v in state.items() if v != "none"}
                    else:
                        expected_map = {s: v for s, v in state.items() if v not in INACTIVE_VALUES}
                        expected = side_changes(expected_map, previous, True)
                        assert active == expected_map
                    assert gca_map == expected_map
                    assert sorted(changes, key=repr) == sorted(expected, key=repr)
                    previous = gca_map


@SETTINGS
@given(corpora)
def test_tallies_pickle_and_deep_copy_to_equal_independent_tallies(corpus):
    import copy

    tally = tally_corpus(corpus.dialogues)
    for again in (pickle.loads(pickle.dumps(tally)), copy.deepcopy(tally)):
        assert again == tally
        again.fga_distances[10**6] = 1  # no dict shared with the original
        assert 10**6 not in tally.fga_distances


@SETTINGS
@given(
    st.dictionaries(st.integers(1, 40), st.integers(1, 50), max_size=8), st.sampled_from([0.25, 0.5, 0.75, 1.0, 0.1])
)
def test_fga_is_its_formula_in_any_order_of_the_distances(distances, lam):
    # metrics.fga caches each histogram's type-2 credit; the value is the formula's, summed exactly
    from dst_metrics.figures import metrics

    turns = sum(distances.values()) + 3
    expected = (2 + math.fsum(c * (1.0 - math.exp(-lam * d)) for d, c in distances.items())) / turns
    for items in (distances.items(), reversed(list(distances.items()))):
        tally = Tally(turns=turns, joint_hits=2, fga_distances=dict(items))
        assert metrics.fga(tally, lam) == expected


_VALUES = st.sampled_from(("north", "guest-house", "", "none", "4", "a-b-c", "cheap"))
_STATE_VALUES = st.one_of(_VALUES, st.frozensets(_VALUES, min_size=2, max_size=3))
_STATES = st.dictionaries(st.sampled_from(SLOT_NAMES + ("hotel-book-day",)), _STATE_VALUES, max_size=4)


@SETTINGS
@given(_STATES, _STATES)
def test_the_strings_figures_are_the_slots_figures_unless_a_value_has_a_hyphen(gold, pred):
    # compat profiles (fga, trade) read a turn as the code's strings only when `hyphenated` says the
    # reading can differ; where it says no, both readings give the same eight figures.
    from dst_metrics.core.tally import hyphenated, turn_figures
    from dst_metrics.states import Alternatives

    gold = {slot: Alternatives(v) if isinstance(v, frozenset) else v for slot, v in gold.items()}
    pred = {slot: min(v) if isinstance(v, frozenset) else v for slot, v in pred.items()}
    if not (hyphenated(gold) or hyphenated(pred)):
        assert turn_figures(gold, pred, string_quirk=True) == turn_figures(gold, pred, string_quirk=False)


def test_a_hyphen_can_change_the_strings_figures():
    # the other side of the property above: `hyphenated` is not a check that never matters
    from dst_metrics.core.tally import hyphenated, turn_figures
    from dst_metrics.states import Alternatives

    for gold, pred in (
        ({"hotel-type": "guest-house"}, {"hotel-type": "hotel"}),
        ({"hotel-type": Alternatives(["guest-house", "inn-x"])}, {"hotel-type": "hotel"}),
    ):
        assert hyphenated(gold) and not hyphenated(pred)
        assert turn_figures(gold, pred, string_quirk=True) != turn_figures(gold, pred, string_quirk=False)


@SETTINGS
@given(
    st.integers(0, 10**12),
    st.integers(0, 10**12),
    st.integers(0, 10**12),
    st.integers(0, 10**12),
    st.sampled_from([10 / 11, 0.5, 0.3, 1.0, 0.0, 1 / 3]),
)
def test_gca_is_its_exact_value_rounded_once(correct, wrong, missed, overshot, alpha):
    # (P+G)·C·L / ((P²+G²)(α·L + (1-α)·C)) in integers with α's exact ratio: the products pass 2^53, and
    # the division must round them as CPython does (a compiled build that went through floats moved
    # the last digit of 720 per-dialogue values of one file)
    from fractions import Fraction

    from dst_metrics.figures import metrics

    tally = Tally(correct=correct, wrong=wrong, missed=missed, overshot=overshot)
    predicted, gold, labelled = correct + wrong + overshot, correct + wrong + missed, correct + wrong
    value = metrics.gca(tally, alpha, "official")
    if predicted == gold == 0 or correct == 0:
        assert value == 0.0
        return
    a = Fraction(alpha)
    denominator = (predicted**2 + gold**2) * (a * labelled + (1 - a) * correct)
    exact = Fraction(predicted + gold) * correct * labelled / denominator
    assert value == float(exact)
