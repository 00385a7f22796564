"""GCA explorer: the Hugging Face Space of dst-metrics (its entry point; the page is the `dst_metrics.space` package).

Run ``python app.py``; it serves on localhost, port from GRADIO_SERVER_PORT (default 7860).
"""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # the page must not call home
# gradio summarises every event so far with pandas after each event (about 50 ms), for a monitoring page the
# Space does not enable: once in a billion events instead
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000000000")

try:
    from dst_metrics.space.page import build_demo, launch
except ImportError as missing:  # `python app.py` without the Space's extra: one line, no traceback
    if __name__ != "__main__" or missing.name not in ("gradio", "pandas"):
        raise
    from dst_metrics.modules import needs_extra

    raise SystemExit(needs_extra("app.py", "space", [missing.name])) from None

demo = build_demo()

if __name__ == "__main__":
    launch(demo)
