"""--jobs: a file scored in several processes gives exactly the figures (and errors) of one process."""

from __future__ import annotations

import json
import random

import pytest

from dst_metrics.cli import main
from dst_metrics.corpus import CorpusBuilder, only_share
from dst_metrics.scoring.parallel import PARALLEL_MIN_BYTES, default_jobs

from .conftest import REFERENCE, requires_shared

VALUES = ["north", "south", "centre", "cheap", "none", "4", "guest house", "dontcare"]
SLOTS = ["hotel-area", "hotel-price", "hotel-stars", "restaurant-food", "taxi-leave at"]


def random_layout(seed: int, dialogues: int) -> dict:
    """A reference-layout corpus of random states (both sides drift turn by turn)."""
    rng = random.Random(seed)
    layout = {}
    for d in range(dialogues):
        gold, pred, turns = {}, {}, {}
        for t in range(rng.randint(1, 6)):
            for state in (gold, pred):
                for _ in range(rng.randint(0, 2)):
                    slot = rng.choice(SLOTS)
                    if rng.random() < 0.2:
                        state.pop(slot, None)
                    else:
                        state[slot] = rng.choice(VALUES)
            turns[str(t)] = {"gt": dict(gold), "pr": dict(pred)}
        layout[f"d{rng.randint(0, 10**9)}-{d}"] = turns
    return layout


def run_json(capsys, *argv: str) -> list[dict]:
    assert main(["score", *argv, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("seed", range(4))
def test_any_number_of_processes_gives_the_same_figures_and_dialogue_order(seed, tmp_path, capsys):
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(random_layout(seed, dialogues=1 + 7 * seed)))
    for mode in ("official", "corrected"):
        one = run_json(capsys, str(path), "--per-dialogue", "--mode", mode, "--jobs", "1")
        for jobs in ("2", "3", "11"):  # 11: more processes than dialogues for small seeds
            many = run_json(capsys, str(path), "--per-dialogue", "--mode", mode, "--jobs", jobs)
            assert many == one
            assert list(many[0]["dialogues"]) == list(one[0]["dialogues"])  # input order kept


def test_a_folder_of_shards_keeps_its_dialogue_order_in_any_number_of_processes(tmp_path, capsys):
    # each shard's dialogues are put back at their positions, shard after shard (parallel._in_input_order)
    folder = tmp_path / "shards"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(random_layout(31, dialogues=13)))
    (folder / "b.json").write_text(json.dumps(random_layout(32, dialogues=1)))
    records = random_layout(33, dialogues=8)
    lines = [{"dialogue_id": d, "turn_id": int(t), **turn} for d, turns in records.items() for t, turn in turns.items()]
    (folder / "c.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (one,) = run_json(capsys, str(folder), "--per-dialogue", "--jobs", "1")
    assert len(one["dialogues"]) == 22
    for jobs in ("2", "3", "5"):
        (many,) = run_json(capsys, str(folder), "--per-dialogue", "--jobs", jobs)
        assert many == one and list(many["dialogues"]) == list(one["dialogues"])


def test_errors_are_those_of_one_process(tmp_path, capsys):
    bad = random_layout(7, dialogues=9)
    last = list(bad)[-1]
    bad[last]["0"]["gt"] = {"hotel-area": 1e400}  # a number no float holds, in the last dialogue
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad).replace("Infinity", "1e400"))
    messages = []
    for jobs in ("1", "3"):
        assert main(["score", str(path), "--jobs", jobs]) == 2
        messages.append(capsys.readouterr().err)
    assert messages[0] == messages[1] and f'dialogue "{last}"' in messages[0]
    lines = tmp_path / "repeated.jsonl"  # one dialogue id in two places: an error, not a merge
    records = [
        {"dialogue_id": "a", "turn_id": 0, "gt": {}, "pr": {}},
        {"dialogue_id": "b", "turn_id": 0, "gt": {}, "pr": {}},
    ]
    records.append({"dialogue_id": "a", "turn_id": 0, "gt": {}, "pr": {}})
    lines.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    for jobs in ("1", "2"):
        assert main(["score", str(lines), "--jobs", jobs]) == 2
        messages.append(capsys.readouterr().err)
    assert messages[2] == messages[3] and "a" in messages[2]


