"""Small corpora several test files share: two dialogues with nested and flat states, an
acceptable-value list in gold, a wrong value and an overshot slot."""

GOLD = [
    [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}, {"hotel": {"stars": "4"}}],
    [{}, {"taxi-leave at": ["17:00", "5 pm"]}, {"taxi-leave at": ["17:00", "5 pm"], "taxi-dest": "museum"}],
]
PRED = [
    [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}, {"hotel": {"stars": "5"}}],
    [{"taxi": {"dest": "museum"}}, {"taxi-leave at": "5 pm"}, {"taxi-leave at": "5 pm", "taxi-dest": "museum"}],
]


def gold_copy(source, target, share: float = 0.1, seed: int = 0):
    """Write to `target` the reference-layout file `source` with a seeded `share` of its dialogues
    (``random.Random(seed).sample`` of the sorted ids) given the gold state as prediction; returns `target`."""
    import json
    import random

    data = json.loads(source.read_text())
    ids = sorted(data)
    for dialogue_id in random.Random(seed).sample(ids, round(share * len(ids))):
        for turn in data[dialogue_id].values():
            turn["pr"] = turn["gt"]
    target.write_text(json.dumps(data))
    return target
