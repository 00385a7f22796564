"""The figure registry is the one list every output reads: the library's Scores, the command
line's JSON and table, the `evaluate` modules and the Space's table. Adding a figure is one
`register` call (or one entry in `FIGURES`), shown here with a figure registered for the test.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from dst_metrics import Options, read, score
from dst_metrics.cli import main
from dst_metrics.figures import registry as figures
from dst_metrics.figures.registry import FIGURES, Figure, figure_keys, figure_labels
from tests.conftest import REPO, needs

EXAMPLE = REPO / "examples" / "first_example_p1.json"
GOLD = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]]
PRED = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}]]


def cli_json(capsys, path: Path, *args: str) -> dict:
    assert main(["score", str(path), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def evaluate_outputs() -> dict:
    evaluate = pytest.importorskip("evaluate", reason=needs("evaluate", "evaluate"))
    out = {}
    for folder in ("gca_metric", "jga_fga_metrics"):
        module = evaluate.load(str(REPO / folder))
        results = module.compute(predictions=PRED, references=GOLD)
        assert "signature" in results
        assert not set(results) & set(out) - {"signature"}, "two modules return the same figure"
        out.update(results)
    every = evaluate.load(str(REPO / "dst_metrics_all")).compute(predictions=PRED, references=GOLD)
    assert every == out  # the third module: both families in one
    return out


def space_table_keys() -> list[str]:
    """The figure keys of the Space's tables, in the order its page draws them (data-metric cells)."""
    pytest.importorskip("gradio", reason=needs("space", "gradio"))
    from dst_metrics.space.explore import explore

    out = explore([("P1", EXAMPLE.read_text())])
    assert out.ok, out.status
    return list(dict.fromkeys(re.findall(r'data-metric="([^"]+)"', out.metrics + out.details)))


def test_keys_are_unique_and_families_split_them_between_the_modules():
    keys = figure_keys(Options())
    per_lambda = [figure for figure in FIGURES if figure.per_lambda]  # one key per λ of the grid
    assert len(keys) == len(set(keys)) == len(FIGURES) - len(per_lambda) + len(per_lambda) * len(Options().per_lambda)
    assert set(keys) == set(figure_keys(Options(), ["gca"])) | set(figure_keys(Options(), ["turn"]))
    assert {"gca", "jga", "fga", "fga@0.25", "fga@1.0", "missed", "turns"} <= set(keys)
    assert {"joint_turn_accuracy", "final_jga"} <= set(figure_keys(Options(), ["turn"]))
    labels = figure_labels(Options(fga_lambdas=(0.3,)))
    assert labels["fga@0.3"] == "FGA λ=0.3" and labels["slot_f1"] == "Slot F1"


def test_every_registered_figure_appears_in_every_output(capsys):
    keys = figure_keys(Options())
    assert list(score(read(EXAMPLE)).scores) == keys
    record = cli_json(capsys, EXAMPLE)
    assert [
        key for key in record if key not in ("schema", "inputs", "file", "format", "signature", "signatures")
    ] == keys
    assert list(record["signatures"]) == keys
    assert set(evaluate_outputs()) - {"signature"} == set(keys)
    table = space_table_keys()
    assert [key for key in table if key in keys] == keys


def test_a_grid_of_other_lambdas_gives_its_own_keys_everywhere(capsys):
    options = Options(fga_lambdas=(0.1, 2.0))
    keys = figure_keys(options)
    assert "fga@0.1" in keys and "fga@2.0" in keys and "fga@0.25" not in keys
    assert list(score(read(EXAMPLE), options).scores) == keys


@pytest.fixture
def registered_figure():
    """A figure added for the test only: GCA's share of wrong among judged slots."""
    figure = figures.register(
        Figure(
            "wrong_share",
            "Wrong share",
            "gca",
            "detail",
            "W / (C+W+M+O): a test figure",
            lambda t, o: t.wrong / max(1, t.correct + t.wrong + t.missed + t.overshot),
            higher_is_better=False,
            per_dialogue=True,
        )
    )
    yield figure
    FIGURES.remove(figure)


def test_adding_a_figure_is_one_registration(registered_figure, capsys):
    # First example P1: C=5, W=2, M=O=0 -> 2/7 everywhere, with no other change to any output.
    expected = 2 / 7
    scores = score(read(EXAMPLE), per_dialogue=True)
    assert scores.scores.wrong_share == expected
    assert scores.dialogues["MUL0003"]["wrong_share"] == expected
    record = cli_json(capsys, EXAMPLE, "--per-dialogue")
    assert record["wrong_share"] == expected
    assert record["dialogues"]["MUL0003"]["wrong_share"] == expected
    assert main(["score", str(EXAMPLE), "--per-dialogue"]) == 0
    assert "Wrong share" in capsys.readouterr().out  # a per-dialogue figure gets a column
    outputs = evaluate_outputs()
    assert outputs["wrong_share"] == 1 / 2  # GOLD/PRED above: C=1, W=1
    assert "wrong_share" in space_table_keys()


