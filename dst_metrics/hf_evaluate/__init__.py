"""The Hugging Face `evaluate` modules' parts: `arrow` (the Arrow codec, pyarrow only), `batches` (what
``add_batch()`` receives), `docs` (written from the figure registry), `metric` (the ``evaluate.Metric`` base,
imports `evaluate`) and `demo` (a module's Gradio Space). Importing this package imports none of them.
"""
