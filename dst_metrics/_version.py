"""The version of dst-metrics: the one place it is written (pyproject.toml reads it from here), a
plain string so that ``dst-metrics --version`` imports nothing to print it."""

__version__ = "0.1.0"
