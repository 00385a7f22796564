"""``dst-metrics score --compat NAME`` against each peer evaluator on its own ground: its own input format,
its own scoring code, in fresh processes, on the same turns.

    python benchmarks/bench_peers.py [--repeat 20] [--runs 3] [--fga DIR] [--convlab DIR] [--mwzeval DIR]
                                     [--trade DIR] [--sgd DIR] [--python PATH]

Each DIR is a checkout of a peer (docs/compat.md describes them and the profile reproducing each):

  - ``--fga``:     github SuvodipDey/FGA (``compute_accuracy_trade_somdst.py``);
  - ``--convlab``: github ConvLab/ConvLab-3 (``convlab/dst/evaluate_unified_datasets.py``);
  - ``--mwzeval``: github Tomiinek/MultiWOZ_Evaluation (the ``mwzeval`` package);
  - ``--trade``:   github jasonwu0731/trade-dst (``models/TRADE.py``);
  - ``--sgd``:     the folder holding google-research's ``schema_guided_dst/`` (``evaluate.py``, ``metrics.py``).

A peer is run only from the folder given, in a subprocess of ``--python`` (default: this interpreter; a venv
holding the peers' own dependencies: fuzzywuzzy, python-Levenshtein, sacremoses, sacrebleu, lexical-diversity,
numpy); nothing of it is imported here or copied into the project. A peer not given, or whose files are
missing, is skipped with a line saying so. The corpus is the T5 restaurant file of ../shared (3,359 turns)
repeated --repeat times under new dialogue ids (bench_core.py; 67,180 turns at 20), converted into each peer's
input format with bench_readers.py's converters:

  - fga:     the reference layout, as ``bench/bench_result.json`` (the code reads ``NAME/NAME_result.json``);
  - trade:   TRADE's ``{dialogue: {turn: {"turn_belief", "pred_bs_ptr"}}}`` of ``domain-slot-value`` strings;
  - convlab: ConvLab-3's DST ``predictions.json`` as ConvLab-3 writes it for MultiWOZ 2.1: every sample's
             ``state`` and ``predictions.state`` list every slot of its six domains, ``""`` when unset;
  - mwzeval: its predictions ``{id: [{"response": "", "state"}]}``; gold: for us a MultiWOZ 2.1 ``data.json``,
             for mwzeval the same states as its ``gold_states.json`` cache holds them (its ``parse_state``
             conventions, then its own ``normalize_data``, run once before the timings, as mwzeval does when
             it builds that cache), handed to it in place of the download;
  - sgd:     the DSTC8 layout: ``test/dialogues_001.json`` (gold), ``pred/dialogues_001.json`` (the gold
             dialogues with each frame's ``slot_values`` replaced by the prediction, as the SGD baseline
             writes them), ``test/schema.json`` = ``train/schema.json`` (the corpus's slots; categorical as in
             MultiWOZ 2.2's schema).

Rows, per peer (medians over --runs; peer and ours run in turn, after one untimed run of each that gives the
figures compared):

  - peer s:      the peer's scoring, timed by a small driver (passed with ``-c``) around the peer's own
                 functions with ``time.perf_counter``, reading of its input files included; the interpreter's
                 start-up and the import of the peer's modules are not counted (in the peer's favour). Where a
                 function sits in a module with heavy imports, the driver takes just the functions it needs from
                 the peer's file with ``ast`` at run time and executes them. What each driver times:
      * fga:     ``getModelAccuracy("bench", data)`` (it reads the file itself: ``loadJson`` + every figure at
                 the 4 λ); ``data`` stands in for MultiWOZ's data.json, read only for utterance texts that the
                 code no longer prints; ``round`` is given as the identity so that the printed figures are
                 unrounded (the code rounds for printing only);
      * trade:   ``json.load`` of the file + turn keys made ints (TRADE holds ``all_prediction`` so in memory)
                 + ``TRADE.evaluate_metrics(all_prediction, "pred_bs_ptr", slot_temp)`` (30 slots: only their
                 number is used), the three methods taken from ``models/TRADE.py`` (which imports torch);
      * convlab: ``evaluate_unified_datasets.evaluate(path)`` end to end (it reads the file);
      * mwzeval: ``json.load`` of the predictions + ``Evaluator(bleu=False, success=False, richness=False,
                 dst=True)`` (loading the gold states file) + ``evaluate(input_data)``: ``normalize_data``
                 (Moses on the empty responses too) + ``get_dst``;
      * sgd:     what ``evaluate.py``'s ``main`` does but writing its outputs: the two schemas, the gold and
                 prediction files (``get_dataset_as_dict``), ``get_metrics`` (fuzzy matching on, per service);
                 ``evaluate.py``'s functions taken with ``ast`` (it imports TensorFlow for flags, file access
                 and logging: plain ``open``/``glob`` and a silent logger stand in);
  - of which read: the part of "peer s" spent reading its input files (JSON decoding included);
  - peer proc s: the wall time of the peer's whole process (start-up, imports, reading, scoring);
  - ours s:      the same command as below run by ``dst_metrics.cli.main`` in a process that has imported the
                 package, the profile's module and the readers first, timed around that call: reading, every
                 figure (ours and the profile's), the JSON printed (to memory) — counted as "peer s" is;
  - ours proc s: ``python -m dst_metrics score FILE --format F [--gold ...] --compat NAME --json`` in a fresh
                 process: the wall time of the whole process (start-up, imports, reading, every figure, printing);
  - in / proc:   peer s / ours s, and peer proc s / ours proc s (the issue's target: ours at least 3x faster
                 than every peer). Ours computes every figure of its own beside the profile's (GCA, FGA at four
                 λ, SA, AGA, RSA, P/R/F1); a peer computes its few.

Then the figures of both (the peer's printed figures as fractions: mwzeval's JGA and F1 and FGA's percentages
divided by 100), side by side, with a mark where they differ by more than 1e-9; for sgd every figure of every
group of the evaluator is compared with ours (``sgd`` in our JSON).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import fresh_process, repeated_source, write_repeated_layout  # noqa: E402
from bench_readers import (  # noqa: E402  (the converters from the reference layout)
    _mwzeval_id,
    _sgd_dialogues,
    _turns,
    write_convlab,
    write_multiwoz21,
    write_mwzeval,
    write_sgd,
    write_trade,
)

TARGET = 3.0  # the target: ours at least 3x faster than every peer
TOLERANCE = 1e-9
FGA_WEIGHTS = ["fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0"]  # the four λ the FGA code prints
RESULT = "PEER-RESULT "  # the drivers' last line: RESULT + {"seconds", "load_seconds", "figures"}

# ---- the drivers: run with `python -c DRIVER ARGS...` in the peer's interpreter; the prelude gives them
# `extract` (a peer file's named functions, executed without the rest of the module), `timed` (a function
# whose time is added to the reading time) and `report`.

PRELUDE = r'''
import ast, json, os, sys, time
clock = time.perf_counter
reading = [0.0]

def extract(path, names, namespace, cls=None):
    """Execute the top-level functions / assignments `names` of a peer's file (the methods `names` of its
    class `cls`, as a bare class) in `namespace`."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    if cls is not None:
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        node.body = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name in names]
        node.bases, node.keywords, node.decorator_list = [], [], []
        found, picked = {n.name for n in node.body}, [node]
    else:
        def named(n):
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                return {n.name} & names
            if isinstance(n, ast.Assign):
                return {t.id for t in n.targets if isinstance(t, ast.Name)} & names
            return set()
        picked = [n for n in tree.body if named(n)]
        found = set().union(*map(named, picked))
    if found != set(names):
        sys.exit(f"{path}: not found: {sorted(set(names) - found)}")
    exec(compile(ast.Module(body=picked, type_ignores=[]), path, "exec"), namespace)
    return namespace

