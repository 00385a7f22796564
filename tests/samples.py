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
    from dst_metrics.reading import Reading, split_reading

    reading, options = split_reading(options)
    resolved = resolve_input(InputSpec(source, format, **options, reading=Reading(**reading)))
    return resolved.corpus, resolved.format


COMPRESSIONS = ("gzip", "bzip2", "xz", "zip")
"""The compressions every reader reads (`dst_metrics.readers.compression.MAGIC`), as `compressed_copy` names them."""


def compressed_copy(source, folder, kind: str):
    """A copy of the file `source` in `folder`, compressed with the standard library's `kind` (a zip archive holds
    the file under its own name); returns its path (``name.json.gz``, ``.bz2``, ``.xz``, ``.zip``)."""
    import bz2
    import gzip
    import lzma
    import zipfile
    from pathlib import Path

    source, folder = Path(source), Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zip": ".zip"}[kind]
    target = folder / (source.name + suffix)
    if kind == "zip":
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(source, source.name)
    else:
        target.write_bytes(
            {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](source.read_bytes())
        )
    return target