def test_register_refuses_a_key_twice_and_unknown_families():
    with pytest.raises(ValueError, match="registered already"):
        figures.register(FIGURES[0])
    with pytest.raises(ValueError, match="unknown family"):
        figures.register(Figure("x", "X", "nope", "main", "", lambda t, o: 0.0))
    with pytest.raises(ValueError, match=r"uses names no option: \['lambda'\]"):
        figures.register(Figure("x", "X", "turn", "main", "", lambda t, o: 0.0, uses=("lambda",)))


def test_higher_is_better_matches_what_a_perfect_prediction_maximizes():
    # A perfect prediction (corrected mode) is at the best end of every score, and has no
    # wrong, missed or overshot count.
    gold = [[{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"}]]
    from dst_metrics import Corpus

    perfect = score(Corpus.from_dialogues(gold, gold), mode="corrected").scores
    for figure in FIGURES:
        for key in figure.keys(Options()):
            value = perfect[key]
            if figure.is_count:
                assert isinstance(value, int)
                if figure.higher_is_better is False:
                    assert value == 0, key
            elif figure.higher_is_better:
                assert math.isclose(value, 1.0), key


def test_every_family_has_unique_keys_across_the_registries():
    from dst_metrics.figures.calibration import CALIBRATION_FIGURES
    from dst_metrics.figures.registry import FAMILIES

    registries = {family: [f for f in FIGURES if f.family == family] for family in FAMILIES}
    registries |= {"calibration": CALIBRATION_FIGURES}
    seen: dict[str, str] = {}
    for family, entries in registries.items():
        assert entries, family
        for entry in entries:
            assert entry.family == family and entry.label and entry.description
            assert isinstance(entry.higher_is_better, bool) or entry.higher_is_better is None
        keys = figure_keys(Options(), [family]) if family in FAMILIES else [entry.key for entry in entries]
        for key in keys:
            assert key not in seen, f"{key} is in {seen.get(key)} and {family}"
            seen[key] = family
    assert {"gca", "jga", "fga@0.25", "slot_ece", "joint_brier"} <= set(seen)


def test_each_figure_names_the_options_that_change_it():
    # First example P1 (C=5, W=2, type-2 FGA errors, slot errors): changing alpha, lambda, K or teacher forcing moves
    # exactly the figures whose entry names it; the others keep their values.
    corpus = read(EXAMPLE)
    before = score(corpus).scores
    for name, value in {"alpha": 0.5, "fga_lambda": 2.0, "num_slots": 7, "teacher_forced": True}.items():
        after = score(corpus, Options().replace(**{name: value})).scores
        moved = {key for key in before if after[key] != before[key]}
        assert moved == {f.key for f in FIGURES if name in f.uses and not f.per_lambda}, name
    assert {f.key: f.uses for f in FIGURES if f.uses and not f.per_lambda} == {
        "gca": ("alpha",),
        "fga": ("fga_lambda",),
        "sa": ("num_slots",),
        "joint_turn_accuracy": ("teacher_forced",),
    }


def test_mode_changes_even_jga_so_every_signature_names_mode_and_matching():
    from dst_metrics import Corpus, __version__

    corpus = Corpus.from_dialogues([[{"hotel-area": ""}]], [[{}]])  # "" is a value in official mode only
    official, corrected = (score(corpus, mode=mode).scores for mode in ("official", "corrected"))
    assert (official.jga, corrected.jga) == (0.0, 1.0)
    assert official.signature_of("jga") == f"dst-metrics:{__version__}|mode:official|match:exact"


def test_a_figures_signature_names_only_its_options_and_the_result_signature_all():
    from dst_metrics import __version__

    version = f"dst-metrics:{__version__}"
    scores = score(read(EXAMPLE), fga_lambdas=[0.25, 1.0]).scores
    assert scores.signature == f"{version}|mode:official|alpha:10/11|lambda:0.5|lambdas:0.25,1|K:30|match:exact"
    assert scores.signature_of("gca") == f"{version}|mode:official|alpha:10/11|match:exact"
    assert scores.signature_of("fga") == f"{version}|mode:official|lambda:0.5|match:exact"
    assert scores.signature_of("fga@1.0") == f"{version}|mode:official|lambda:1|match:exact"
    assert scores.signature_of("sa") == f"{version}|mode:official|K:30|match:exact"
    assert scores.signature_of("rsa") == scores.signature_of("turns") == f"{version}|mode:official|match:exact"
    assert scores.signatures() == {key: scores.signature_of(key) for key in scores}
    with pytest.raises(KeyError):
        scores.signature_of("bleu")
    trade = score(read(EXAMPLE), compat="trade").scores  # trade replaces jga, sa and slot_f1
    assert (
        trade.signature_of("jga")
        == trade.signature
        == f"{version}|mode:official|alpha:10/11|lambda:0.5|K:30|match:exact|compat:trade"
    )
    assert trade.signature_of("gca") == f"{version}|mode:official|alpha:10/11|match:exact"


def test_the_bootstrap_reads_each_figures_vectorised_form_from_its_entry(registered_figure):
    np = pytest.importorskip("numpy", reason=needs("stats", "numpy"))
    from dst_metrics.stats.bootstrap import dialogue_matrix
    from dst_metrics.stats.matrix import exact_figures, figure_arrays

    builtin = [f for f in FIGURES if not f.is_count and f is not registered_figure]
    assert all(f.vectorised for f in builtin)  # no built-in figure is computed row by row
    options = Options(alpha=0.7, fga_lambdas=(0.3, 2.0))
    matrix = dialogue_matrix(read(EXAMPLE), options)
    rows = np.vstack([matrix.rows, matrix.total])
    arrays = figure_arrays(rows, matrix.layout, options)  # wrong_share has none: computed by `compute`
    for index, row in enumerate(rows):
        for key, value in exact_figures(row, matrix.layout, options).items():
            assert arrays[key][index] == pytest.approx(value, abs=1e-12), key


def test_the_registry_needs_no_numpy():
    import subprocess
    import sys

    code = "import sys, dst_metrics.figures.registry, dst_metrics.scoring.scores; print('numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_a_figures_grid_equals_its_compute_lambda_by_lambda():
    # --per-dialogue computes FGA at the whole grid at once (`Figure.grid`): the same digits as λ by λ
    from dst_metrics.core.tally import tally_each
    from tests.test_parallel import random_layout

    corpus = read(random_layout(21, dialogues=60))
    gridded = [figure for figure in FIGURES if figure.per_lambda and figure.grid is not None]
    assert gridded, "no figure has a grid"
    for mode in ("official", "corrected"):
        total, by_dialogue = tally_each(corpus.dialogues, mode)
        assert any(tally.fga_distances for tally in by_dialogue.values())  # type-2 credit is exercised
        for options in (Options(mode=mode), Options.from_kwargs({"mode": mode, "fga_lambda": [0.1, 0.5, 2.0, 0.3]})):
            for figure in gridded:
                for tally in [total, *by_dialogue.values()]:
                    expected = [figure.compute(tally, at) for _, at in options.per_lambda]
                    assert list(figure.grid(tally, options)) == expected


# A Tally's GCA and JGA (native ints when compiled) must be the formula over any `Columns` of the same sums, bit
# for bit, ints past a double's and a machine word's included. The script prints each mismatch; it runs here (pure)
# and on the compiled modules (tests/test_compiled.py). (A typed copy of both formulas for a Tally, kept for
# speed, was deleted: `--per-dialogue` compiled at 201,540 turns was no slower without it, CPU ratio 0.97.)
TALLY_PATHS_SCRIPT = """
import random, types
from dataclasses import fields
from dst_metrics.figures import metrics
from dst_metrics.core.tally import Tally

rng = random.Random(33)
TOPS = (3, 40, 10**6, 2**53 + 7, 2**70)  # zeros and ties, counts, and ints past a double's and a machine word's

def draw():
    top = rng.choice(TOPS)
    counts = {name: rng.choice((0, rng.randint(0, top))) for name in ("correct", "wrong", "missed", "overshot")}
    turns = rng.randint(1, top)
    return Tally(turns=turns, joint_hits=rng.randint(0, turns), **counts)

checked = 0
for _ in range(4000):
    tally = draw()
    view = types.SimpleNamespace(ops=metrics.SCALAR, **{f.name: getattr(tally, f.name) for f in fields(Tally)})
    assert not isinstance(view, Tally) and metrics.ops(view) is metrics.SCALAR
    pairs = [(metrics.jga(tally), metrics.jga(view), "jga")]
    for alpha in (metrics.OFFICIAL_ALPHA, 0.0, 1.0, 0.3, rng.random()):
        for mode in ("official", "corrected"):
            pairs.append((metrics.gca(tally, alpha, mode), metrics.gca(view, alpha, mode), (alpha, mode)))
    for fast, formula, at in pairs:
        checked += 1
        if type(fast) is not float or type(formula) is not float or fast.hex() != formula.hex():
            print("mismatch", at, tally, repr(fast), repr(formula))
print("checked", checked)
"""


def test_a_tallys_gca_and_jga_are_the_columns_formula_bit_for_bit(capsys):
    exec(TALLY_PATHS_SCRIPT, {})
    out = capsys.readouterr().out
    assert "mismatch" not in out, out[:3000]
    assert "checked 44000" in out


def test_a_turns_figures_are_named_in_the_order_they_are_built():
    """`turn_figures` builds a plain tuple for speed; `TurnFigures` names its values, the order written once there:
    each named value is what its comment says on a turn with a hit, a wrong value, a miss and an extra slot."""
    from dst_metrics.core.tally import TurnFigures, turn_figures

    gold = {"hotel-area": "north", "hotel-stars": "4", "hotel-name": "acorn"}
    pred = {"hotel-area": "north", "hotel-stars": "5", "taxi-leave at": "9"}
    turn = TurnFigures._make(turn_figures(gold, pred))
    assert turn == TurnFigures(equal=False, errors=3, tp=1, n_gold=3, rel_hits=1, rel_total=4, fp=2, fn=2)
    same = TurnFigures._make(turn_figures(gold, gold))
    assert same.equal and same.tp == same.n_gold == same.rel_total == 3 and same.errors == same.fp == same.fn == 0
