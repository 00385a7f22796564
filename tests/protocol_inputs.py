"""Seeded inputs of the protocol tests (SGD-X variants, CheckDST perturbations), and a script writing them
for the reference code run outside the project:

    python tests/protocol_inputs.py sgdx GOLD_DIR OUT_DIR SEED
    python tests/protocol_inputs.py checkdst PREDICTIONS OUT_PREFIX SEED   (OUT_PREFIX.orig.json, .perturbed.json)

Each variant (or perturbation) changes predictions only, with `random.Random(seed)`, so the same seed
gives the same files everywhere.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path

VARIANTS = 5


def sgd_predictions(dialogues: list, seed: int, rate: float = 0.12) -> list:
    """SGD dialogues with some frames' slot values dropped, misspelled (a partial fuzzy match) or replaced."""
    rng = random.Random(seed)
    changed = json.loads(json.dumps(dialogues))  # a copy: 3-4 times faster than copy.deepcopy on SGD's files
    for dialogue in changed:
        for turn in dialogue["turns"]:
            if turn["speaker"] != "USER":
                continue
            for frame in turn["frames"]:
                values = frame["state"]["slot_values"]
                for slot in sorted(values):
                    draw = rng.random()
                    if draw < rate / 3:
                        del values[slot]
                    elif draw < 2 * rate / 3:
                        values[slot] = [values[slot][0] + " street"]
                    elif draw < rate:
                        values[slot] = ["dontcare"]
    return changed


def write_sgdx(gold_dir: Path, out_dir: Path, seed: int, variants: int = VARIANTS) -> list[Path]:
    """orig/ and v1/ … v5/ (or `variants` of them) under `out_dir`, each the gold files' dialogues changed with
    seed + index."""
    folders, paths = [], sorted(gold_dir.glob("dialogues_*.json"))
    gold = [json.loads(path.read_text(encoding="utf-8")) for path in paths]
    for index, name in enumerate(["orig", *(f"v{v}" for v in range(1, variants + 1))]):
        folder = out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        for number, (path, dialogues) in enumerate(zip(paths, gold)):
            changed = sgd_predictions(dialogues, seed * 1000 + index * 10 + number)
            (folder / path.name).write_text(json.dumps(changed), encoding="utf-8")
        folders.append(folder)
    return folders


def _perturbed_turn(turn: dict, rng: random.Random) -> dict:
    gold_key, pred_key = ("turn_belief", "pred_bs_ptr") if "turn_belief" in turn else ("gt", "pr")
    draw = rng.random()
    turn = copy.deepcopy(turn)
    if draw < 0.25:
        turn[pred_key] = copy.deepcopy(turn[gold_key])  # right when perturbed
    elif draw < 0.5 and isinstance(turn[pred_key], list):
        turn[pred_key] = turn[pred_key][:-1] if turn[pred_key] else ["hotel-area-north"]
    elif draw < 0.5:
        turn[pred_key] = {**turn[pred_key], "hotel": {"area": "north"}} if not turn[pred_key] else {}
    return turn


def _kept_items(turn_state: object) -> object:
    """A turn's state without dontcare, none and "," values (CheckDST's parsing drops or splits them)."""
    dropped = {"dontcare", "none", ","}
    if isinstance(turn_state, list):
        return [item for item in turn_state if item.split("-", 2)[2] not in dropped]
    return {
        domain: {slot: value for slot, value in slots.items() if value not in dropped}
        for domain, slots in turn_state.items()
        if any(value not in dropped for value in slots.values())
    }


def comparable(predictions: dict) -> dict:
    """A turn-keyed prediction file with every dontcare, none and "," value taken out of gold and predictions,
    so that CheckDST's string parsing and our reader see the same states."""
    return {
        dialogue_id: {
            turn: {key: _kept_items(state) for key, state in fields.items()} for turn, fields in turns.items()
        }
        for dialogue_id, turns in predictions.items()
    }


def checkdst_perturbed(predictions: dict, seed: int, keep: float = 0.7) -> dict:
    """A turn-keyed prediction file ({dialogue: {turn: {gold, pred}}}, TRADE's or T5DST's) with about
    `keep` of its dialogues kept and some of their turns' predictions made right or wrong."""
    rng = random.Random(seed)
    perturbed = {}
    for dialogue_id in sorted(predictions):
        if rng.random() < keep:
            turns = predictions[dialogue_id]
            perturbed[dialogue_id] = {turn: _perturbed_turn(turns[turn], rng) for turn in sorted(turns, key=int)}
    return perturbed


if __name__ == "__main__":
    kind, source, target, seed_text = sys.argv[1:5]
    if kind == "sgdx":
        write_sgdx(Path(source), Path(target), int(seed_text))
    else:
        data = comparable(json.loads(Path(source).read_text(encoding="utf-8")))
        Path(target + ".orig.json").write_text(json.dumps(data), encoding="utf-8")
        perturbed = checkdst_perturbed(data, int(seed_text))
        Path(target + ".perturbed.json").write_text(json.dumps(perturbed), encoding="utf-8")
