"""Read a dialogue state out of a model's generated text, whatever style it was prompted for.

Styles (`STYLES`), detected in this order by ``style="auto"``:

- ``json``: an object, flat ``{"hotel-area": "north"}`` or nested ``{"hotel": {"area": "north"}}``
  (also inside a fenced block or after some prose; python's single-quoted dict syntax is read too);
- ``sql``: IC-DST's SQL (github Yushi-Hu/IC-DST ``utils/sql.py``), with or without the ``SELECT * FROM``
  the prompt ends with: ``SELECT * FROM hotel WHERE area = 'north' AND stars = 4``; several tables
  with qualified columns (``FROM hotel, restaurant WHERE hotel.area = ...`` or with ``AS`` aliases);
  an unqualified column belongs to the first table, as in IC-DST's parser; operators ``=``, ``LIKE``,
  ``<``, ``>``, ``<=``, ``>=``; values quoted or bare (numbers);
- ``python``: RefPyDST's calls (github jlab-nlp/RefPyDST ``prompt_formats/python``):
  ``hotel = find_hotel(area="north", price_range="cheap")``, ``state.hotel = agent.find_hotel(...)``,
  ``Hotel(...)``, attribute assignments ``hotel.area = "north"``, several statements; ``del
  state.hotel.type`` gives the update marker ``[DELETE]`` (see `dst_metrics.updates`); an argument
  that refers to a slot (``destination=state.hotel.name``) takes its value from earlier in the text,
  else from the state before the turn (`parse_generation`'s ``context``), as RefPyDST resolves
  it; a call of no domain is not this style. The text is parsed (``ast``), never run;
- ``lines``: ``domain-slot=value`` items separated by ``;``, newlines or commas (``:`` also
  separates a slot from its value; ``domain.slot`` is read as ``domain-slot``).

Slot names become MultiWOZ's: lower case, ``_`` as a space, then `SLOT_ALIASES` (``price_range`` ->
``pricerange``, ``leave_at`` -> ``leaveat``, ``arrive_by`` -> ``arriveby``, ``book_people`` -> ``book
people``, RefPyDST's ``depart_time``, ``leave_from``, ``food_type``, ``book_number_of_days``…).
With a `schema` (``domain-slot`` names), a slot outside it is tried as ``book <slot>`` and otherwise
dropped and counted. Values are kept as written (stripped, outer quotes removed); numbers become
strings, booleans ``yes``/``no``; ``null`` is no value. A JSON object or python call cut short by
the token limit gets its missing closing braces or parentheses (up to three). Parsing never raises:
text in no style is an empty state with ``parsed=False``.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .updates import DELETE_MARKER

STYLES = ("json", "sql", "python", "lines")
"""The styles `parse_generation` reads, in the order ``auto`` tries them."""

SLOT_ALIASES = {
    "price range": "pricerange",
    "price": "pricerange",
    "leave at": "leaveat",
    "leave": "leaveat",
    "leave at or after": "leaveat",
    "depart time": "leaveat",
    "departure time": "leaveat",
    "arrive by": "arriveby",
    "arrive": "arriveby",
    "arrive by time": "arriveby",
    "arrival time": "arriveby",
    "leave from": "departure",
    "food type": "food",
    "book number of days": "book stay",
    "bookpeople": "book people",
    "bookday": "book day",
    "bookstay": "book stay",
    "booktime": "book time",
    "number of people": "book people",
}
"""Slot names (after lower-casing and ``_`` -> space) that MultiWOZ spells otherwise."""


@dataclass(frozen=True)
class ParsedState:
    """A generation read as a state ``{"domain-slot": value}``: the `style` it was read in, whether it
    `parsed` at all, the slots `dropped` as unknown to the schema and the number of `malformed`
    items skipped (an item in the style with no readable slot or value)."""

    state: dict[str, str]
    style: str
    parsed: bool
    dropped: tuple[str, ...] = ()
    malformed: int = 0


UNPARSED = "none"
"""The `ParsedState.style` of a generation read in no style."""


def normalize_slot_name(domain: str, slot: str) -> str:
    """``domain-slot`` in MultiWOZ's spelling (see the module)."""
    domain = " ".join(domain.lower().replace("_", " ").split())
    slot = " ".join(slot.lower().replace("_", " ").split())
    return f"{domain}-{SLOT_ALIASES.get(slot, slot)}"


