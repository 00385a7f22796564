"""Zero-shot, leave-one-domain-out figures (`dst_metrics.analysis.zeroshot`, issue 34, item 1).

The expected figures were printed by TRADE's own code, run outside the project (github jasonwu0731/trade-dst):
``utils/utils_multiWOZ_DST.read_langs`` with ``-exceptd DOMAIN`` (and ``-onlyd DOMAIN``: the same test set) on
a ``test_dials.json`` written from the file's gold turns with the dialogues' domains of `dialogue_domains`
below, then ``models/TRADE.py``'s ``evaluate_metrics`` on the selected turns, each prediction restricted to
``slot_temp`` (what the model generates). Command: ``python trade_driver.py FILE DOMAINS.json DOMAIN``; it
printed the dialogues and turns selected, ``len(slot_temp)`` and (JGA, SA, F1).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dst_metrics import Corpus
from dst_metrics.analysis.zeroshot import (
    DOMAIN_SLOTS,
    DOMAINS,
    held_out,
    read_dialogue_domains,
    score_domains,
    score_held_out,
)
from dst_metrics.errors import InputError
from dst_metrics.options import OptionError, Options
from dst_metrics.readers import read
from tests.conftest import REFERENCE, requires_shared
from tests.test_turn_level import seeded_variant

TRADE_FILE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
T5 = REFERENCE / "t5_zeroshot" / "predictions"
T5_DOMAINS = {"attraction": "T5_result_zeroshot_attraction.json", "restaurant": "T5_result_zeroshot_rest.json"}

# (dialogues, turns, JGA, SA, F1) as TRADE's code printed them (module docstring), per held-out domain.
TRADE_PRINTED = {
    "trade": {
        "hotel": (396, 3225, 0.6217054263565891, 0.938170542635673, 0.905172514418753),
        "train": (490, 3804, 0.7823343848580442, 0.9530757097791848, 0.9410861468826721),
        "restaurant": (437, 3359, 0.6787734444775231, 0.9387572832050236, 0.9260526480234761),
        "attraction": (395, 3110, 0.7418006430868167, 0.9052518756698772, 0.9032690246516627),
        "taxi": (198, 1573, 0.768595041322314, 0.9041640178003815, 0.8684769775678862),
    },
    "trade_seed34": {
        "hotel": (396, 3225, 0.537984496124031, 0.924093023255831, 0.8781403033304521),
        "train": (490, 3804, 0.6451104100946372, 0.9208289519803798, 0.9102474724714361),
        "restaurant": (437, 3359, 0.5861863649895802, 0.9154935567558246, 0.8924411931556948),
        "attraction": (395, 3110, 0.7045016077170418, 0.8858520900321482, 0.8621007502679522),
        "taxi": (198, 1573, 0.7406230133502861, 0.8946280991735537, 0.862219598583235),
    },
    # the T5 files hold the held-out domain's dialogues and slots already. On attraction TRADE's loader
    # first rewrites 104 gold turns (fix_general_label_error: "concerthall" -> "concert hall", ...) and
    # printed JGA 0.335048231511254; the figures below are its run with the gold as given (docs/compat.md).
    "t5": {
        "attraction": (395, 3110, 0.3347266881028939, 0.6540192926045063, 0.43211146838156567),
        "restaurant": (437, 3359, 0.24888359630842513, 0.7784204482626625, 0.7120320039194676),
    },
}


def dialogue_domains() -> dict[str, frozenset[str]]:
    """The dialogues' domains given to TRADE and to us: attraction and restaurant where T5DST's files (made by
    TRADE's selection from the goals) hold the dialogue, the other three where the gold state names them."""
    data = json.loads(TRADE_FILE.read_text())
    out = {}
    for dialogue_id, turns in data.items():
        named = {item.split("-")[0] for turn in turns.values() for item in turn["turn_belief"]
                 if item.split("-", 2)[2] not in ("none", "")}  # fmt: skip
        out[dialogue_id] = named - set(T5_DOMAINS)
    for domain, name in T5_DOMAINS.items():
        for dialogue_id in json.loads((T5 / name).read_text()):
            out[dialogue_id].add(domain)
    return {dialogue_id: frozenset(domains) for dialogue_id, domains in out.items()}


def corpus_of(name: str, tmp_path, domain: str) -> Corpus:
    if name == "trade":
        return read(TRADE_FILE)
    if name == "t5":
        return read(T5 / T5_DOMAINS[domain])
    path = tmp_path / "trade_seed34.json"
    path.write_text(json.dumps(seeded_variant(json.loads(TRADE_FILE.read_text()))))
    return read(path)


@requires_shared
@pytest.mark.parametrize("name, domain", [(n, d) for n, rows in TRADE_PRINTED.items() for d in rows])
def test_selection_and_figures_equal_trades_printed(name: str, domain: str, tmp_path) -> None:
    corpus = corpus_of(name, tmp_path, domain)
    domains = dialogue_domains()
    selected = held_out(corpus, domain, "trade", domains)
    scores = score_held_out(corpus, domain, "trade", Options(compat="trade"), domains).scores
    found = (len(selected.dialogues), selected.num_turns, scores["jga"], scores["sa"], scores["slot_f1"])
    assert found == TRADE_PRINTED[name][domain]
    assert f"K:{DOMAIN_SLOTS[domain]}" in scores.signature and f"heldout:{domain}" in scores.signature


@requires_shared
def test_without_goals_the_gold_states_select_other_dialogues() -> None:
    # T5's attraction file holds TRADE's 395 dialogues; the gold states name attraction in 393 of them
    corpus = read(T5 / T5_DOMAINS["attraction"])
    assert len(held_out(corpus, "attraction").dialogues) == 393
    assert held_out(corpus, "attraction").reading[-1] == "protocol:trade/gold"
    assert len(held_out(corpus, "attraction", dialogue_domains=dialogue_domains()).dialogues) == 395


@requires_shared
def test_active_turns_keep_only_turns_whose_gold_has_the_domain() -> None:
    corpus = read(TRADE_FILE)
    for domain in DOMAINS:
        trade, active = (
            held_out(corpus, domain, dialogue_domains=dialogue_domains()),
            held_out(corpus, domain, "active-turns"),
        )
        prefix = domain + "-"
        assert all(any(v not in ("none", "") for v in g.values()) for d in active.dialogues for g in d.gold)
        for d in (*trade.dialogues, *active.dialogues):
            assert all(slot.startswith(prefix) for state in (*d.gold, *d.pred) for slot in state)
        assert 0 < active.num_turns < trade.num_turns


@requires_shared
def test_the_table_of_five_domains_averages_them() -> None:
    rows = score_domains(read(TRADE_FILE), "trade", Options(compat="trade"), dialogue_domains())
    assert list(rows) == [*DOMAINS, "average"]
    assert rows["average"]["jga"] == pytest.approx(sum(TRADE_PRINTED["trade"][d][2] for d in DOMAINS) / 5, abs=1e-15)
    assert rows["average"]["turns"] == sum(TRADE_PRINTED["trade"][d][1] for d in DOMAINS)
    assert "heldout:each" in rows["average"].signature and "K:each" in rows["average"].signature


def test_reading_the_dialogues_domains_in_each_shape(tmp_path) -> None:
    shapes = {
        "dials.json": [{"dialogue_idx": "A.json", "domains": ["hotel", "taxi"], "dialogue": []}],
        "data.json": {"A.json": {"goal": {"hotel": {"info": {}}, "taxi": {"info": {}}, "train": {}, "message": ["x"]}}},
        "plain.json": {"A.json": ["hotel", "taxi"]},
    }
    for name, data in shapes.items():
        (tmp_path / name).write_text(json.dumps(data))
        assert read_dialogue_domains(tmp_path / name) == {"A.json": frozenset({"hotel", "taxi"})}, name
    (tmp_path / "bad.json").write_text(json.dumps({"A.json": "hotel"}))
    with pytest.raises(InputError, match="A.json"):
        read_dialogue_domains(tmp_path / "bad.json")
    # what cannot be read is said in our words, at the place the errors' attributes give (issue 56)
    unreadable = {
        "broken.json": (b'{"A.json":\n  ["hotel",]}', "not valid JSON at line 2, column 12"),
        "latin1.json": (b'{"A.json": ["caf\xe9"]}', "not UTF-8 text at byte 16"),
    }
    for name, (data, problem) in unreadable.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(InputError) as caught:
            read_dialogue_domains(tmp_path / name)
        assert str(caught.value) == f"{tmp_path / name}: cannot read the dialogues' domains ({problem})"
    with pytest.raises(InputError) as caught:
        read_dialogue_domains(tmp_path / "missing.json")
    assert str(caught.value).startswith(f"{tmp_path / 'missing.json'}: cannot read the dialogues' domains (")


def test_bad_protocol_and_a_domain_nobody_has() -> None:
    corpus = Corpus.from_dialogues([[{"hotel-area": "north"}]], [[{"hotel-area": "north"}]])
    with pytest.raises(OptionError, match="protocol"):
        held_out(corpus, "hotel", "d3st")
    with pytest.raises(OptionError, match="trade only"):
        held_out(corpus, "hotel", "active-turns", {"x": frozenset()})
    with pytest.raises(InputError, match="taxi"):
        held_out(corpus, "taxi")


@requires_shared
def test_command_line(tmp_path) -> None:
    path = tmp_path / "domains.json"
    path.write_text(json.dumps({k: sorted(v) for k, v in dialogue_domains().items()}))
    command = [sys.executable, "-m", "dst_metrics", "score", str(TRADE_FILE), "--json", "--compat", "trade"]
    out = subprocess.run(
        [*command, "--domain", "taxi", "--dialogue-domains", str(path)], capture_output=True, text=True, check=True
    )
    record = json.loads(out.stdout)
    assert (record["jga"], record["sa"], record["turns"]) == (*TRADE_PRINTED["trade"]["taxi"][2:4], 1573)
    out = subprocess.run(
        [*command, "--domain", "all", "--dialogue-domains", str(path)], capture_output=True, text=True, check=True
    )
    record = json.loads(out.stdout)
    assert [record[d]["jga"] for d in DOMAINS] == [TRADE_PRINTED["trade"][d][2] for d in DOMAINS]
    bad = subprocess.run([*command, "--domain", "all", "--protocol", "active-turns", "--dialogue-domains", str(path)],
                         capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 2 and "--protocol trade only" in bad.stderr
