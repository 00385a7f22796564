"""A simulator of two trackers on the same gold, turn by turn, for the null and power checks of
`dst_metrics.stats.compare` (tests/test_stats_compare.py, benchmarks/sim_compare.py) and of the
table of N systems (`simulate_systems`, with several runs per system `simulate_runs`; tests/test_table.py,
benchmarks/sim_table.py), and seeded variants of a TRADE prediction file (`trade_variant`).

Dialogue k has n_k turns (3 to 12) and a difficulty u_k ~ N(0, 1) shared by both systems; system s
has its own effect v_ks ~ N(0, 0.8²) in that dialogue, so its skill there is
p_ks = logistic(mu_s + u_k + v_ks). Its JGA turns form a chain: the first turn is a hit with
probability p_ks; each later turn repeats the previous outcome with probability 0.6 (a state is
carried over) and is otherwise a fresh draw. So turns of one dialogue are strongly dependent, and
two systems drawn with the same mu are the null (equal expected JGA and GCA). Each dialogue's
changed slots (1 + Poisson(4)) are correct, wrong or missed with probabilities p_ks,
(1 - p_ks)/4, 3(1 - p_ks)/4; overshot slots ~ Poisson(1). Seeds make every draw reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dst_metrics.core.tally import Tally
from dst_metrics.options import Options
from dst_metrics.stats.matrix import Layout, TallyMatrix
from dst_metrics.stats.paired import compare_matrices, mcnemar_tests

PERSISTENCE = 0.6
SYSTEM_SPREAD = 0.8


@dataclass(frozen=True)
class SimulatedPair:
    """Two systems' tally matrices (rows the same dialogues) and their JGA hits per turn."""

    a: TallyMatrix
    b: TallyMatrix
    hits_a: list[np.ndarray]
    hits_b: list[np.ndarray]

    def discordant(self) -> tuple[list[int], list[int], list[int]]:
        """Per dialogue: turns only A gets right, only B, and its turns."""
        a_only = [int(np.sum(x & ~y)) for x, y in zip(self.hits_a, self.hits_b)]
        b_only = [int(np.sum(y & ~x)) for x, y in zip(self.hits_a, self.hits_b)]
        return a_only, b_only, [len(x) for x in self.hits_a]


def _chain(rng: np.random.Generator, skill: float, turns: int) -> np.ndarray:
    hits = np.empty(turns, dtype=bool)
    hits[0] = rng.random() < skill
    for t in range(1, turns):
        hits[t] = hits[t - 1] if rng.random() < PERSISTENCE else rng.random() < skill
    return hits


def simulate_pair(rng: np.random.Generator, dialogues: int, mu_a: float = -0.4, mu_b: float = -0.4) -> SimulatedPair:
    """Two systems on `dialogues` dialogues (see the module docstring); equal mu: the null."""
    tallies: tuple[dict[str, Tally], dict[str, Tally]] = ({}, {})
    hits: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for index in range(dialogues):
        turns = int(rng.integers(3, 13))
        difficulty = rng.normal()
        changes = 1 + int(rng.poisson(4))
        for side, mu in enumerate((mu_a, mu_b)):
            skill = 1.0 / (1.0 + np.exp(-(mu + difficulty + SYSTEM_SPREAD * rng.normal())))
            chain = _chain(rng, skill, turns)
            c, w, m = rng.multinomial(changes, [skill, (1 - skill) / 4, 3 * (1 - skill) / 4])
            tallies[side][f"d{index:04d}"] = Tally(
                turns=turns,
                joint_hits=int(chain.sum()),
                correct=int(c),
                wrong=int(w),
                missed=int(m),
                overshot=int(rng.poisson(1)),
            )
            hits[side].append(chain)
    layout = Layout.of([*tallies[0].values(), *tallies[1].values()])
    return SimulatedPair(TallyMatrix.of(tallies[0], layout), TallyMatrix.of(tallies[1], layout), *hits)


def null_outcomes(rng: np.random.Generator, pairs: int, dialogues: int, **compare_options) -> dict[str, np.ndarray]:
    """Under the null (`simulate_pair` with equal skills), per pair: the p of the randomization test
    of JGA and GCA, whether their 95% interval of B - A covers 0 (``jga_ci``, ``gca_ci``), and the p
    of McNemar's test clustered by dialogue (``clustered``) and on turns as independent (``turns``).
    `compare_options` go to `compare_matrices` (its seed is the pair's index)."""
    found: dict[str, list] = {"jga": [], "gca": [], "clustered": [], "turns": [], "jga_ci": [], "gca_ci": []}
    for repetition in range(pairs):
        pair = simulate_pair(rng, dialogues)
        result = compare_matrices(pair.a, pair.b, Options(), seed=repetition, **compare_options)
        clustered, turns = mcnemar_tests(*pair.discordant())
        for key in ("jga", "gca"):
            found[key].append(result[key].p)
            low, high = result[key].ci
            found[f"{key}_ci"].append(low <= 0.0 <= high)
        found["clustered"].append(clustered.p)
        found["turns"].append(turns.p)
    return {key: np.array(values) for key, values in found.items()}


