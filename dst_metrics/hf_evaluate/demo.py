"""The small Gradio app of a module's Space (its ``app.py``, written by `dst_metrics.release`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError
from ..options import OptionError

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
            given = {"predictions": _json(predictions, "predictions"), "references": _json(references, "references")}
            return module.compute(**given, mode=mode)
        except (InputError, OptionError) as error:  # our messages only (issue 56): not a dependency's
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


def _json(text: str, name: str) -> object:
    """`text` as JSON; not JSON: an InputError naming `name` and the line and column (`JSONDecodeError`'s
    documented ``lineno`` and ``colno``, not its message)."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON at line {error.lineno}, column {error.colno}", source=name) from None
