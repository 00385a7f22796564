"""`dst_metrics.torchmetrics`: the torchmetrics Metrics give `dst_metrics.score`'s figures, bit for bit, on the TRADE
file of ../shared/reference: over two real processes (torch.distributed, gloo), in any batches and order, after
``reset()``, through ``forward`` and in a ``MetricCollection``. The Lightning example of docs/usage.md runs
against a stand-in ``lightning`` module.

Each of the two processes, forked, runs `worker`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import multiprocessing
import random
import socket
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest

from dst_metrics import Corpus, score
from dst_metrics.core.tally import Tally
from dst_metrics.figures.registry import figure_keys
from dst_metrics.options import OptionError, Options

from .conftest import REFERENCE, REPO, requires_shared

INSTALL = 'pip install "torch==2.13.0" -e ".[torchmetrics]"'
torch = pytest.importorskip("torch", reason=f"the torchmetrics tests need torch: {INSTALL}")
torchmetrics = pytest.importorskip("torchmetrics", reason=f"the torchmetrics tests need torchmetrics: {INSTALL}")

from dst_metrics.torchmetrics import DSTMetrics, GCAMetric, JGAFGAMetrics, _TallyMetric  # noqa: E402 (after the skips)

TRADE = REFERENCE / "trade"
TRADE_FILE = TRADE / "MLCSG_TRADE_reference_layout.json"
MODES = ("official", "corrected")
WORLD_SIZE = 2


def trade_dialogues() -> tuple[object, list[list], list[list]]:
    """(the TRADE corpus as `dst_metrics.read` reads it, its predicted dialogues, its gold dialogues)."""
    from dst_metrics import read

    corpus = read(TRADE_FILE, "reference")
    return corpus, [list(d.pred) for d in corpus], [list(d.gold) for d in corpus]


def plain(figures: dict) -> dict:
    """Tensors as Python numbers (a float64 tensor's value is the float it was made of)."""
    return {key: value.item() for key, value in figures.items()}


def worker(rank: int, port: int, out: str, preds: list, golds: list) -> None:
    """One process: its half of the dialogues in batches of 7, 32, 50, 7, ..., each mode; then the whole file on rank 0
    and nothing on rank 1 (a process without a batch). The figures of each, as every rank computes them, to `out`."""
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD_SIZE)
    mine = list(range(rank, len(preds), WORLD_SIZE))
    results = {}
    for mode in MODES:
        metric = DSTMetrics(mode=mode)
        start, sizes = 0, itertools.cycle((7, 32, 50))
        while start < len(mine):
            part = mine[start : start + (size := next(sizes))]
            metric.update([preds[i] for i in part], [golds[i] for i in part])
            start += size
        results[mode] = plain(metric.compute())
        lopsided = DSTMetrics(mode=mode)
        if rank == 0:
            lopsided.update(preds, golds)
        with warnings.catch_warnings():  # rank 1's "compute before update": its states are every process's
            warnings.simplefilter("ignore", UserWarning)
            results[f"{mode} lopsided"] = plain(lopsided.compute())
    dist.destroy_process_group()
    Path(out).write_text(json.dumps(results))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def trade():
    corpus, preds, golds = trade_dialogues()
    wanted = {mode: dict(score(corpus, mode=mode).scores) for mode in MODES}
    return corpus, preds, golds, wanted


def batched(metric, preds: list, golds: list, sizes: list[int]) -> None:
    start = 0
    for size in sizes:
        metric.update(preds[start : start + size], golds[start : start + size])
        start += size
    assert start >= len(preds)


