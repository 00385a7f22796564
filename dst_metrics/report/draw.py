"""HTML pieces of the report and the Space: escaping, number formats, tables in sideways-scrolling boxes and
the systems' colour swatches."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping

from .palette import system_color


def esc(text: object) -> str:
    """`text` escaped for HTML text and attributes."""
    return html.escape(str(text), quote=True)


def esc_name(text: object) -> str:
    """A set or file name for a table header: escaped, breakable after _ . - / only."""
    return re.sub(r"([_./-])", r"\1<wbr>", esc(text))


def _missing(x: float | None) -> bool:
    return x is None or math.isnan(x)


def pct(x: float | None, missing: str = "—") -> str:
    """A fraction as percent with 2 decimals ('73.33'); `missing` for None or NaN."""
    return missing if _missing(x) else f"{100 * x:.2f}"


def signed_pct(x: float | None, missing: str = "—") -> str:
    """A difference of fractions as signed percentage points ('+30.95'); `missing` for None or NaN."""
    return missing if _missing(x) else f"{100 * x:+.2f}"


def num(x: float | None, digits: int = 2, missing: str = "—") -> str:
    """A number with `digits` decimals; `missing` for None or NaN."""
    return missing if _missing(x) else f"{x:.{digits}f}"


def data_attributes(values: Mapping[str, object]) -> str:
    """`values` as ``data-*`` attributes (``_`` in a name becomes ``-``), escaped."""
    return "".join(f' data-{name.replace("_", "-")}="{esc(value)}"' for name, value in values.items())


def table(head: str, rows: Iterable[str], attributes: str = "") -> str:
    """A table (header cells `head`, ``<tr>`` `rows`) in a box that scrolls sideways; `attributes` on ``<table>``."""
    return (
        f'<div class="table-wrap"><table{attributes}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def swatch(index: int) -> str:
    """A small square in the colour of system `index`."""
    return f'<span class="set-swatch" style="background:{system_color(index)}"></span>'
