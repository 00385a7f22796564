"""The installed version of dst-metrics (``0+unknown`` in a source tree that was never installed)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dst-metrics")
except PackageNotFoundError:  # pragma: no cover - a source tree without install
    __version__ = "0+unknown"
