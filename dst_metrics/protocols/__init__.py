"""Evaluation protocols of recent DST papers, each equal to its authors' code: `sgdx` (SGD-X schema
sensitivity), `checkdst` (CheckDST's conditional JGA and flip rates). Each module is a small registry
of figures (key, label, description, higher is better, the function computing it) next to the
definitions; ``dst-metrics sgdx`` and ``dst-metrics checkdst`` print them."""
