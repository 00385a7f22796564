"""The `evaluate` module folders as the wheel ships them: ``dst_metrics.hub.gca_metric``,
``dst_metrics.hub.jga_fga_metrics`` and ``dst_metrics.hub.dst_metrics_all`` are the repository's
top-level ``gca_metric/``, ``jga_fga_metrics/`` and ``dst_metrics_all/`` (pyproject.toml maps them), so
site-packages holds no generic top-level name. `dst_metrics.module_path` finds a folder installed here
or beside the package in a source tree; ``python -m dst_metrics.release hub DIR`` writes each as its own
Hub repository."""