def test_a_builder_under_a_share_keeps_its_share_and_their_positions():
    with only_share(1, 3) as positions:
        builder = CorpusBuilder()
        for index in range(8):
            builder.add(f"d{index}", [0], [{"hotel-area": "north"}], [{}])
        corpus = builder.corpus()
    assert [d.dialogue_id for d in corpus] == ["d1", "d4", "d7"] and positions == [1, 4, 7]
    assert CorpusBuilder().share is None  # outside the block: every dialogue


def test_small_inputs_use_one_process(tmp_path):
    small = tmp_path / "small.json"
    small.write_text("{}")
    assert default_jobs([str(small)]) == 1
    assert PARALLEL_MIN_BYTES > small.stat().st_size


@requires_shared
def test_published_files_score_the_same_in_two_processes(capsys):
    files = sorted(str(p) for p in (REFERENCE / "t5_zeroshot" / "predictions").glob("*.json"))
    assert run_json(capsys, *files, "--jobs", "2", "--per-dialogue") == run_json(
        capsys, *files, "--jobs", "1", "--per-dialogue"
    )


def test_per_dialogue_figures_computed_in_the_workers_are_those_of_the_library(tmp_path, capsys):
    # --per-dialogue --json: each worker computes its dialogues' figures (figures.DialogueFigures)
    import pickle

    from dst_metrics import read, score
    from dst_metrics.figures.registry import DialogueFigures
    from dst_metrics.options import Options

    path = tmp_path / "layout.json"
    path.write_text(json.dumps(random_layout(12, dialogues=30)))
    options = Options(mode="corrected", alpha=0.5)
    report = score(read(path), options, per_dialogue=True)
    (record,) = run_json(capsys, str(path), "--per-dialogue", "--mode", "corrected", "--alpha", "0.5", "--jobs", "3")
    keys = list(next(iter(record["dialogues"].values())))
    assert keys == ["gca", "jga", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0"]
    assert record["dialogues"] == {d: {k: report.dialogues[d][k] for k in keys} for d in report.dialogues}
    view = pickle.loads(pickle.dumps(DialogueFigures(options)))
    assert view.options == options and view(report.tally) == {k: report.scores[k] for k in keys}


def test_a_reader_may_pass_over_the_dialogues_its_share_leaves_out():
    # readers/convlab.py asks `keeps` and builds no state for the others: positions stay those of `add`
    with only_share(1, 2) as positions:
        builder = CorpusBuilder()
        assert [builder.keeps(position) for position in range(4)] == [False, True, False, True]
        builder.pass_over()
        with pytest.raises(ValueError, match="passed over"):
            builder.pass_over()  # the dialogue at position 1 is kept: it must be added
        builder.add("b", [0], [{"hotel-area": "north"}], [{}])
        builder.pass_over()
        builder.add("d", [0], [{}], [{}])
        corpus = builder.corpus()
    assert positions == [1, 3] and [d.dialogue_id for d in corpus] == ["b", "d"]
    with pytest.raises(ValueError, match="passed over"):
        CorpusBuilder().pass_over()  # no share: every dialogue is kept


@pytest.mark.parametrize("profile", ["fga", "convlab"])
def test_each_process_sums_its_share_of_a_profile_without_falling_back_to_one(profile, tmp_path):
    # `tally_in_processes` reads the input again in one process when a worker fails (an unpicklable
    # result, say): the figures would still be right, so this checks the workers' own path ran, on the
    # build under test (.ci/run runs it compiled too)
    from dst_metrics.compat import PROFILES
    from dst_metrics.options import Options
    from dst_metrics.readers import read
    from dst_metrics.readers.inputs import InputSpec, resolve_input
    from dst_metrics.scoring.parallel import tally_in_processes
    from dst_metrics.scoring.streaming import Tallying

    from .test_compat_convlab import convlab_samples

    layout = random_layout(5, dialogues=20)
    path = tmp_path / "input.json"
    path.write_text(json.dumps(convlab_samples(layout) if profile == "convlab" else layout))
    options = Options(compat=profile)
    sums = PROFILES[profile].sums
    tallies = tally_in_processes(
        resolve_input(InputSpec(path), stream=True), Tallying(profile=sums, options=options), 3
    )
    assert tallies is not None and tallies.total.turns == read(path).num_turns
    assert sums.figures(tallies.sums, options) == PROFILES[profile].figures(read(path), options)