def simulate_systems(
    rng: np.random.Generator, systems: int, dialogues: int, mu: float = -0.4, shifts: tuple[float, ...] = ()
) -> dict[str, TallyMatrix]:
    """`systems` trackers on the same `dialogues` dialogues, each dialogue's turns and difficulty
    shared (as `simulate_pair`): system i's skill is mu + shifts[i] (no shifts: all from one process,
    every pair the null). {"S1": matrix, ...}, one layout, rows the same dialogues. `simulate_runs`
    with one run per system and no run effect (no draw is made for it)."""
    runs = simulate_runs(rng, (1,) * systems, dialogues, mu, shifts, run_spread=0.0)
    return {name: found[0] for name, found in runs.items()}


RUN_SPREAD = 0.4
"""The spread of a run's own effect in a dialogue (logit scale), beside its system's (`SYSTEM_SPREAD`)."""


def simulate_runs(
    rng: np.random.Generator,
    runs: tuple[int, ...],
    dialogues: int,
    mu: float = -0.4,
    shifts: tuple[float, ...] = (),
    run_spread: float = RUN_SPREAD,
) -> dict[str, list[TallyMatrix]]:
    """Systems with several runs each (``runs[i]`` of system i) on the same `dialogues` dialogues: as
    `simulate_systems`, system i has its effect v_ki ~ N(0, 0.8²) in dialogue k, and each of its runs adds its own
    w_kir ~ N(0, run_spread²) (a seed, a sampling: runs of one system agree more than two systems do), so run r's
    skill there is logistic(mu + shifts[i] + u_k + v_ki + w_kir); run_spread 0 draws no w. No shifts: every system
    from one process, every pair the null. {"S1": [matrix of each run], ...}, one layout, rows the same dialogues."""
    tallies: list[list[dict[str, Tally]]] = [[{} for _ in range(count)] for count in runs]
    mus = [mu + (shifts[i] if i < len(shifts) else 0.0) for i in range(len(runs))]
    for index in range(dialogues):
        turns = int(rng.integers(3, 13))
        difficulty = rng.normal()
        changes = 1 + int(rng.poisson(4))
        for found, skill_mu in zip(tallies, mus):
            system = skill_mu + difficulty + SYSTEM_SPREAD * rng.normal()
            for run in found:
                logit = system + run_spread * rng.normal() if run_spread else system
                skill = 1.0 / (1.0 + np.exp(-logit))
                chain = _chain(rng, skill, turns)
                c, w, m = rng.multinomial(changes, [skill, (1 - skill) / 4, 3 * (1 - skill) / 4])
                run[f"d{index:04d}"] = Tally(
                    turns=turns,
                    joint_hits=int(chain.sum()),
                    correct=int(c),
                    wrong=int(w),
                    missed=int(m),
                    overshot=int(rng.poisson(1)),
                )
    layout = Layout.of([tally for found in tallies for run in found for tally in run.values()])
    return {f"S{i + 1}": [TallyMatrix.of(run, layout) for run in found] for i, found in enumerate(tallies)}


def trade_variant(data: dict, seed: int, drop: float = 0.0, fix: float = 0.0, swap: float = 0.0) -> dict:
    """A seeded copy of a TRADE prediction file's data ({dialogue: {turn: {"turn_belief",
    "pred_bs_ptr"}}}) with changed predictions: in each turn, with probability `fix` the prediction
    becomes the gold; else with probability `drop` one predicted item is dropped; else with
    probability `swap` one predicted item's value is replaced by another item's value of the turn's gold."""
    import random

    draw = random.Random(seed)
    out: dict = {}
    for dialogue_id in sorted(data):
        out[dialogue_id] = {}
        for turn_id in sorted(data[dialogue_id], key=int):
            record = data[dialogue_id][turn_id]
            gold, pred = list(record["turn_belief"]), list(record["pred_bs_ptr"])
            if draw.random() < fix:
                pred = list(gold)
            elif pred and draw.random() < drop:
                pred.pop(draw.randrange(len(pred)))
            elif pred and gold and draw.random() < swap:
                index = draw.randrange(len(pred))
                domain, slot, _ = pred[index].split("-", 2)
                pred[index] = f"{domain}-{slot}-{draw.choice(gold).split('-', 2)[2]}"
            out[dialogue_id][turn_id] = {**record, "turn_belief": gold, "pred_bs_ptr": pred}
    return out
