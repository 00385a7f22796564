"""The Hugging Face `evaluate` adapter, in small parts:

- `arrow`: the Arrow codec (a Corpus as rows, one per turn, and back), needing only pyarrow;
- `batches`: what ``add_batch()`` receives, checked with the core and encoded;
- `docs`: the compute arguments and the figure lists, written from the figure registry;
- `metric`: the ``evaluate.Metric`` base class of the modules (imports `evaluate`);
- `demo`: the small Gradio app of a module's Space.

Importing this package imports none of `evaluate`, `datasets` or `gradio`.
"""
