"""The GCA explorer, the Hugging Face Space of dst-metrics, as a package.

`dst_metrics` does every computation; these modules only read what the visitor gives
(`inputs`), lay the results out (`explore`, `views`, `plots`, `formatting`), offer them for
download (`exports`) and build the Gradio page (`page`). Everything but `page` is plain
Python that tests call without a browser; only `page` imports gradio. ``app.py`` at the
repository root is the Hub's entry point.
"""