@requires_shared
@pytest.mark.slow
def test_two_processes_give_the_figures_of_the_whole_file(trade, tmp_path):
    corpus, preds, golds, wanted = trade
    port = free_port()
    outs = [tmp_path / f"rank{rank}.json" for rank in range(WORLD_SIZE)]
    # forked: the processes start with torch, torchmetrics and the dialogues this one has loaded (a new
    # interpreter takes 6 s or more to import torchmetrics on a 2-core machine)
    fork = multiprocessing.get_context("fork")
    processes = [
        fork.Process(target=worker, args=(rank, port, str(outs[rank]), preds, golds)) for rank in range(WORLD_SIZE)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    for rank, process in enumerate(processes):
        if process.is_alive():
            process.kill()
        assert process.exitcode == 0, f"rank {rank} failed (exit code {process.exitcode}; its traceback above)"
    results = [json.loads(out.read_text()) for out in outs]
    assert corpus.num_turns == 7368
    for mode in MODES:
        assert list(wanted[mode]) == figure_keys(Options(mode=mode))
        for rank in range(WORLD_SIZE):
            assert results[rank][mode] == wanted[mode], (rank, mode)  # every figure, exactly
            assert results[rank][f"{mode} lopsided"] == wanted[mode], (rank, mode)
        assert results[0][mode]["turns"] == 7368


@requires_shared
def test_gca_is_the_official_codes_on_the_trade_file(trade):
    _, preds, golds, _ = trade
    published = json.loads((TRADE / "MLCSG_TRADE_reference_layout.published.json").read_text())
    metric = GCAMetric()
    batched(metric, preds, golds, [32] * 32)
    figures = metric.compute()
    assert round(100 * figures["gca"].item(), 2) == published["GCA"]
    jga = JGAFGAMetrics()
    batched(jga, preds, golds, [32] * 32)
    figures = jga.compute()
    assert round(100 * figures["jga"].item(), 2) == published["JGA"]
    assert round(100 * figures["fga@0.5"].item(), 2) == published["FGA_0.5"]


@requires_shared
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_batch_sizes_and_order_change_nothing(trade, seed):
    _, preds, golds, wanted = trade
    rng = random.Random(seed)
    order = list(range(len(preds)))
    rng.shuffle(order)
    sizes = []
    while sum(sizes) < len(preds):
        sizes.append(rng.choice([1, 2, 5, 32, 100, 400]))
    mode = MODES[seed % 2]
    metric = DSTMetrics(mode=mode)
    batched(metric, [preds[i] for i in order], [golds[i] for i in order], sizes)
    figures = metric.compute()
    assert plain(figures) == wanted[mode]
    assert all(
        value.dtype == (torch.int64 if key in ("correct", "wrong", "missed", "overshot", "turns") else torch.float64)
        for key, value in figures.items()
    )


@requires_shared
def test_turn_records_give_the_same_figures(trade):
    corpus, _, _, wanted = trade
    records = [
        [{"dialogue_id": d.dialogue_id, "turn_id": t, "state": state} for t, state in zip(d.turn_ids, side)]
        for d in corpus
        for side in (d.pred, d.gold)
    ]
    metric = DSTMetrics()
    for start in range(0, len(records), 64):  # 32 dialogues a batch, their records in reverse order
        batch = records[start : start + 64]
        preds = [r for pair in batch[0::2] for r in pair][::-1]
        golds = [r for pair in batch[1::2] for r in pair][::-1]
        metric.update(preds, golds)
    assert plain(metric.compute()) == wanted["official"]


@requires_shared
@pytest.mark.filterwarnings("ignore:The ``compute`` method of metric DSTMetrics was called before")
def test_reset_gives_a_fresh_metric(trade):
    _, preds, golds, wanted = trade
    metric = DSTMetrics()
    metric.update(preds[:100], golds[:100])
    metric.reset()
    assert metric.tally() == Tally()
    with pytest.raises(ValueError, match="no turn was added since the last reset"):
        metric.compute()
    batched(metric, preds, golds, [250] * 4)
    assert plain(metric.compute()) == wanted["official"]
    assert metric.tally() == score(Corpus.from_dialogues(preds, golds)).tally


@requires_shared
def test_forward_gives_the_batchs_figures_and_accumulates(trade):
    _, preds, golds, wanted = trade
    metric = DSTMetrics(mode="corrected")
    for start in range(0, len(preds), 200):
        batch = (preds[start : start + 200], golds[start : start + 200])
        assert plain(metric(*batch)) == dict(score(Corpus.from_dialogues(*batch), mode="corrected").scores)
    assert plain(metric.compute()) == wanted["corrected"]
    assert not DSTMetrics.full_state_update  # forward updates once per batch


@requires_shared
@pytest.mark.parametrize("compute_groups", [True, False])
def test_a_collection_of_the_two_families_is_dst_metrics(trade, compute_groups):
    _, preds, golds, wanted = trade
    both = torchmetrics.MetricCollection([GCAMetric(), JGAFGAMetrics()], compute_groups=compute_groups)
    whole = DSTMetrics()
    for start in range(0, len(preds), 128):
        batch = (preds[start : start + 128], golds[start : start + 128])
        both.update(*batch)
        whole.update(*batch)
    assert plain(both.compute()) == plain(whole.compute()) == wanted["official"]
    both.reset()
    both(preds, golds)  # forward through the collection
    assert plain(both.compute()) == wanted["official"]


def test_merge_state_adds_another_metrics_sums():
    preds, golds = random_dialogues(random.Random(9), 30)
    first, second = JGAFGAMetrics(mode="corrected"), JGAFGAMetrics(mode="corrected")
    first.update(preds[:12], golds[:12])
    second.update(preds[12:], golds[12:])
    first.merge_state(second)
    corpus = Corpus.from_dialogues(preds, golds)
    wanted = score(corpus, mode="corrected").scores
    assert plain(first.compute()) == {key: wanted[key] for key in figure_keys(Options(mode="corrected"), ("turn",))}
    assert first.tally() == score(corpus, mode="corrected").tally


def test_the_families_are_the_evaluate_modules():
    pytest.importorskip("pyarrow", reason="the evaluate modules' docs need pyarrow (the test extra's datasets)")
    from dst_metrics.hf_evaluate.docs import MODULE_FAMILIES

    assert DSTMetrics.families == MODULE_FAMILIES["dst_metrics_all"]
    assert GCAMetric.families == MODULE_FAMILIES["gca_metric"]
    assert JGAFGAMetrics.families == MODULE_FAMILIES["jga_fga_metrics"]
    assert {cls.__name__ for cls in _TallyMetric.__subclasses__()} == {"DSTMetrics", "GCAMetric", "JGAFGAMetrics"}


def test_the_states_are_the_tallys_fields():
    metric = DSTMetrics()
    assert sorted(metric.metric_state) == sorted(f.name for f in dataclasses.fields(Tally))
    lists = {name for name, state in metric.metric_state.items() if isinstance(state, list)}
    assert lists == {f.name for f in dataclasses.fields(Tally) if f.default_factory is dict}
    assert lists == {"goal_hits", "relative_hits", "fga_distances"}


SLOTS = ("hotel-area", "hotel-stars", "hotel-name", "taxi-leave at", "train-day")
VALUES = ("north", "south", "4", "5", "none", "17:00", "guest-house")


def random_dialogues(rng: random.Random, count: int) -> tuple[list, list]:
    """Random dialogues whose gold state grows and changes, with a noisy prediction."""
    preds, golds = [], []
    for _ in range(count):
        gold, pred_turns, gold_turns = {}, [], []
        for _ in range(rng.randint(1, 8)):
            gold[rng.choice(SLOTS)] = rng.choice(VALUES)
            if rng.random() < 0.15:
                gold.pop(rng.choice(sorted(gold)))
            pred = {slot: value if rng.random() < 0.8 else rng.choice(VALUES) for slot, value in gold.items()}
            if rng.random() < 0.2:
                pred[rng.choice(SLOTS)] = rng.choice(VALUES)
            gold_turns.append(dict(gold))
            pred_turns.append(pred)
        preds.append(pred_turns)
        golds.append(gold_turns)
    return preds, golds


@pytest.mark.parametrize("seed", range(8))
def test_any_split_of_random_dialogues_gives_scores_figures(seed):
    rng = random.Random(seed)
    preds, golds = random_dialogues(rng, rng.randint(1, 40))
    options = {"mode": rng.choice(MODES), "value_matching": rng.choice(("exact", "normalized", "fuzzy"))}
    wanted = dict(
        score(Corpus.from_dialogues(preds, golds, value_matching=options["value_matching"]), **options).scores
    )
    metric = DSTMetrics(**options)
    cut = sorted(rng.sample(range(len(preds) + 1), min(3, len(preds) + 1)))
    for start, end in zip([0, *cut], [*cut, len(preds)]):
        metric.update(preds[start:end], golds[start:end])  # an empty batch is fine
    assert plain(metric.compute()) == wanted
    assert metric.signature == Options(**options).signature()


def test_reading_settings_and_linearized_strings_are_read_as_score_reads_them():
    preds = [["hotel-area=north", "hotel-area=north; hotel-stars=4"], ["taxi-day=monday"]]
    golds = [["hotel-area=north", "hotel-area=south; hotel-stars=4"], ["taxi-day=monday"]]
    metric = DSTMetrics(mode="corrected")
    metric.update(preds, golds)
    assert plain(metric.compute()) == dict(score(Corpus.from_dialogues(preds, golds), mode="corrected").scores)
    updates = [[{"hotel-area": "north"}, {"hotel-stars": "4"}, {"hotel-area": None}]]
    cumulative = [[{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"}, {"hotel-stars": "4"}]]
    metric = DSTMetrics(prediction_states="updates")
    metric.update(updates, cumulative)
    corpus = Corpus.from_dialogues(updates, cumulative, prediction_states="updates")
    assert plain(metric.compute()) == dict(score(corpus).scores)
    assert metric.compute()["jga"].item() == 1.0
    assert metric.signature == score(corpus).signature


@pytest.mark.parametrize(
    "option, message",
    [
        ({"compat": "trade"}, "compat: a compatibility profile scores the whole corpus, not sums"),
        ({"bootstrap": 1000}, "bootstrap: bootstrap intervals resample the whole corpus"),
        ({"ci_method": "bca"}, "ci_method: the interval method is the bootstrap's"),
    ],
)
def test_options_that_need_the_whole_corpus_are_refused(option, message):
    with pytest.raises(OptionError, match=message) as raised:
        DSTMetrics(**option)
    assert "\n" not in str(raised.value)


def test_a_bad_option_or_input_says_so():
    with pytest.raises(OptionError, match="mode"):
        DSTMetrics(mode="strict")
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        DSTMetrics(modes="official")
    metric = DSTMetrics()
    with pytest.raises(ValueError, match="1 predictions but 2 references"):
        metric.update([[{}]], [[{}], [{}]])
    with pytest.raises(ValueError, match="predicted turns"):
        metric.update([[{}]], [[{}, {}]])


def test_importing_dst_metrics_imports_no_torch():
    code = "import sys, dst_metrics, dst_metrics.scoring.scores; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    code = "import sys; sys.modules['torchmetrics'] = None; import dst_metrics.torchmetrics"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        'ImportError: dst_metrics.torchmetrics needs torch and torchmetrics, from the "torchmetrics" extra: '
        'pip install "torch==2.13.0" -e ".[torchmetrics]"'
    )


# docs/usage.md's Lightning example, run against a stand-in for lightning (not a dependency)


class FakeLightningModule(torch.nn.Module):
    """What the example uses of ``lightning.LightningModule``: ``log_dict``, whose values it records."""

    def __init__(self) -> None:
        super().__init__()
        self.logged: dict = {}

    def log_dict(self, values: dict, **kwargs) -> None:
        self.logged.update(values)


def lightning_example() -> str:
    from .test_readme import readme_blocks

    page = REPO / "docs" / "usage.md"
    blocks = readme_blocks(page.read_text(encoding="utf-8"), "docs/usage.md")
    (block,) = [b for b in blocks if b.language == "python" and "LightningModule" in b.code]
    assert block.marker is not None and block.marker.startswith("not-run:"), "run here, not by test_readme.py"
    return block.code


def test_the_lightning_example_of_the_usage_page_runs(monkeypatch):
    lightning = types.ModuleType("lightning")
    lightning.LightningModule = FakeLightningModule
    monkeypatch.setitem(sys.modules, "lightning", lightning)
    namespace: dict = {}
    exec(compile(lightning_example(), "docs/usage.md", "exec"), namespace)
    rng = random.Random(5)
    preds, golds = random_dialogues(rng, 30)
    model = namespace["Tracker"]()
    for epoch in range(2):  # the second epoch starts from reset states
        for start in range(0, 30, 8):
            model.validation_step(
                {"predicted_states": preds[start : start + 8], "gold_states": golds[start : start + 8]}, 0
            )
        model.on_validation_epoch_end()
        wanted = dict(score(Corpus.from_dialogues(preds, golds)).scores)
        assert {key[len("val/") :]: value.item() for key, value in model.logged.items()} == wanted, epoch
