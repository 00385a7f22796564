"""The small Gradio app of a module's Space (its ``app.py``, written by `dst_metrics.release`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:
    import evaluate
    import gradio


def build_demo(module: evaluate.EvaluationModule) -> gradio.Interface:
    """A module's Space: JSON predictions and references, and the mode (evaluate's ``launch_gradio_widget``
    takes flat features only)."""
    import json

    import gradio as gr

    def run(predictions: str, references: str, mode: str) -> dict:
        try:
            return module.compute(predictions=json.loads(predictions), references=json.loads(references), mode=mode)
        except (InputError, ValueError) as error:
            return {"error": str(error)}

    example = json.dumps([[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]])
    return gr.Interface(
        fn=run,
        inputs=[
            gr.Textbox(label="predictions (JSON: a list of dialogues or of turn records)", value=example),
            gr.Textbox(label="references (JSON)", value=example),
            gr.Dropdown(["official", "corrected"], value="official", label="mode"),
        ],
        outputs=gr.JSON(label=module.name),
        title=f"Metric: {module.name}",
        description=module.info.description,
    )
