"""The Space app of this metric: a small Gradio demo (run `python app.py`)."""

from pathlib import Path

import evaluate

from dst_metrics.hf_evaluate.demo import build_demo

module = evaluate.load(str(Path(__file__).resolve().parent))

if __name__ == "__main__":
    build_demo(module).launch()
