"""The build's one optional step: with ``DST_METRICS_COMPILE=1`` (and mypy installed, building without
isolation), the typed modules in `COMPILED` are compiled with mypyc, as black ships its wheels; else the
pure-Python package, which stays the reference and gives the same figures. Everything else about the
package is in pyproject.toml.

    pip install "mypy>=2.4.1" setuptools && DST_METRICS_COMPILE=1 pip install --no-build-isolation .
"""

import os

from setuptools import setup

COMPILED = [
    "dst_metrics/core/tally.py",
    "dst_metrics/corpus.py",
    "dst_metrics/states.py",
    "dst_metrics/figures/metrics.py",
    "dst_metrics/figures/registry.py",
    "dst_metrics/compat/fga.py",
]
"""The hot loop: building the states (corpus, states), the one diff per turn with the tally (core), and
the figures of a tally (metrics, the registry's figures), computed for each dialogue with --per-dialogue;
the `fga` profile's walk of every turn (--compat fga: its own diff, `none` counting). `Alternatives` stays
uncompiled in `_alternatives` (docs/speed.md)."""

ext_modules = []
if os.environ.get("DST_METRICS_COMPILE") == "1":
    from mypyc.build import mypycify

    # The modules it imports are read for their types, not compiled, and their own typing is not judged here.
    # The runtime the compiled modules share is one extension named after the package, `dst_metrics__mypyc`
    # (mypyc's default is a hash), beside `dst_metrics` in site-packages.
    ext_modules = mypycify(["--follow-imports=silent", *COMPILED], opt_level="3", group_name="dst_metrics")

setup(ext_modules=ext_modules)
