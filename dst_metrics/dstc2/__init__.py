"""DSTC2 tracker metrics, equal to the official DSTC2 scorer (score.py, report.py, check_track.py).

`data` reads the files, `check` checks the track file, `prepare` and `items` turn each turn into the
official ``add`` calls' quantities, `fast` computes the rows with numpy, `pipeline` runs it in one
process or several, `output` writes score.csv and report.py's text. See docs/dstc2.md.
"""
