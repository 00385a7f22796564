"""The figures, from the sums of `core.tally`: `metrics` holds each formula once (written over `Columns`: a `Tally`,
or the bootstrap's columns), `registry` the registry of every figure the outputs show (`FIGURES`: key, label,
range, direction, formula), and `calibration` the calibration figures' registry.
"""
