"""The GCA explorer, the Hugging Face Space of dst-metrics (``app.py`` is the Hub's entry point). `dst_metrics`
computes everything; `inputs` reads what the visitor gives, `explore`, `views` and `style` lay the results out,
`exports` offers them for download, `systems` makes the table of N systems and `protocols` runs CheckDST and
SGD-X. Only `page` and its sections `systems_section` and `protocols_section` import gradio.
"""
