"""The Arrow codec of the evaluate modules (`dst_metrics.hf_evaluate.arrow`) on its own: it needs
pyarrow and numpy only, and a corpus survives the round trip corpus -> rows -> corpus with the
same dialogues, states (shared as the core shares them) and figures.

Nothing here imports `evaluate` or `datasets`.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import Corpus, InputError, OptionError, score
from dst_metrics.hf_evaluate.arrow import SCHEMA, corpus_from_arrow

from .arrow_rows import corpus_table
from .conftest import REFERENCE, REPO, requires_shared
from .samples import GOLD, PRED


def round_trip(corpus: Corpus, value_matching: str = "exact") -> Corpus:
    table = corpus_table(corpus)
    assert table.schema == SCHEMA
    return corpus_from_arrow(table["predictions"], table["references"], value_matching)


def by_id(corpus: Corpus) -> dict:
    return {dialogue.dialogue_id: dialogue for dialogue in corpus.dialogues}


def assert_shared_like_the_core(corpus: Corpus) -> None:
    """Consecutive equal states of a dialogue are one object; different ones are not equal."""
    for dialogue in corpus.dialogues:
        for states in (dialogue.gold, dialogue.pred):
            for before, after in zip(states, states[1:]):
                if before is not after:
                    assert list(before.items()) != list(after.items())


def test_importing_the_codec_imports_neither_evaluate_nor_datasets():
    # a fresh process: this one may have imported evaluate for other test files
    code = (
        "import json, sys\n"
        "import dst_metrics.hf_evaluate.arrow\n"
        "arrow_only = sorted(name for name in ('evaluate', 'datasets') if name in sys.modules)\n"
        "import dst_metrics.hf_evaluate.batches, dst_metrics.hf_evaluate.docs, dst_metrics.hf_evaluate.demo\n"
        "package = sorted(name for name in ('evaluate', 'datasets', 'gradio') if name in sys.modules)\n"
        "print(json.dumps([arrow_only, package, 'pyarrow' in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, timeout=120
    ).stdout
    arrow_only, package, pyarrow_loaded = json.loads(out)
    assert arrow_only == [], "importing dst_metrics.hf_evaluate.arrow imported " + ", ".join(arrow_only)
    assert package == []  # the package docstring: none of evaluate, datasets, gradio
    assert pyarrow_loaded


def test_hand_made_corpus_round_trip():
    corpus = Corpus.from_dialogues(PRED, GOLD)
    table = corpus_table(corpus)
    assert table.num_rows == corpus.num_turns == 6
    assert table["references"].combine_chunks().field("dialogue_id").to_pylist() == ["0"] * 3 + ["1"] * 3
    assert table["references"].combine_chunks().field("turn_id").to_pylist() == [0, 1, 2] * 2
    gold_states = table["references"].combine_chunks().field("state").to_pylist()
    assert gold_states[4] == [{"slot": "taxi-leave at", "values": ["17:00", "5 pm"]}]  # acceptable values
    back = corpus_from_arrow(table["predictions"], table["references"])
    assert back == corpus
    assert back.dialogues[1].gold[1]["taxi-leave at"] == frozenset({"17:00", "5 pm"})
    assert back.dialogues[1].gold[1]["taxi-leave at"].order == ("17:00", "5 pm")  # the order given
    assert back.dialogues[1].gold[1] is not back.dialogues[1].gold[2]
    for mode in ("official", "corrected"):
        assert score(back, mode=mode).scores == score(corpus, mode=mode).scores
    # the paper's figures of this data, unchanged by the trip
    assert round(score(back).scores.gca * 100, 2) == round(score(corpus).scores.gca * 100, 2)


def test_rows_in_any_order_and_chunks_give_the_same_corpus():
    dialogues = [[{"hotel-area": "north"}, {"hotel-area": "north"}, {"hotel-area": "south", "hotel-stars": "4"}]] * 12
    preds = [[{"hotel-area": "north"}, {"hotel-area": "north"}, {"hotel-area": "south"}]] * 12
    corpus = Corpus.from_dialogues(preds, dialogues)
    table = corpus_table(corpus)
    order = list(range(table.num_rows))
    random.Random(5).shuffle(order)
    shuffled = table.take(pa.array(order))
    chunks = pa.concat_tables([shuffled.slice(i, 7) for i in range(0, shuffled.num_rows, 7)])
    assert chunks["references"].num_chunks > 1
    back = corpus_from_arrow(chunks["predictions"], chunks["references"])
    assert by_id(back) == by_id(corpus)  # ordered by dialogue id ("10" before "2"), turns in order
    assert [d.dialogue_id for d in back.dialogues] == sorted(d.dialogue_id for d in corpus.dialogues)
    assert_shared_like_the_core(back)
    first = back.dialogue("0")
    assert first.gold[0] is first.gold[1] and first.pred[0] is first.pred[1]
    assert score(back).scores == score(corpus).scores


def test_value_matching_is_applied_on_decoding():
    gold = [[{"hotel-area": "North "}, {"hotel-area": ["North", "centre"], "hotel-name": "A  B"}]]
    pred = [[{"hotel-area": "north"}, {"hotel-area": "CENTRE", "hotel-name": "a b"}]]
    normalized = Corpus.from_dialogues(pred, gold, value_matching="normalized")
    exact = Corpus.from_dialogues(pred, gold)
    back = round_trip(exact, "normalized")
    assert back == normalized and back.value_matching == "normalized"
    assert round_trip(normalized, "normalized") == normalized
    assert score(back).scores == score(normalized).scores
    assert score(back).scores.jga == 1.0 and score(exact).scores.jga == 0.0
    with pytest.raises(OptionError, match="value_matching"):
        round_trip(exact, "phonetic")


def test_values_are_folded_once_each_and_states_equal_after_folding_are_shared(monkeypatch):
    from dst_metrics.hf_evaluate import arrow

    gold = [[{"hotel-area": "North"}, {"hotel-area": "north "}, {"hotel-area": "NORTH", "hotel-stars": "4"}]]
    pred = [[{"hotel-area": "north"}, {"hotel-area": "North"}, {"hotel-area": "north", "hotel-stars": " 4"}]]
    exact = Corpus.from_dialogues(pred, gold)
    folds = []
    normalize_state = arrow.normalize_state

    def counting(raw, **kwargs):
        folds.append(raw)
        return normalize_state(raw, **kwargs)

    monkeypatch.setattr(arrow, "normalize_state", counting)
    for matching in ("normalized", "fuzzy"):
        folds.clear()
        back = round_trip(exact, matching)
        assert back == Corpus.from_dialogues(pred, gold, value_matching=matching)
        assert len(folds) == 7  # the distinct values: 4 gold, 3 predicted
        dialogue = back.dialogues[0]
        assert dialogue.gold[0] is dialogue.gold[1] and dialogue.pred[0] is dialogue.pred[1]
        assert_shared_like_the_core(back)
        assert score(back).scores.jga == 1.0


def test_exact_rows_are_decoded_without_normalizing_a_state_again(monkeypatch):
    # add_batch() normalizes each state once (CorpusBuilder); compute() reads the rows back into states
    # without normalize_state or plain_state (other value matchings fold each distinct value once: above)
    from dst_metrics import corpus as corpus_module
    from dst_metrics.hf_evaluate import arrow

    corpora = [Corpus.from_dialogues(PRED, GOLD), Corpus.from_dialogues(PRED, GOLD, gold_alternatives="first")]
    calls = []
    patched = ((arrow, "normalize_state"), (corpus_module, "normalize_state"), (corpus_module, "plain_state"))
    for module, name in patched:
        monkeypatch.setattr(module, name, lambda *args, name=name, **kwargs: calls.append(name))
    for corpus in corpora:
        assert round_trip(corpus) == corpus
    assert calls == []


def test_bad_rows_fail_at_decoding():
    table = corpus_table(Corpus.from_dialogues(PRED, GOLD))
    both = pa.concat_tables([table, table])  # two writers added the same turns
    with pytest.raises(InputError, match="added twice") as caught:
        corpus_from_arrow(both["predictions"], both["references"])
    assert str(caught.value).startswith('dialogue "0", turn 0: ')
    other = corpus_table(Corpus.from_dialogues(PRED[:1], GOLD[:1], dialogue_ids=["x"]))
    with pytest.raises(InputError, match="different turns"):
        corpus_from_arrow(other["predictions"], table.slice(0, 3)["references"])
    with pytest.raises(InputError, match="the corpus is empty"):
        corpus_from_arrow(table.slice(0, 0)["predictions"], table.slice(0, 0)["references"])


_values = st.sampled_from(["north", "south", "none", "", "guest-house", "North"])
_gold_values = st.one_of(_values, st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=3, unique=True))
_slots = st.sampled_from(["hotel-area", "hotel-type", "taxi-leave at"])
_dialogue = st.lists(
    st.tuples(st.dictionaries(_slots, _gold_values, max_size=3), st.dictionaries(_slots, _values, max_size=3)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_dialogue, min_size=1, max_size=4), st.booleans(), st.sampled_from(["exact", "normalized"]))
def test_round_trip_keeps_states_shares_equal_neighbours_and_scores(dialogues, repeat, matching):
    if repeat:  # consecutive repeated turns, as real dialogues have
        dialogues = [[turn for turn in dialogue for _ in range(2)] for dialogue in dialogues]
    golds = [[g for g, _ in dialogue] for dialogue in dialogues]
    preds = [[p for _, p in dialogue] for dialogue in dialogues]
    corpus = Corpus.from_dialogues(preds, golds, value_matching=matching)
    back = round_trip(corpus, matching)
    assert back == corpus
    assert_shared_like_the_core(back)
    for mode in ("official", "corrected"):
        assert score(back, mode=mode).scores == score(corpus, mode=mode).scores


@requires_shared
@pytest.mark.parametrize("name", ["T5_result_zeroshot_rest", "T5_result_zeroshot_attraction"])
def test_t5_files_round_trip_with_the_published_figures(name):
    from dst_metrics import read

    corpus = read(REFERENCE / "t5_zeroshot" / "predictions" / f"{name}.json")
    published = json.loads((REFERENCE / "t5_zeroshot" / "published" / f"{name}.json").read_text())
    back = round_trip(corpus)
    assert by_id(back) == by_id(corpus)
    scores = score(back).scores
    assert scores == score(corpus).scores
    assert round(scores.gca * 100, 2) == published["GCA"]
    assert round(scores.jga * 100, 2) == published["JGA"]
    assert round(scores.rsa * 100, 2) == published["RSA"]
    # the turns whose state the core shares with the turn before share it after the trip too
    for dialogue in corpus.dialogues:
        decoded = back.dialogue(dialogue.dialogue_id)
        for side in ("gold", "pred"):
            states, after = getattr(dialogue, side), getattr(decoded, side)
            shared = [i for i in range(1, len(states)) if states[i] is states[i - 1]]
            assert shared == [i for i in range(1, len(after)) if after[i] is after[i - 1]], (dialogue.dialogue_id, side)