def timed(function):
    def wrapper(*args, **kwargs):
        start = clock()
        try:
            return function(*args, **kwargs)
        finally:
            reading[0] += clock() - start
    return wrapper

def report(seconds, figures):
    print("PEER-RESULT " + json.dumps({"seconds": seconds, "load_seconds": reading[0], "figures": figures}))
'''

FGA_DRIVER = r"""
import contextlib, io, math, re
peer, folder = sys.argv[1:3]
names = {"loadJson", "getBeliefSet", "compute_acc", "getAvgGoalAccuracy", "getFGA", "getModelAccuracy"}
code = extract(os.path.join(peer, "compute_accuracy_trade_somdst.py"), names,
               {"os": os, "json": json, "math": math, "round": lambda number, digits=None: number})
code["loadJson"] = timed(code["loadJson"])

class Log:  # a data.json dialogue's log: only its utterance texts are read, for prints commented out
    def __getitem__(self, index):
        return {"text": ""}

class Dialogues:
    def __getitem__(self, dialogue_id):
        return {"log": Log()}

os.chdir(folder)
printed = io.StringIO()
start = clock()
with contextlib.redirect_stdout(printed):
    code["getModelAccuracy"]("bench", Dialogues())
seconds = clock() - start
text = printed.getvalue()
total, exact = re.search(r"Total: (\d+), Exact Match: (\d+)", text).groups()
sa, aga = re.search(r"Slot Acc = (\S+), Avg. Goal Acc = (\S+)", text).groups()
figures = {"jga": int(exact) / int(total), "sa": float(sa) / 100, "aga": float(aga) / 100}
for weight, value in re.findall(r"FGA with L=(\S+) : (\S+)", text):
    figures[f"fga@{weight}"] = float(value) / 100
report(seconds, figures)
"""

TRADE_DRIVER = r"""
peer, path = sys.argv[1:3]
names = {"evaluate_metrics", "compute_acc", "compute_prf"}
model = extract(os.path.join(peer, "models", "TRADE.py"), names, {}, cls="TRADE")["TRADE"]()
slot_temp = [f"slot {number}" for number in range(30)]  # TRADE's 30 MultiWOZ slots: only their number is used
start = clock()
with open(path) as handle:
    raw = json.load(handle)
all_prediction = {dialogue: {int(turn): item for turn, item in turns.items()} for dialogue, turns in raw.items()}
reading[0] = clock() - start
jga, f1, sa = model.evaluate_metrics(all_prediction, "pred_bs_ptr", slot_temp)
report(clock() - start, {"jga": jga, "sa": sa, "slot_f1": f1})
"""

CONVLAB_DRIVER = r"""
import importlib.util, types
peer, path = sys.argv[1:3]
spec = importlib.util.spec_from_file_location(
    "evaluate_unified_datasets", os.path.join(peer, "convlab", "dst", "evaluate_unified_datasets.py"))
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.json = types.SimpleNamespace(load=timed(json.load))  # the module's json.load(open(path)), timed
start = clock()
metrics = module.evaluate(path)
seconds = clock() - start
figures = {"jga": metrics["accuracy"]}
figures.update((key, metrics[key]) for key in ("slot_precision", "slot_recall", "slot_f1"))
report(seconds, figures)
"""

MWZEVAL_DRIVER = r"""
peer, predictions, gold = sys.argv[1:4]
sys.path.insert(0, peer)
import mwzeval.metrics as metrics

def load_gold_states():  # mwzeval reads its cached gold_states.json (downloaded once): here the benchmark's
    with open(gold) as handle:
        return json.load(handle)

metrics.load_gold_states = timed(load_gold_states)
start = clock()
with open(predictions) as handle:
    input_data = timed(json.load)(handle)
evaluator = metrics.Evaluator(bleu=False, success=False, richness=False, dst=True)
dst = evaluator.evaluate(input_data)["dst"]
seconds = clock() - start
report(seconds, {"jga": dst["joint_accuracy"] / 100, "slot_precision": dst["slot_precision"],
                 "slot_recall": dst["slot_recall"], "slot_f1": dst["slot_f1"] / 100})
"""

MWZEVAL_GOLD = r"""
peer, raw, out = sys.argv[1:4]
sys.path.insert(0, peer)
from mwzeval.normalization import normalize_data
with open(raw) as handle:
    states = json.load(handle)
data = {dialogue: [{"response": "", "state": state} for state in turns] for dialogue, turns in states.items()}
normalize_data(data)  # as mwzeval's load_multiwoz22 does before writing gold_states.json
with open(out, "w") as handle:
    json.dump({dialogue: [turn["state"] for turn in turns] for dialogue, turns in data.items()}, handle)
"""

SGD_DRIVER = r"""
import collections, glob, types
import numpy as np
peer, folder = sys.argv[1:3]
sys.path.insert(0, peer)
from schema_guided_dst import metrics
quiet = types.SimpleNamespace(info=lambda *args, **kwargs: None)
tf = types.SimpleNamespace(gfile=types.SimpleNamespace(GFile=open, Glob=glob.glob), logging=quiet,
                           io=types.SimpleNamespace(gfile=types.SimpleNamespace(GFile=open)))
flags = types.SimpleNamespace(use_fuzzy_match=True, joint_acc_across_turn=False)  # evaluate.py's defaults
names = {"ALL_SERVICES", "SEEN_SERVICES", "UNSEEN_SERVICES", "PER_FRAME_OUTPUT_FILENAME", "get_service_set",
         "get_in_domain_services", "get_dataset_as_dict", "get_metrics"}
code = extract(os.path.join(peer, "schema_guided_dst", "evaluate.py"), names,
               {"collections": collections, "json": json, "os": os, "np": np, "tf": tf, "metrics": metrics,
                "FLAGS": flags})
start = clock()
schema = os.path.join(folder, "test", "schema.json")
in_domain_services = code["get_in_domain_services"](schema, os.path.join(folder, "train", "schema.json"))
with open(schema) as handle:
    eval_services = {service["service_name"]: service for service in json.load(handle)}
dataset_ref = code["get_dataset_as_dict"](os.path.join(folder, "test", "dialogues_*.json"))
dataset_hyp = code["get_dataset_as_dict"](os.path.join(folder, "pred", "*.json"))
reading[0] = clock() - start
aggregate, _ = code["get_metrics"](dataset_ref, dataset_hyp, eval_services, in_domain_services)
seconds = clock() - start
every = aggregate[code["ALL_SERVICES"]]
report(seconds, {"jga": every["joint_goal_accuracy"], "aga": every["average_goal_accuracy"], "sgd": aggregate})
"""

# ---- inputs: each peer's files from the repeated corpus (reference layout {dialogue: {turn: {"gt", "pr"}}})


def _value(value: object) -> str:
    """A state value as one string (a list of alternatives joined with ``|``, ConvLab-3's separator)."""
    return value if isinstance(value, str) else "|".join(map(str, value))  # type: ignore[arg-type]


# ConvLab-3's unified MultiWOZ 2.1 state template (its ontology's ``state``: every slot of six domains, ``""``
# when unset), as its preprocess.py writes every user turn's gold state and its rule/SetSUMBT trackers their
# belief states; the corpus's own domains keep their slot names, the others are added with ConvLab-3's.
MULTIWOZ21_TEMPLATE = {
    "attraction": ["type", "name", "area"],
    "hotel": "name,area,parking,price range,stars,internet,type,book stay,book day,book people".split(","),
    "restaurant": ["food", "price range", "name", "area", "book time", "book day", "book people"],
    "taxi": ["leave at", "destination", "departure", "arrive by"],
    "train": ["leave at", "destination", "day", "arrive by", "departure", "book people"],
    "hospital": ["department"],
}


def write_convlab_verbose(data: dict, folder: Path) -> Path:
    """ConvLab-3's predictions.json as it writes it for MultiWOZ 2.1: both states list every slot of the six
    domains of `MULTIWOZ21_TEMPLATE` (the corpus's domains with the slots its gold uses), ``""`` when unset."""
    template = {domain: dict.fromkeys(slots, "") for domain, slots in MULTIWOZ21_TEMPLATE.items()}
    corpus_domains: dict[str, dict[str, str]] = {}
    for turns in data.values():
        for turn in turns.values():
            for domain, slots in turn["gt"].items():
                corpus_domains.setdefault(domain, {}).update(dict.fromkeys(slots, ""))
    template.update(corpus_domains)

    def filled(state: dict) -> dict:
        full = {domain: dict(slots) for domain, slots in template.items()}
        for domain, slots in state.items():
            full.setdefault(domain, {}).update((slot, _value(value)) for slot, value in slots.items())
        return full

    verbose = {
        dialogue_id: {turn_id: {"gt": filled(turn["gt"]), "pr": filled(turn["pr"])} for turn_id, turn in turns.items()}
        for dialogue_id, turns in data.items()
    }
    return write_convlab(verbose, folder)


def write_mwzeval_inputs(data: dict, folder: Path) -> tuple[Path, Path, Path]:
    """(predictions, data.json gold for us, mwzeval's gold states before its normalization). The predictions
    are bench_readers' with an empty ``response`` a turn (mwzeval's normalize_data reads it); mwzeval's gold
    keeps what its parse_state keeps of a MultiWOZ 2.2 state: no ``dontcare`` slot, a list's first value,
    no empty domain (and, as its gold never holds one, no inactive ``none``/``""`` slot)."""
    predictions = write_mwzeval(data, folder)
    dialogues = json.loads(predictions.read_text())
    for turns in dialogues.values():
        for turn in turns:
            turn["response"] = ""
    predictions.write_text(json.dumps(dialogues))

    def parsed(state: dict) -> dict:
        kept = {}
        for domain, slots in state.items():
            values = {slot: [value] if isinstance(value, str) else list(value) for slot, value in slots.items()}
            domain_state = {
                slot: options[0]
                for slot, options in values.items()
                if "dontcare" not in options and options and options[0] not in ("", "none")
            }
            if domain_state:
                kept[domain] = domain_state
        return kept

    raw_gold = folder / "mwzeval_gold_raw.json"
    states = {_mwzeval_id(name): [parsed(turn["gt"]) for _, turn in _turns(turns)] for name, turns in data.items()}
    raw_gold.write_text(json.dumps(states))
    return predictions, write_multiwoz21(data, folder), raw_gold


CATEGORICAL = frozenset(
    f"{domain}-{slot}"
    for domain, slots in {
        "restaurant": ("area", "pricerange", "book day", "book people"),
        "hotel": ("area", "pricerange", "type", "stars", "parking", "internet", "book day", "book people", "book stay"),
        "attraction": ("area",),
        "train": ("day", "book people"),
    }.items()
    for slot in slots
)
"""The slots MultiWOZ 2.2's schema marks categorical (the others are not: names, food, times…)."""


def write_sgd_inputs(data: dict, folder: Path) -> Path:
    """The DSTC8 layout under `folder`/sgd: test/ (gold dialogues, schema), train/schema.json (the same: every
    service seen), pred/ (the gold dialogues, each USER frame's slot_values the prediction's for its service)."""
    root = folder / "sgd"
    for part in ("test", "train", "pred"):
        (root / part).mkdir(parents=True)
    write_sgd(data, root / "test", "gt").rename(root / "test" / "dialogues_001.json")
    predictions = _sgd_dialogues(data, "gt")
    slots: dict[str, set[str]] = {}
    for dialogue, turns in zip(predictions, data.values()):
        for user, (_, turn) in zip(dialogue["turns"][0::2], _turns(turns)):
            for side in ("gt", "pr"):
                for service, state in turn[side].items():
                    slots.setdefault(service, set()).update(state)
            for frame in user["frames"]:
                state = turn["pr"].get(frame["service"], {})
                frame["state"]["slot_values"] = {slot: [_value(value)] for slot, value in state.items()}
    (root / "pred" / "dialogues_001.json").write_text(json.dumps(predictions))
    schema = [
        {
            "service_name": service,
            "description": "",
            "slots": [
                {"name": slot, "is_categorical": f"{service}-{slot}" in CATEGORICAL, "possible_values": []}
                for slot in sorted(names)
            ],
            "intents": [],
        }
        for service, names in sorted(slots.items())
    ]
    for part in ("test", "train"):
        (root / part / "schema.json").write_text(json.dumps(schema))
    return root


OURS_DRIVER = r"""
import contextlib, importlib, io, json, sys, time
profile, argv = sys.argv[1], sys.argv[2:]
import dst_metrics.cli.score, dst_metrics.compat, dst_metrics.readers  # imports are not counted, as for the peers
importlib.import_module(f"dst_metrics.compat.{profile}")
from dst_metrics.cli import main
printed = io.StringIO()
start = time.perf_counter()
with contextlib.redirect_stdout(printed):
    status = main(["score", *argv])
seconds = time.perf_counter() - start
assert status == 0, status
print(RESULT + json.dumps({"seconds": seconds, "load_seconds": 0.0, "figures": {}}))
"""

# ---- running


def run_peer(argv: list[str], cwd: str, env: dict | None = None) -> tuple[float, dict]:
    """(wall seconds of the whole process, the driver's report); a failure raises RuntimeError with its stderr."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    if done.returncode or not lines:
        raise RuntimeError((done.stderr or done.stdout)[-1500:].strip())
    return wall, json.loads(lines[-1][len(RESULT) :])


def compare(peer: dict, ours: dict, keys: list[str]) -> list[tuple[str, object, object, bool]]:
    """(figure, peer's, ours, agree) for each key; for ``sgd`` every figure of every group of the peer."""
    rows = []
    for key in keys:
        if key == "sgd":
            for group, figures in sorted(peer["sgd"].items()):
                for name, value in sorted(figures.items()):
                    mine = ours.get("sgd", {}).get(group, {}).get(name)
                    rows.append((f"sgd {group} {name}", value, mine, _close(value, mine)))
            continue
        rows.append((key, peer.get(key), ours.get(key), _close(peer.get(key), ours.get(key))))
    return rows


def _close(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= TOLERANCE
    return a == b


def _float(value: object) -> str:
    return f"{value:.12f}" if isinstance(value, float) else str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="copies of the restaurant file (20: 67,180 turns)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side; the median is printed")
    for name in ("fga", "convlab", "mwzeval", "trade", "sgd"):
        parser.add_argument(f"--{name}", metavar="DIR", help=f"a checkout of the {name} peer (see above)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter running the peers")
    parser.add_argument("--keep", metavar="DIR", help="write each peer's inputs under DIR/NAME and keep them")
    args = parser.parse_args()
    data = repeated_source(args.repeat)
    if data is None:
        return 0
    turns = sum(len(t) for t in data.values())
    ours_cli = [sys.executable, "-m", "dst_metrics", "score"]
    # bytecode cached as on a user's machine (a machine setting PYTHONDONTWRITEBYTECODE compiles every module of
    # every process again); the untimed first runs write the caches
    peer_env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    ours_env = {**peer_env, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}

    # name: (the peer's file that must exist, the inputs' writer -> (driver args, our arguments), driver, figures)
    Setup = Callable[[Path, Path], tuple[list[str], list[str]]]

    def fga_setup(peer: Path, folder: Path) -> tuple[list[str], list[str]]:
        path = folder / "fga" / "bench" / "bench_result.json"
        path.parent.mkdir(parents=True)
        write_repeated_layout(path, args.repeat)
        return [str(folder / "fga")], [str(path), "--format", "reference", "--compat", "fga"]

    def trade_setup(peer: Path, folder: Path) -> tuple[list[str], list[str]]:
        path = write_trade(data, folder)
        return [str(path)], [str(path), "--format", "trade", "--compat", "trade"]

    def convlab_setup(peer: Path, folder: Path) -> tuple[list[str], list[str]]:
        path = write_convlab_verbose(data, folder)
        return [str(path)], [str(path), "--format", "convlab", "--compat", "convlab"]

    def mwzeval_setup(peer: Path, folder: Path) -> tuple[list[str], list[str]]:
        predictions, gold, raw_gold = write_mwzeval_inputs(data, folder)
        gold_states = folder / "gold_states.json"
        prepare = [args.python, "-c", PRELUDE + MWZEVAL_GOLD, str(peer), str(raw_gold), str(gold_states)]
        subprocess.run(prepare, check=True, capture_output=True, cwd=folder)
        ours = [str(predictions), "--format", "mwzeval", "--gold", str(gold), "--gold-format", "multiwoz21"]
        return [str(predictions), str(gold_states)], [*ours, "--compat", "mwzeval"]

    def sgd_setup(peer: Path, folder: Path) -> tuple[list[str], list[str]]:
        root = write_sgd_inputs(data, folder)
        ours = [str(root / "pred"), "--format", "sgd", "--gold", str(root / "test"), "--gold-format", "sgd"]
        return [str(root)], [*ours, "--compat", "sgd"]

    rates = ["jga", "slot_precision", "slot_recall", "slot_f1"]
    peers: dict[str, tuple[str, Setup, str, list[str]]] = {
        "fga": ("compute_accuracy_trade_somdst.py", fga_setup, FGA_DRIVER, ["jga", "sa", "aga", *FGA_WEIGHTS]),
        "convlab": ("convlab/dst/evaluate_unified_datasets.py", convlab_setup, CONVLAB_DRIVER, rates),
        "mwzeval": ("mwzeval/metrics.py", mwzeval_setup, MWZEVAL_DRIVER, rates),
        "trade": ("models/TRADE.py", trade_setup, TRADE_DRIVER, ["jga", "sa", "slot_f1"]),
        "sgd": ("schema_guided_dst/evaluate.py", sgd_setup, SGD_DRIVER, ["jga", "aga", "sgd"]),
    }

    print(f"corpus: {len(data)} dialogues, {turns:,} turns (--repeat {args.repeat}); median of {args.runs} runs")
    print(f"peers run by {args.python}; ours by {sys.executable}")
    results = []
    notes = []
    for name, (landmark, setup, driver, keys) in peers.items():
        given = getattr(args, name)
        if not given:
            notes.append(f"{name}: skipped (no --{name} DIR given)")
            continue
        peer = Path(given).resolve()
        if not (peer / landmark).is_file():
            notes.append(f"{name}: skipped ({peer / landmark} not found)")
            continue
        with contextlib.ExitStack() as stack:
            if args.keep:
                work = str(Path(args.keep, name).resolve())
                Path(work).mkdir(parents=True)
            else:
                work = stack.enter_context(tempfile.TemporaryDirectory())
            folder = Path(work)
            try:
                driver_args, ours_args = setup(peer, folder)
            except subprocess.CalledProcessError as error:
                notes.append(f"{name}: skipped (preparing its inputs failed: {error.stderr.decode()[-500:].strip()})")
                continue
            peer_argv = [args.python, "-c", PRELUDE + driver, str(peer), *driver_args]
            ours_argv = [*ours_cli, *ours_args, "--json"]
            try:
                _, first = run_peer(peer_argv, work, peer_env)  # untimed: the figures (and a warm file cache)
            except RuntimeError as error:
                notes.append(f"{name}: skipped (the peer failed: {error})")
                continue
            mine = json.loads(subprocess.run(ours_argv, check=True, capture_output=True, env=ours_env).stdout)
            ours_inside = [sys.executable, "-c", f"RESULT = {RESULT!r}\n" + OURS_DRIVER, name, *ours_args, "--json"]
            peer_times, reading, walls, ours_times, ours_walls = [], [], [], [], []
            for _ in range(args.runs):
                wall, report = run_peer(peer_argv, work, peer_env)
                peer_times.append(report["seconds"])
                reading.append(report["load_seconds"])
                walls.append(wall)
                ours_times.append(run_peer(ours_inside, work, ours_env)[1]["seconds"])
                ours_walls.append(fresh_process(ours_argv, env=ours_env)[0])
            figures = compare(first["figures"], mine, keys)
            medians = [statistics.median(t) for t in (peer_times, reading, walls, ours_times, ours_walls)]
            results.append((name, *medians, figures))
            print(f"  {name}: done", flush=True)

    print()
    header = (
        f"{'peer':<8} {'turns':>7} {'peer s':>7} {'of which read':>13} {'peer proc s':>11} {'ours s':>7} "
        f"{'ours proc s':>11} {'in':>6} {'proc':>6} {'figures agree':>13}  {TARGET:g}x in/proc"
    )
    print(header)
    print("-" * len(header))
    for name, peer_s, read_s, proc_s, ours_s, ours_proc_s, figures in results:
        agree = "yes" if all(ok for *_, ok in figures) else "NO"
        ratios = (peer_s / ours_s, proc_s / ours_proc_s)
        verdict = "/".join("ok" if ratio >= TARGET else f"<{TARGET:g}x" for ratio in ratios)  # in/proc
        print(
            f"{name:<8} {turns:>7,} {peer_s:7.2f} {read_s:13.2f} {proc_s:11.2f} {ours_s:7.2f} {ours_proc_s:11.2f} "
            f"{f'{ratios[0]:.1f}x':>6} {f'{ratios[1]:.1f}x':>6} {agree:>13}  {verdict}"
        )
    print()
    print("peer s, ours s: the scoring with the reading of the files, timed inside the process (start-up and")
    print("imports not counted); proc s: the whole process (`dst-metrics score ... --compat NAME --json` for ours);")
    print("in = peer s / ours s, proc = peer proc s / ours proc s. Figures as fractions (peer | ours; '!=' where")
    print("they differ by > 1e-9):")
    for name, *_, figures in results:
        print(f"{name}:")
        for key, theirs, ours, ok in figures:
            if key.startswith("sgd ") and ok:
                continue  # every sgd figure is compared; only the differing ones are listed
            print(f"  {key:<44} {_float(theirs):>16} | {_float(ours):<16} {'' if ok else '!='}")
        sgd_rows = [row for row in figures if row[0].startswith("sgd ")]
        if sgd_rows:
            differing = sum(not ok for *_, ok in sgd_rows)
            print(f"  (sgd: {len(sgd_rows)} figures of the evaluator's groups compared, {differing} differ)")
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
