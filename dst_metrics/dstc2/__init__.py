"""DSTC2 tracker metrics, equal to the official DSTC2 scorer (score.py, report.py, check_track.py).

Modules: `data` (sessions, ontology, track files), `check` (what check_track.py checks, located),
`labels` (scheme B, schedule 2), `prepare` (tracker distributions and labels per turn), `stats` (the
official `normalise_dist` and ROC rows), `items` (each ``add`` call's quantities) and `fast` (the rows
computed column-wise, with numpy; tested against the official call order, tests/fixtures/dstc2/reference_scorer.py),
`pipeline` (files to scores, in one process or several), `scorer` (`score`), `output` (score.csv
and report.py's text), `compare` (the tests of
``dst-metrics dstc2-compare``); the commands are `dst_metrics.cli.dstc2` and
`dst_metrics.cli.dstc2_compare`. See docs/dstc2.md and ../shared/DSTC2.md.
"""
