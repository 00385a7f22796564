"""The GCA explorer, the Hugging Face Space of dst-metrics, as a package.

`dst_metrics` does every computation; these modules only read what the visitor gives
(`inputs`), lay the results out (`explore`, `views`, `plots`, `formatting`), offer them for
download (`exports`), make the table of N systems (`systems`) and build the Gradio page (`page`, with its
table section `systems_section`). Everything but `page` and `systems_section` is plain Python that tests
call without a browser; only those two import gradio. ``app.py`` at the
repository root is the Hub's entry point.
"""
