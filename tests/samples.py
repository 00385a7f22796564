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


def read_side(source, side: str, format: str = "auto", *, name: str | None = None):
    """One side (``"gold"`` or ``"pred"``) of a one-sided format's file or folder, as pairing reads it."""
    from dst_metrics.readers.inputs import read_sides, resolve

    return read_sides(resolve(source, format, name), side)


def read_with_format(source, format: str = "auto", **options):
    """(Corpus, the name of the format read) of `source`, as `dst_metrics.read` reads it."""
    from dst_metrics.readers.inputs import InputSpec, resolve_input

    resolved = resolve_input(InputSpec(source, format, **options))
    return resolved.corpus, resolved.format
