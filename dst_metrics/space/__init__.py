"""The GCA explorer, the Hugging Face Space of dst-metrics, as a package.

`dst_metrics` does every computation; these modules only read what the visitor gives
(`inputs`), lay the results out (`explore`, `views`, `style`), offer them for
download (`exports`), make the table of N systems (`systems`), run the robustness protocols (`protocols`) and
build the Gradio page (`page`, with its sections `systems_section` and `protocols_section`). Everything but
those three is plain Python that tests call without a browser; only those three import gradio when loaded.
``app.py`` at the repository root is the Hub's entry point.
"""
