"""``--engine dask``: shards scored on a local Dask cluster of two worker processes equal one process."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import SGD, needs, requires_shared

distributed = pytest.importorskip("distributed", reason=needs("distributed", "dask", "distributed"))

from dst_metrics.cli import main  # noqa: E402
from dst_metrics.errors import InputError  # noqa: E402
from dst_metrics.options import Options  # noqa: E402
from dst_metrics.scoring.distributed import score_shards, shards_of  # noqa: E402
from dst_metrics.scoring.scores import score  # noqa: E402
from tests.samples import COMPRESSIONS, compressed_copy, read_with_format  # noqa: E402

SLOTS = ["hotel-area", "hotel-name", "train-day", "taxi-leaveat", "restaurant-food", "attraction-type"]
VALUES = ["north", "south", "centre", "a|b", "friday", "dontcare", "none"]


def _corpus(seed: int, dialogues: int) -> dict[str, dict[str, dict]]:
    """Reference-layout dialogues whose predictions miss, add, change and keep slots."""
    rng = random.Random(seed)
    corpus: dict[str, dict[str, dict]] = {}
    for number in range(dialogues):
        gold: dict[str, str] = {}
        pred: dict[str, str] = {}
        turns = {}
        for turn in range(rng.randint(1, 7)):
            gold.update({s: rng.choice(VALUES) for s in SLOTS if rng.random() < 0.3})
            for slot, value in gold.items():
                roll = rng.random()
                if roll < 0.75:
                    pred[slot] = value
                elif roll < 0.85:
                    pred[slot] = rng.choice(VALUES)
                else:
                    pred.pop(slot, None)
            if rng.random() < 0.2:
                pred[rng.choice(SLOTS)] = rng.choice(VALUES)
            turns[str(turn)] = {"gt": dict(gold), "pr": dict(pred)}
        corpus[f"D{number:04d}"] = turns
    return corpus


def _write_shards(folder: Path, corpus: dict[str, dict[str, dict]], cuts: list[int]) -> list[Path]:
    """The corpus cut at `cuts` into shards, alternately JSON Lines turn records and the reference layout."""
    folder.mkdir(parents=True, exist_ok=True)
    ids = list(corpus)
    bounds = [0, *cuts, len(ids)]
    paths = []
    for index, (start, stop) in enumerate(zip(bounds, bounds[1:])):
        part = {i: corpus[i] for i in ids[start:stop]}
        if index % 2 == 0:
            path = folder / f"part-{index:03d}.jsonl"
            lines = [
                json.dumps({"dialogue_id": d, "turn_id": int(t), "gt": v["gt"], "pr": v["pr"]})
                for d, turns in part.items()
                for t, v in turns.items()
            ]
            path.write_text("\n".join(lines) + "\n")
        else:
            path = folder / f"part-{index:03d}.json"
            path.write_text(json.dumps(part))
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as connected:  # fmt: skip
        assert len(connected.scheduler_info()["workers"]) == 2
        yield connected


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_shards_on_two_workers_equal_one_process(tmp_path, client, seed, mode):
    corpus = _corpus(seed, 240)
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(corpus))
    paths = [str(p) for p in _write_shards(tmp_path / "shards", corpus, [50, 51, 130, 200])]
    options = Options(mode=mode)
    expected = score(read_with_format(str(whole))[0], options)
    found = score_shards(paths, options, client=client)
    assert found.tally == expected.tally
    assert found.scores == expected.scores and found.signature == expected.signature
    assert score_shards(paths[::-1], options, client=client).scores == expected.scores  # shard order


def test_a_dialogue_in_two_shards_is_an_error_naming_it(tmp_path, client):
    corpus = _corpus(2, 30)
    paths = [str(p) for p in _write_shards(tmp_path / "shards", corpus, [20])]
    repeat = tmp_path / "shards" / "again.json"
    repeat.write_text(json.dumps({"D0025": corpus["D0025"]}))
    with pytest.raises(InputError, match=r"1 dialogue ids are in more than one shard: 'D0025' in .*part-001.json"):
        score_shards([*paths, str(repeat)], Options(), client=client)


def test_a_bad_shard_is_the_readers_located_error(tmp_path, client):
    paths = [str(p) for p in _write_shards(tmp_path / "shards", _corpus(3, 20), [10])]
    broken = tmp_path / "shards" / "broken.json"
    broken.write_text('{"D9": {"0": {"gt": {"hotel-area": "north"}, "pr": ')
    with pytest.raises(InputError, match=r"broken.json: not valid JSON at line 1"):
        score_shards([*paths, str(broken)], Options(), client=client)


def test_the_command_line_scores_a_folder_of_shards_as_one_corpus(tmp_path, capsys):
    corpus = _corpus(4, 120)
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(corpus))
    _write_shards(tmp_path / "shards", corpus, [40, 90])
    assert len(shards_of(str(tmp_path / "shards"))) == 3
    assert main(["score", str(whole), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert main(["score", str(tmp_path / "shards"), "--engine", "dask", "--jobs", "2", "--json", "--quiet"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["format"] == "3 shards on dask"
    for key in ("file", "format", "inputs"):
        del found[key], expected[key]
    assert found == expected


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--engine", "dask", "--ci"], "--ci needs every dialogue's states in one process"),
        (["--engine", "dask", "--compat", "trade"], "--compat trade reads the whole corpus in one process"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler is the address of a Dask scheduler"),
    ],
)
def test_options_that_need_one_process_are_refused(tmp_path, capsys, extra, message):
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(_corpus(5, 3)))
    assert main(["score", str(whole), *extra]) == 2
    assert message in capsys.readouterr().err


def test_compressed_shards_on_two_workers_equal_the_plain_ones(tmp_path, client):
    # each shard compressed another way (gzip, bzip2, xz, a zip of one file): the workers decompress what they read
    corpus = _corpus(2, 120)
    plain = _write_shards(tmp_path / "plain", corpus, [30, 61, 90])
    packed = [compressed_copy(path, tmp_path / "packed", kind) for path, kind in zip(plain, COMPRESSIONS)]
    expected = score_shards([str(p) for p in plain], Options(), client=client)
    found = score_shards([str(p) for p in packed], Options(), client=client)
    assert found.tally == expected.tally and found.scores == expected.scores


@pytest.mark.parametrize(
    "extra",
    [
        ["--per-dialogue"],
        ["--compat", "fga"],
        ["--compat", "convlab", "--per-dialogue"],
        ["--prediction-states", "updates"],
        ["--gold-alternatives", "first", "--value-matching", "normalized"],
    ],
    ids=["per-dialogue", "compat-fga", "compat-convlab-per-dialogue", "updates", "first-alternative-normalized"],
)
def test_every_reading_setting_a_profile_of_sums_and_per_dialogue_run_on_dask_with_the_default_figures(
    tmp_path, capsys, client, extra
):
    """Issue 58, item 2: each shard is tallied as the default engine tallies a file, so these flags give on Dask
    what they give on one machine (they were refused as needing the whole corpus)."""
    corpus = _corpus(6, 90)
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(corpus))
    _write_shards(tmp_path / "shards", corpus, [25, 60])
    assert main(["score", str(whole), "--json", *extra]) == 0
    expected = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    on_dask = ["--engine", "dask", "--scheduler", client.scheduler.address, "--json", "--quiet"]  # its two workers
    assert main(["score", str(tmp_path / "shards"), *on_dask, *extra]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert found[-1]["format"] == "3 shards on dask" and len(found) == len(expected)
    for record in (*found, *expected):
        for key in ("file", "format", "inputs"):
            record.pop(key, None)
    assert found == expected


def _sgd_predictions(gold_file: Path, out: Path, seed: int) -> None:
    """The SGD dialogues of `gold_file` as predictions: a seeded third of the user frames lose a slot value."""
    rng = random.Random(seed)
    dialogues = json.loads(gold_file.read_text())
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for frame in turn["frames"] if turn["speaker"] == "USER" else ():
                values = frame["state"]["slot_values"]
                if values and rng.random() < 1 / 3:
                    del values[rng.choice(sorted(values))]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dialogues))


@requires_shared
@pytest.mark.parametrize("extra", [[], ["--only-predicted"], ["--per-dialogue", "--value-matching", "normalized"]])
def test_gold_apart_joins_each_shard_on_dask_with_the_default_engine_s_figures(tmp_path, capsys, client, extra):
    """Issue 58, item 2: ``--gold`` on Dask is a join by dialogue id. Each shard of predictions (an SGD file of
    the real test set, a third of its frames missing a value) is paired with the gold dialogues it predicts; the
    client checks that every gold dialogue is predicted somewhere (or, with --only-predicted, says how many)."""
    files = sorted(SGD.glob("dialogues_*.json"))
    for position, gold_file in enumerate(files):
        _sgd_predictions(gold_file, tmp_path / "shards" / f"part-{position}.json", position)
    kept = files if "--only-predicted" not in extra else files[:2]  # the third file's gold dialogues unpredicted
    if len(kept) < len(files):
        (tmp_path / "shards" / f"part-{len(files) - 1}.json").unlink()
    assert main(["score", str(tmp_path / "shards"), "--gold", str(SGD), "--json", "--quiet", *extra]) == 0
    expected = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    on_dask = ["--engine", "dask", "--scheduler", client.scheduler.address, "--json", "--quiet"]
    assert main(["score", str(tmp_path / "shards"), "--gold", str(SGD), *on_dask, *extra]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert found[-1]["format"] == f"{len(kept)} shards on dask" and len(found) == len(expected) > 0
    for record in (*found, *expected):
        for key in ("file", "format", "inputs"):
            record.pop(key, None)
    assert found == expected
    if "--only-predicted" in extra:
        assert "subset:predicted(" in found[-1]["signature"] and found[-1]["jga"] < 1


@requires_shared
def test_a_gold_dialogue_no_shard_predicts_is_one_line_naming_the_gold(tmp_path, capsys, client):
    files = sorted(SGD.glob("dialogues_*.json"))
    for position, gold_file in enumerate(files[:2]):
        _sgd_predictions(gold_file, tmp_path / "shards" / f"part-{position}.json", position)
    on_dask = ["--engine", "dask", "--scheduler", client.scheduler.address, "--quiet"]
    assert main(["score", str(tmp_path / "shards"), "--gold", str(SGD), *on_dask]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no partner in the predictions" in err and "--only-predicted" in err
    missing = json.loads(files[2].read_text())[0]["dialogue_id"]
    assert str(SGD) in err and (f'"{missing}"' in err or "more" in err)


def test_gold_paired_by_position_is_refused_on_dask_with_the_reason(capsys):
    fixtures = Path(__file__).parent / "fixtures" / "dstc10"
    args = ["score", str(fixtures / "entry.json"), "--gold", str(fixtures / "labels.json"), "--engine", "dask"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "by their position" in err and "--engine dask" in err