def _value(raw: object) -> str | None:
    if isinstance(raw, bool):
        return "yes" if raw else "no"
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float):
        return str(int(raw)) if raw.is_integer() else str(raw)
    if isinstance(raw, str):
        text = raw.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].strip()
        return text or None
    if isinstance(raw, list) and raw:  # several values: the first
        return _value(raw[0])
    return None


class _Items:
    """Slot/value pairs being collected for one generation."""

    def __init__(self, context: Mapping[str, str] | None = None, deletions: bool = False) -> None:
        self.pairs: list[tuple[str, str]] = []
        self.malformed = 0
        self.context = context or {}
        self.deletions = deletions  # a JSON null removes its slot (a turn update): kept as DELETE_MARKER

    def add(self, domain: object, slot: object, value: object) -> None:
        text = _value(value)
        if not isinstance(domain, str) or not isinstance(slot, str) or not domain.strip() or not slot.strip():
            self.malformed += 1
        elif text is not None:
            self.pairs.append((normalize_slot_name(domain, slot), text))
        elif value is None and self.deletions:
            self.pairs.append((normalize_slot_name(domain, slot), DELETE_MARKER))
        elif value is not None:
            self.malformed += 1


# --- json ---------------------------------------------------------------------------------------

FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)


def _json_object(text: str) -> dict | None:
    start = text.find("{")
    if start < 0:
        return None
    end = text.rfind("}")
    body = text[start : end + 1] if end > start else text[start:]
    missing = body.count("{") - body.count("}")
    candidates = [body] + ([body + "}" * missing] if 0 < missing <= 3 else [])
    for candidate in candidates:  # a generation cut short by the token limit lacks closing braces
        for load in (json.loads, ast.literal_eval):
            try:
                data = load(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(data, dict):
                return data
    return None


def _parse_json(text: str, deletions: bool = False) -> _Items | None:
    data = _json_object(text)
    if data is None:
        return None
    items = _Items(deletions=deletions)
    if len(data) == 1:  # {"state": {"hotel-area": ...}}: a wrapper around a flat state
        inner = next(iter(data.values()))
        if isinstance(inner, dict) and inner and all(isinstance(key, str) and "-" in key for key in inner):
            data = inner
    for key, inner in data.items():
        if isinstance(inner, dict):
            for slot, value in inner.items():
                items.add(key, slot, value)
        elif isinstance(key, str) and ("-" in key or "." in key):
            domain, _, slot = key.replace(".", "-", 1).partition("-")
            items.add(domain, slot, inner)
        else:
            items.malformed += 1
    return items


# --- sql ----------------------------------------------------------------------------------------

SQL_HEAD = re.compile(
    r"^\s*(?:SELECT\s+\*\s+)?(?:FROM\s+)?(?P<tables>\w+(?:\s+AS\s+\w+)?(?:\s*,\s*\w+(?:\s+AS\s+\w+)?)*)"
    r"\s*(?:WHERE\b(?P<where>.*))?$",
    re.IGNORECASE | re.DOTALL,
)
SQL_CONDITION = re.compile(
    r"^\s*(?:(?P<table>\w+)\s*\.\s*)?(?P<column>\w+)\s*(?:=|<=|>=|<|>|\bLIKE\b)\s*(?P<value>.*?)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
SQL_AND = re.compile(r"\s+AND\s+(?=(?:\w+\s*\.\s*)?\w+\s*(?:=|<|>|LIKE\b))", re.IGNORECASE)
"""``AND`` that starts a new condition: values keep theirs (``b and b``) and their apostrophes
(IC-DST writes ``name = 'king's college'`` unescaped)."""
SQL_REFERENCE = re.compile(r"^\w+\s*\.\s*\w+$")


def _looks_like_sql(text: str) -> bool:
    return bool(re.search(r"\bSELECT\b[\s\S]*\bFROM\b", text, re.I) or re.match(r"[\w\s,*]*\bWHERE\b", text, re.I))


def _parse_sql(text: str) -> _Items | None:
    body = text.strip().rstrip(";").strip()
    body = re.sub(r"^\s*(?:SELECT\s+)?\*?\s*FROM\b\s*", "", body, flags=re.IGNORECASE)
    if re.fullmatch(r"(?:FROM\s*)?(?:WHERE)?\s*", body, re.IGNORECASE):  # IC-DST's empty state
        return _Items()
    match = SQL_HEAD.match(body)
    if match is None:
        return None
    aliases: dict[str, str] = {}
    tables: list[str] = []
    for part in match["tables"].split(","):
        words = part.split()
        tables.append(words[0].lower())
        aliases[words[0].lower()] = words[0].lower()
        if len(words) == 3:
            aliases[words[2].lower()] = words[0].lower()
    items = _Items()
    where = (match["where"] or "").strip()
    if not where:
        return items
    for condition in SQL_AND.split(where):
        found = SQL_CONDITION.match(condition)
        if found is None or SQL_REFERENCE.match(found["value"]):
            items.malformed += 1
            continue
        table = aliases.get((found["table"] or tables[0]).lower())
        value = found["value"]
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1].replace("''", "'")
        items.add(table, found["column"], value)
    return items


# --- python -------------------------------------------------------------------------------------

CALL = re.compile(r"(?:^|[\s=.;])(?:find_\w+|[A-Z]\w*)\s*\(|^\s*del\s", re.MULTILINE)


def _statements(text: str) -> list[ast.stmt]:
    missing = text.count("(") - text.count(")")
    for candidate in [text] + ([text.rstrip() + ")" * missing] if 0 < missing <= 3 else []):
        try:  # a generation cut short by the token limit lacks closing parentheses
            return ast.parse(candidate).body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pass
    statements: list[ast.stmt] = []
    for line in text.splitlines():
        try:
            statements += ast.parse(line.strip()).body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
    return statements


def _attribute_path(node: ast.AST) -> list[str]:
    path: list[str] = []
    while isinstance(node, ast.Attribute):
        path.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        path.insert(0, node.id)
    return [part for part in path if part not in ("agent", "state", "self")]


def _call_domain(call: ast.Call, target: list[str]) -> str | None:
    name = _attribute_path(call.func)[-1:] or [""]
    if name[0].startswith("find_"):
        return name[0][5:]
    if name[0][:1].isupper():
        return name[0].lower()
    return target[-1] if target else None


def _argument(node: ast.AST, items: _Items) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return f"-{node.operand.value}"
    path = _attribute_path(node)
    if len(path) == 2:  # a slot set earlier in this text, else in the state before the turn
        wanted = normalize_slot_name(*path)
        for slot, value in reversed(items.pairs):
            if slot == wanted:
                return value
        if wanted in items.context:
            return items.context[wanted]
    return object()  # unreadable: counted as malformed


def _parse_python(text: str, context: Mapping[str, str] | None = None) -> _Items | None:
    statements = _statements(text)
    if not statements:
        return None
    items = _Items(context)
    recognised = 0  # statements that are a call, a slot assignment or a deletion
    for node in statements:
        if isinstance(node, ast.Delete):
            recognised += 1
            for target in node.targets:
                path = _attribute_path(target)
                if len(path) == 2:
                    items.add(path[0], path[1], DELETE_MARKER)
                else:
                    items.malformed += 1
            continue
        value = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        target = _attribute_path(node.targets[0]) if isinstance(node, ast.Assign) and node.targets else []
        domain = _call_domain(value, target) if isinstance(value, ast.Call) else None
        if domain:
            recognised += 1
            for keyword in value.keywords:
                items.add(domain, keyword.arg, _argument(keyword.value, items))
            items.malformed += len(value.args)
        elif isinstance(node, ast.Assign) and len(target) == 2:
            recognised += 1
            items.add(target[0], target[1], _argument(node.value, items))
        else:
            items.malformed += 1
    return items if recognised else None


# --- lines --------------------------------------------------------------------------------------

LINE_NAME = re.compile(r"\w+(?: \w+)*")


def _line_parts(text: str) -> list[str]:
    """Items split at ``;`` and newlines, and at commas that start a new ``slot=value`` item."""
    parts: list[str] = []
    for chunk in re.split(r"[;\n]", text):
        pieces: list[str] = []
        for piece in chunk.split(","):
            if pieces and "=" not in piece and ":" not in piece:
                pieces[-1] += "," + piece
            else:
                pieces.append(piece)
        parts += pieces
    return parts


def _parse_lines(text: str) -> _Items | None:
    items = _Items()
    found = False
    for part in _line_parts(text):
        if not part.strip():
            continue
        at = min((i for i in (part.find("="), part.find(":")) if i >= 0), default=-1)
        key = part[:at].strip().replace(".", "-", 1)
        domain, _, slot = key.partition("-")
        domain, slot = " ".join(domain.split()), " ".join(slot.split())
        if at < 0 or not LINE_NAME.fullmatch(domain) or not LINE_NAME.fullmatch(slot):
            items.malformed += 1
            continue
        found = True
        items.add(domain, slot, part[at + 1 :])
    return items if found else None


PARSERS = {"json": _parse_json, "sql": _parse_sql, "python": _parse_python, "lines": _parse_lines}


def _detect(text: str) -> list[str]:
    styles = []
    if "{" in text:
        styles.append("json")
    if _looks_like_sql(text):
        styles.append("sql")
    if CALL.search(text) or re.search(r"^\s*\w+\s*\.\s*\w+\s*=\s*['\"\d]", text, re.MULTILINE):
        styles.append("python")
    styles.append("lines")
    return styles


def _finish(items: _Items, style: str, schema: frozenset[str] | None) -> ParsedState:
    state: dict[str, str] = {}
    dropped: list[str] = []
    for slot, value in items.pairs:
        if schema is not None and slot not in schema:
            domain, _, name = slot.partition("-")
            booked = f"{domain}-book {name}"
            if booked not in schema:
                dropped.append(slot)
                continue
            slot = booked
        state[slot] = value
    return ParsedState(state, style, True, tuple(dropped), items.malformed)


def parse_generation(
    text: str,
    style: str = "auto",
    schema: Iterable[str] | None = None,
    *,
    context: Mapping[str, str] | None = None,
    deletions: bool = False,
) -> ParsedState:
    """The state in a generated `text` read in `style` (one of `STYLES`, or ``auto`` to detect it);
    never raises on model output (see the module for what each style reads). `context`: the state
    before this turn, ``{"domain-slot": value}``, which python-style references such as
    ``destination=state.hotel.name`` read when the text itself did not set the slot. With
    `deletions` (the text is a turn update), a JSON ``null`` removes its slot: it is read as
    ``[DELETE]``, as ``del state.hotel.type`` is.

    >>> parse_generation("SELECT * FROM hotel WHERE area = 'north' AND price_range = 'cheap'").state
    {'hotel-area': 'north', 'hotel-pricerange': 'cheap'}
    """
    if style != "auto" and style not in PARSERS:
        raise ValueError(f"unknown generation style {style!r}: expected auto or one of {', '.join(STYLES)}")
    names = frozenset(schema) if schema is not None else None
    if not isinstance(text, str):
        return ParsedState({}, UNPARSED, False)
    fenced = FENCE.search(text)
    body = fenced.group(1) if fenced else text
    for candidate in [style] if style != "auto" else _detect(body):
        try:
            if candidate == "python":
                items = _parse_python(body, context)
            elif candidate == "json":
                items = _parse_json(body, deletions)
            else:
                items = PARSERS[candidate](body)
        except Exception:  # model output: whatever a parser trips on is an unparsed generation
            items = None
        if items is not None:
            return _finish(items, candidate, names)
    return ParsedState({}, UNPARSED if style == "auto" else style, False)


@dataclass(frozen=True)
class ParsedGenerations:
    """Many generations read: each `ParsedState`, the share `unparsed`, how many were read in each
    style, and how many slots the schema dropped."""

    states: tuple[ParsedState, ...]
    unparsed: float
    styles: dict[str, int]
    dropped: int


def parse_generations(
    texts: Sequence[str], style: str = "auto", schema: Iterable[str] | None = None
) -> ParsedGenerations:
    """`parse_generation` over `texts`, with the share of them that did not parse (0 for none)."""
    names = frozenset(schema) if schema is not None else None
    states = tuple(parse_generation(text, style, names) for text in texts)
    failed = sum(not state.parsed for state in states)
    return ParsedGenerations(
        states,
        failed / len(states) if states else 0.0,
        dict(Counter(state.style for state in states)),
        sum(len(state.dropped) for state in states),
    )
