"""Read a dialogue state out of a model's generated text, whatever style it was prompted for and
however the model wrapped it (a code fence, a label such as ``SQL:`` or ``State:``, prose around it).

Styles (`STYLES`), tried in this order by ``style="auto"``: ``json`` (flat, nested, MultiWOZ's own
shape, a list of slots; python's dict syntax too), ``sql`` (IC-DST's SQL, read as IC-DST reads it,
and statements that change rows), ``python`` (RefPyDST's calls, parsed with ``ast``, never run) and
``lines`` (``domain-slot=value`` items). Each generation counts as one of `OUTCOMES`. Slot names
become MultiWOZ's (`SLOT_ALIASES`); a value saying the slot is unset leaves it out. Parsing never
raises. docs/compat.md has every style and wrapper in a table, with what each generation gives.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..states import BOOKING_PART, DELETE_MARKER, booking_slot, says_absent

STYLES = ("json", "sql", "python", "lines")
"""The styles `parse_generation` reads, in the order ``auto`` tries them."""
OUTCOMES = ("parsed", "empty", "truncated", "unparsed")
"""What a generation counts as: read; no text at all; cut short and salvaged; read by no style."""

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
    """A generation read as a state ``{"domain-slot": value}``: the `style` it was read in, its
    `outcome` (one of `OUTCOMES`), the slots `dropped` as unknown to the schema, the number of
    `malformed` items skipped (an item in the style with no readable slot or value, SQL's ``?``) and
    of the parts `ignored` as no slot value (SQL's ``!=``, ``LIMIT`` …; a JSON answer's objects other
    than the state it presents)."""

    state: dict[str, str]
    style: str
    outcome: str = "parsed"
    dropped: tuple[str, ...] = ()
    malformed: int = 0
    ignored: int = 0

    @property
    def parsed(self) -> bool:
        """Whether the text was read (any outcome but ``unparsed``: an empty text says no change)."""
        return self.outcome != "unparsed"


UNPARSED = "none"
"""The `ParsedState.style` of a generation read in no style (and of an empty one)."""


def _name(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").split())


def _slot_name(slot: str) -> str:
    name = _name(slot)
    return SLOT_ALIASES.get(name, name)


def normalize_slot_name(domain: str, slot: str) -> str:
    """``domain-slot`` in MultiWOZ's spelling (see the module)."""
    return f"{_name(domain)}-{_slot_name(slot)}"


def _value(raw: object) -> str | None:
    """A generated value as text (``""`` for an empty string); None when it is no value at all."""
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
        return text
    if isinstance(raw, list) and raw:  # several values: the first
        return _value(raw[0])
    return None


def _is_state_list(data: object) -> bool:
    """Whether `data` is a list of slots (objects or triples), not a slot's list of values."""
    return isinstance(data, list) and bool(data) and all(isinstance(item, (dict, list, tuple)) for item in data)


STATE_KEY = re.compile(
    r"(?:(?:belief|dialogue|dialog|updated|new|current|predicted|final)[ _]?)?state|metadata|slots|slot[ _]values",
    re.IGNORECASE,
)
"""The one key of an object that wraps the state (``{"belief_state": {"hotel": {...}}}``)."""


class _Items:
    """Slot/value pairs being collected for one generation."""

    def __init__(self, context: Mapping[str, str] | None = None) -> None:
        self.pairs: list[tuple[str, str]] = []
        self.absent = 0  # slots given a value that says they have none ("not mentioned", "none", "")
        self.malformed = 0
        self.ignored = 0
        self.cut = False  # the text was cut short and salvaged
        self.context = context or {}

    def add(self, domain: object, slot: object, value: object) -> None:
        """One slot; a None value (JSON null) deletes it, as ``del`` does; a value that says the slot
        has none (`dst_metrics.states.says_absent`) leaves it out."""
        text = _value(value)
        if not isinstance(domain, str) or not isinstance(slot, str) or not domain.strip() or not slot.strip():
            self.malformed += 1
        elif text is None and value is None:
            self.pairs.append((normalize_slot_name(domain, slot), DELETE_MARKER))
        elif text is None:
            self.malformed += 1
        elif says_absent(text):
            self.absent += 1
        else:
            self.pairs.append((normalize_slot_name(domain, slot), text))

    def add_state(self, data: dict | list) -> None:
        """A JSON object or list: nested ``{"hotel": {"area": ...}}``, MultiWOZ's ``{"hotel": {"semi":
        {...}, "book": {...}}}`` (or ``book`` beside the slots), flat ``{"hotel-area": ...}``, a list
        of ``{"domain", "slot", "value"}`` objects (or one per domain, ``{"hotel": [{"slot": ...}]}``),
        or any of them wrapped in one key (``{"state": ...}``)."""
        if isinstance(data, list):
            for item in data:
                self.add_item(item)
            return
        if "slot" in data and "value" in data:
            self.add_item(data)
            return
        if len(data) == 1:
            key, inner = next(iter(data.items()))
            wrapped = isinstance(key, str) and STATE_KEY.fullmatch(key.strip()) is not None
            flat = isinstance(inner, dict) and inner and all(isinstance(name, str) and "-" in name for name in inner)
            if flat or wrapped and (isinstance(inner, dict) or _is_state_list(inner)):
                self.add_state(inner)
                return
        for key, inner in data.items():
            if isinstance(inner, dict):
                self.add_domain(key, inner)
            elif _is_state_list(inner):
                for item in inner:
                    self.add_item(item, key)
            elif isinstance(key, str) and ("-" in key or "." in key):
                domain, _, slot = key.replace(".", "-", 1).partition("-")
                self.add(domain, slot, inner)
            else:
                self.malformed += 1

    def add_domain(self, domain: object, slots: dict) -> None:
        """One domain's slots, its ``semi`` and ``book`` parts read as MultiWOZ's data.json has them
        (a booking slot named as its reader names it, ``hotel-book people``; ``booked`` ignored)."""
        for slot, value in slots.items():
            part = slot.lower() if isinstance(slot, str) else None
            if part in ("semi", BOOKING_PART) and isinstance(value, dict):
                for name, inner in value.items():
                    if part == BOOKING_PART and isinstance(name, str):
                        if name == "booked":
                            continue
                        name = _slot_name(name)
                        name = name if name.startswith(f"{BOOKING_PART} ") else booking_slot(name)
                    self.add(domain, name, inner)
            else:
                self.add(domain, slot, value)

    def add_item(self, item: object, domain: object = None) -> None:
        """One slot of a list: ``{"domain": "hotel", "slot": "area", "value": "north"}`` (or ``"slot":
        "hotel-area"`` without a domain, or a list under its `domain`), or ``["hotel", "area", "north"]``."""
        if isinstance(item, dict) and "slot" in item and "value" in item:
            domain, slot = item.get("domain", domain), item["slot"]
            if domain is None and isinstance(slot, str):
                domain, _, slot = slot.replace(".", "-", 1).partition("-")
            self.add(domain, slot, item["value"])
        elif isinstance(item, (list, tuple)) and len(item) == 3:
            self.add(*item)
        else:
            self.malformed += 1


# --- wrappers -----------------------------------------------------------------------------------

FENCE = re.compile(r"```[ \t]*(?P<lang>[\w+-]*)[^\n]*\n?(?P<body>.*?)(?:```|\Z)", re.DOTALL)
FENCE_STYLES = {"json": "json", "sql": "sql", "python": "python", "py": "python", "python3": "python"}
LABEL = re.compile(
    r"^[ \t>*#-]*(?:the\s+)?(?:sql(?:\s+query)?|query|(?:belief|dialogue|dialog|updated|new|predicted|current)?"
    r"[ _]?state(?:\s+update)?|update|answer|output|result|response|python|code|json|a)[ \t*]*:[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
"""A label a chat model writes before its answer, at the start of a line."""


def _unwrap(text: str) -> tuple[str, str | None, str]:
    """(the text without its fence and label, the style the fence names or None, the text before
    the label)."""
    hint, head = None, ""
    for fence in FENCE.finditer(text):
        if fence["body"].strip():
            text, hint = fence["body"], FENCE_STYLES.get(fence["lang"].lower())
            break
    labels = [label for label in LABEL.finditer(text) if text[label.end() :].strip()]
    if labels:
        head, text = text[: labels[-1].start()], text[labels[-1].end() :]
    return text, hint, head


# --- salvage ------------------------------------------------------------------------------------

CLOSERS = {"{": "}", "[": "]", "(": ")"}


def _open_brackets(text: str) -> tuple[list[tuple[int, str]], bool]:
    """(cut points: after each opening bracket and before each comma outside strings, with the
    closers each needs, whether the text ends open: inside a string or a bracket)."""
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    quote, escaped = "", False
    for position, char in enumerate(text):
        if quote:
            escaped, quote = (not escaped and char == "\\"), ("" if char == quote and not escaped else quote)
        elif char in "'\"":
            quote = char
        elif char in CLOSERS:
            stack.append(CLOSERS[char])
            cuts.append((position + 1, "".join(reversed(stack))))
        elif char in ")]}" and stack and stack[-1] == char:
            stack.pop()
        elif char == ",":
            cuts.append((position, "".join(reversed(stack))))
    if not quote and stack:
        cuts.append((len(text), "".join(reversed(stack))))
    return cuts, bool(quote or stack)


def _repairs(text: str, limit: int = 60) -> Iterator[str]:
    """`text` cut short by the token limit, closed: as it is when it ends outside a string, then
    cut back before each comma and after each opening bracket, from the end (nothing when it is
    not open: a malformed text is not a cut one)."""
    cuts, is_open = _open_brackets(text)
    if is_open:
        for position, closers in reversed(cuts[-limit:]):
            yield text[:position].rstrip().rstrip(",") + closers


# --- json ---------------------------------------------------------------------------------------


STATE_LABEL = re.compile(
    r"(?:\b(?:belief|dialogue|dialog|updated|new|current|predicted|final|resulting)[ _]state\b|^[ \t>*#-]*state\s*:)",
    re.IGNORECASE | re.MULTILINE,
)
"""A label naming the state an answer presents (``Updated state``, ``Belief state``, ``State:``), not
another one it mentions (``the previous state was {...}``)."""


def _load(text: str) -> dict | list | None:
    """The object (or list of slots) `text` holds, as JSON or python literals; None when it holds none."""
    for load in (json.loads, ast.literal_eval):
        try:
            data = load(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(data, dict) or _is_state_list(data):
            return data
    return None


def _spans(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """(the (start, end) of each bracketed part of `text` at the top level, where the last one opened
    and was never closed, or None): quotes count only inside brackets (prose has apostrophes)."""
    spans: list[tuple[int, int]] = []
    stack: list[str] = []
    start, quote, escaped = 0, "", False
    for position, char in enumerate(text):
        if quote:
            escaped, quote = (not escaped and char == "\\"), ("" if char == quote and not escaped else quote)
        elif char in "{[":
            if not stack:
                start = position
            stack.append(CLOSERS[char])
        elif not stack:
            continue
        elif char in "'\"":
            quote = char
        elif char == stack[-1]:
            stack.pop()
            if not stack:
                spans.append((start, position + 1))
    return spans, start if stack else None


def _parse_json(text: str, items: _Items) -> bool:
    """The state the answer presents: its first object after a state label, else its first; the
    other objects are counted in `_Items.ignored`. No object: one cut short, closed (truncated)."""
    spans, open_at = _spans(text)
    found = [(start, data) for start, end in spans if (data := _load(text[start:end])) is not None]
    if found:
        label = STATE_LABEL.search(text)
        after = [data for start, data in found if label is not None and start >= label.end()]
        items.add_state(after[0] if after else found[0][1])
        items.ignored += len(found) - 1
        return True
    if open_at is None:
        return False
    data = next(filter(None, map(_load, _repairs(text[open_at:]))), None)
    if data is None:
        return False
    items.cut = True
    items.add_state(data)
    return True


# --- sql ----------------------------------------------------------------------------------------

SQL_OPERATOR = r"(?:!=|<>|<=|>=|=|<|>|\bNOT\s+LIKE\b|\bLIKE\b|\bNOT\s+IN\b|\bIN\b|\bIS\s+NOT\b|\bIS\b)"
SQL_CHANGE = r"\b(?:UPDATE\s+\w+\s+SET|INSERT\s+INTO)\b"
"""The start of a statement that changes rows (``UPDATE t SET``, ``INSERT INTO``)."""
SQL_STATEMENT_START = re.compile(rf"\bSELECT\b|{SQL_CHANGE}", re.IGNORECASE)
SQL_UPDATE = re.compile(
    r"^\s*UPDATE\s+(?P<table>\w+)\s+SET\b(?P<set>.*?)(?:\bWHERE\b(?P<where>.*))?$", re.IGNORECASE | re.DOTALL
)
SQL_INSERT = re.compile(r"^\s*INSERT\s+INTO\s+(?P<table>\w+)\s*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
SQL_ASSIGNMENT_SPLIT = re.compile(r",(?=\s*\w+\s*=)")
"""A comma that starts the next ``column = value`` of a ``SET`` (bare values keep theirs)."""
SQL_NO_VALUE = ("?", "NULL")
"""A value that is none: a placeholder or ``NULL`` (quoted or not), skipped and counted malformed."""
SQL_LINE = re.compile(
    rf"^\s*(?:AND|OR|WHERE|FROM|LIMIT|ORDER|GROUP|HAVING|SELECT|SET|VALUES|\)|(?:\w+\s*\.\s*)?\w+\s*{SQL_OPERATOR})",
    re.I,
)
"""A line that continues a SQL statement; the first other line ends it (prose after the query)."""
SQL_PREFIX = re.compile(r"^\s*(?:SELECT\b[\s\S]*?\bFROM\b|\*\s*FROM\b)\s*", re.IGNORECASE)
SQL_HEAD = re.compile(
    r"^\s*(?P<tables>\w+(?:\s+AS\s+\w+)?(?:\s*,\s*\w+(?:\s+AS\s+\w+)?)*)\s*(?:\bWHERE\b(?P<where>.*))?$",
    re.IGNORECASE | re.DOTALL,
)
SQL_TAIL = re.compile(r"\s+(?:LIMIT|ORDER\s+BY|GROUP\s+BY|HAVING)\b[^']*$")
"""Clauses that select rows, not values (upper case: IC-DST's values are lower case and unquoted)."""
SQL_JOIN = re.compile(rf"\s+(AND|OR)\s+(?=(?:\w+\s*\.\s*)?\w+\s*{SQL_OPERATOR})", re.IGNORECASE)
"""``AND`` (or ``OR``) that starts a new condition: values keep theirs (``b and b``) and their
apostrophes (IC-DST writes ``name = king's college``, unquoted and unescaped)."""
SQL_CONDITION = re.compile(
    rf"^\s*(?:(?P<table>\w+)\s*\.\s*)?(?P<column>\w+)\s*(?P<op>{SQL_OPERATOR})\s*(?P<value>.*?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
SQL_DANGLING = re.compile(r"(?:^|\s+(?:AND|OR))\s*(?:\w+\s*\.\s*)?\w*\s*$")
"""The end of a statement cut inside a condition's column (``... AND sta``): no operator yet."""
SQL_REFERENCE = re.compile(r"^\w+\s*\.\s*\w+$")
SQL_IGNORED_OPERATORS = ("!=", "<>", "NOT LIKE", "NOT IN", "IS", "IS NOT")


def _sql_statements(text: str) -> list[tuple[str, bool]]:
    """(statement, whether something followed it: ``;``, another statement or prose), from the first
    ``SELECT`` (or the whole text: IC-DST's bare completion)."""
    found = SQL_STATEMENT_START.search(text)
    pieces = re.split(rf";|(?=\bSELECT\b|{SQL_CHANGE})", text[found.start() :] if found else text, flags=re.I)
    statements = []
    for index, piece in enumerate(pieces):
        if index and not SQL_STATEMENT_START.match(piece.strip()):
            continue  # prose after a statement
        lines = piece.strip().splitlines() or [""]
        kept = 1
        while kept < len(lines) and SQL_LINE.match(lines[kept]):
            kept += 1
        statements.append((" ".join(lines[:kept]), index < len(pieces) - 1 or kept < len(lines)))
    return statements


def _parse_sql(text: str, items: _Items) -> bool:
    # every statement is read (a list, not a generator: any() would stop at the first)
    return any([_read_sql(statement, ended, items) for statement, ended in _sql_statements(text)])


def _read_sql(statement: str, ended: bool, items: _Items) -> bool:
    """Read one statement into `items`; False when it is not SQL."""
    update = SQL_UPDATE.match(statement)
    if update:
        return _read_sql_update(update, ended, items)
    insert = SQL_INSERT.match(statement)
    if insert:
        return _read_sql_insert(insert, ended, items)
    body = SQL_PREFIX.sub("", statement, count=1).strip()
    if re.fullmatch(r"(?:WHERE\b)?\s*", body, re.IGNORECASE):  # IC-DST's no change: " * FROM  WHERE "
        return True
    tail = SQL_TAIL.search(body)
    if tail:
        body, items.ignored = body[: tail.start()], items.ignored + 1
    match = SQL_HEAD.match(body)
    if match is None:
        return False
    aliases: dict[str, str] = {}
    for part in match["tables"].split(","):
        words = part.lower().split()
        aliases.setdefault("", words[0])
        aliases[words[0]] = aliases[words[-1]] = words[0]
    where = (match["where"] or "").strip()
    if match["where"] is not None and not where and not ended:
        items.cut = True  # "SELECT * FROM hotel WHERE" and no more
    _read_where(where, ended, aliases, items)
    return True


def _read_where(where: str, ended: bool, aliases: dict[str, str], items: _Items) -> None:
    """A ``WHERE`` clause's conditions, each a slot (or ignored, malformed; the last one cut short)."""
    if not where:
        return
    dangling = SQL_DANGLING.search(where) if not ended else None
    if dangling and dangling.start() > 0 and not SQL_CONDITION.match(where[dangling.start() :].split(None, 1)[-1]):
        where, items.cut = where[: dangling.start()], True  # "... AND" or "... AND sta": cut short
    parts = SQL_JOIN.split(where)
    for index in range(0, len(parts), 2):
        last = index == len(parts) - 1
        if index and parts[index - 1].upper() == "OR":
            items.ignored += 1  # an alternative condition: no value of the state
            continue
        _read_condition(parts[index], last and not ended, aliases, items)


def _read_condition(
    condition: str, may_be_cut: bool, aliases: dict[str, str], items: _Items, *, assignment: bool = False
) -> None:
    """One condition (or, with `assignment`, one ``column = value`` of a ``SET``) into `items`."""
    found = SQL_CONDITION.match(condition)
    if found is None:
        if may_be_cut and re.fullmatch(r"\s*(?:\w+\s*\.\s*)?\w*\s*", condition):
            items.cut = True  # "... WHERE are": cut inside the column
        else:
            items.malformed += 1
        return
    operator = " ".join(found["op"].upper().split())
    if SQL_REFERENCE.match(found["value"]) or assignment and operator != "=":
        items.malformed += 1  # a column, not a value: T2.destination = T1.name; SET a != b
        return
    if operator in SQL_IGNORED_OPERATORS:
        items.ignored += 1
        return
    value = _sql_value(found["value"], operator, items)
    if value is None:
        if may_be_cut:
            items.cut = True
        else:
            items.malformed += 1
        return
    if value.upper() in SQL_NO_VALUE:
        items.malformed += 1
        return
    table = aliases.get((found["table"] or "").lower(), found["table"])
    items.add(table, found["column"], value)


def _sql_value(raw: str, operator: str, items: _Items) -> str | None:
    """A condition's value: quoted (up to the last quote; text after it is ignored and counted; ``''``
    is an empty value), bare, the first of ``IN (...)``, a ``LIKE`` pattern without ``%``; None when
    cut short (or nothing is written)."""
    if operator == "IN":
        if not raw.startswith("(") or ")" not in raw:
            return None
        raw = raw[1 : raw.rindex(")")].split(",")[0].strip()
    if raw[:1] in ("'", '"'):
        close = raw.rfind(raw[0])
        if close == 0:
            return None  # the closing quote was never written
        items.ignored += bool(raw[close + 1 :].strip())
        text = raw[1:close].replace(raw[0] * 2, raw[0])
        return (text.strip("%") if operator == "LIKE" else text).strip()
    if operator == "LIKE":
        raw = raw.strip("%")
    return raw.strip() or None


def _read_sql_update(statement: re.Match, ended: bool, items: _Items) -> bool:
    """``UPDATE t SET a = v, ... [WHERE c = w AND ...]``: each assignment and condition a slot of t."""
    aliases = {"": statement["table"].lower(), statement["table"].lower(): statement["table"].lower()}
    where = statement["where"]
    assignments = SQL_ASSIGNMENT_SPLIT.split(statement["set"])
    for index, assignment in enumerate(assignments):
        last = index == len(assignments) - 1 and where is None
        _read_condition(assignment, last and not ended, aliases, items, assignment=True)
    if where is not None:
        if not where.strip() and not ended:
            items.cut = True  # "... WHERE" and no more
        _read_where(where.strip(), ended, aliases, items)
    return True


def _read_sql_insert(statement: re.Match, ended: bool, items: _Items) -> bool:
    """``INSERT INTO t (a, ...) VALUES (v, ...)``: each column a slot of t, given the value at its
    place (no column list, or another number of values than columns: every value malformed); rows
    after the first are ignored and counted."""
    table, rest = statement["table"], statement["rest"].strip()
    columns: list[str] = []
    if rest.startswith("("):
        names, closed, rest = _sql_tuple(rest[1:])
        if not closed:  # cut inside the column list, else malformed
            items.cut = items.cut or not ended
            items.malformed += max(len(names), 1) if ended else 0
            return True
        columns = [name.strip() for name in names]
        rest = rest.strip()
    values_clause = re.match(r"VALUES\s*\(", rest, re.IGNORECASE)
    if values_clause is None:
        if rest or ended:
            items.malformed += max(len(columns), 1)
        else:
            items.cut = True  # "INSERT INTO taxi (a, b)" and no more
        return True
    values, closed, after = _sql_tuple(rest[values_clause.end() :])
    if not closed:  # cut short: the complete values are read, the last one may be cut
        if ended:
            items.malformed += max(len(columns), 1)
            return True
        items.cut, values = True, values[:-1]
        columns = columns[: len(values)]
    elif after.strip():
        items.ignored += 1  # more rows, or text after the statement's values
    if len(columns) != len(values) or not all(re.fullmatch(r"\w+", column) for column in columns):
        items.malformed += max(len(columns), len(values))
        return True
    for column, raw in zip(columns, values):
        _read_condition(f"{column} = {raw}", False, {"": table.lower()}, items, assignment=True)
    return True


def _sql_tuple(text: str) -> tuple[list[str], bool, str]:
    """(the comma-separated items of `text` up to its closing parenthesis, whether it was closed, the
    text after it): commas and parentheses inside quotes count for nothing."""
    parts, current, quote, depth = [], [], "", 0
    for position, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == ")":
            parts.append("".join(current))
            return ([] if parts == [""] else parts), True, text[position + 1 :]
        elif char == "," and not depth:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    return [*parts, "".join(current)], False, ""


# --- python -------------------------------------------------------------------------------------

CALL = re.compile(r"(?:^|[\s=.;])(?:find_\w+|update|[A-Z]\w*)\s*\(|^\s*(?:del\s|pass\s*$)", re.MULTILINE)
CODE_START = re.compile(r"^\s*(?:del\s|pass\b|[A-Za-z_][\w.]*\s*(?:=|\())")
"""A line that may start a python statement; other lines before one are prose."""


def _ast(text: str) -> list[ast.stmt] | None:
    try:
        return ast.parse(text.strip()).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _statements(text: str) -> tuple[list[ast.stmt], bool]:
    """(the statements of `text`, whether the last was cut short and closed): the whole text, else
    statement by statement, skipping prose lines and closing a statement cut by the token limit."""
    whole = _ast(text)
    if whole is not None:
        return whole, False
    statements: list[ast.stmt] = []
    buffer: list[str] = []
    for line in text.splitlines():
        if not buffer and not CODE_START.match(line):
            continue  # prose, or a blank line
        buffer.append(line)
        body = _ast("\n".join(buffer))
        if body is not None:
            statements, buffer = statements + body, []
    if buffer:
        closed = next(filter(None, map(_ast, _repairs("\n".join(buffer)))), None)
        if closed is not None:
            return statements + closed, True
    return statements, False


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
    return object()  # unreadable, or a slot set nowhere: this argument is dropped, counted as malformed


def _read_update(call: ast.Call, items: _Items) -> None:
    for argument in call.args:
        try:
            data = ast.literal_eval(argument)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            data = None
        if isinstance(data, dict):
            items.add_state(data)
        else:
            items.malformed += 1


def _read_statement(node: ast.stmt, items: _Items) -> bool:
    """Read one statement into `items`; False when it is none of the style's statements."""
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Delete):
        for target in node.targets:
            path = _attribute_path(target)
            if len(path) == 2:
                items.add(path[0], path[1], None)
            else:
                items.malformed += 1
        return True
    value = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
    target = _attribute_path(node.targets[0]) if isinstance(node, ast.Assign) and node.targets else []
    if isinstance(value, ast.Call) and _attribute_path(value.func)[-1:] == ["update"]:  # RefPyDST's no change
        _read_update(value, items)
        return True
    domain = _call_domain(value, target) if isinstance(value, ast.Call) else None
    if domain:
        for keyword in value.keywords:
            if not (isinstance(keyword.value, ast.Constant) and keyword.value.value is None):  # None sets nothing
                items.add(domain, keyword.arg, _argument(keyword.value, items))
        items.malformed += len(value.args)
        return True
    if isinstance(node, ast.Assign) and len(target) == 2:
        items.add(target[0], target[1], _argument(node.value, items))
        return True
    return False


def _parse_python(text: str, items: _Items) -> bool:
    statements, items.cut = _statements(text)
    recognised = [_read_statement(node, items) for node in statements]
    items.malformed += recognised.count(False)  # a statement of none of the style's kinds
    return any(recognised)


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


def _parse_lines(text: str, items: _Items) -> bool:
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
    return found


PARSERS = {"json": _parse_json, "sql": _parse_sql, "python": _parse_python, "lines": _parse_lines}


def _detect(text: str, hint: str | None) -> list[str]:
    styles = [hint] if hint else []
    start = text.find("{")
    if start >= 0 and not re.search(r"\w\s*\(\s*$", text[:start]):  # not the dict of update({...})
        styles.append("json")
    if (
        re.search(r"\bSELECT\b[\s\S]*\bFROM\b", text, re.I)
        or re.match(r"[\w\s,*]*\bWHERE\b", text, re.I)
        or re.search(SQL_CHANGE, text, re.I)
    ):
        styles.append("sql")
    if CALL.search(text) or re.search(r"^\s*\w+\s*\.\s*\w+\s*=\s*['\"\d]", text, re.MULTILINE):
        styles.append("python")
    styles.append("lines")
    return list(dict.fromkeys(styles))


EMPTY_OBJECT = re.compile(r"\s*\{\s*\}\s*")


def _finish(items: _Items, style: str, schema: frozenset[str] | None, deletions: bool) -> ParsedState:
    """The state of `items`: a deletion is kept as ``[DELETE]`` in a turn update (`deletions`), and
    in a whole state removes its slot."""
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
    if not deletions:
        state = {slot: value for slot, value in state.items() if value != DELETE_MARKER}
    outcome = "truncated" if items.cut else "parsed"
    return ParsedState(state, style, outcome, tuple(dropped), items.malformed, items.ignored)


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
    `deletions` (the text is a turn update), a JSON ``null`` or ``del state.hotel.type`` is read as
    ``[DELETE]``; without (the text is the whole state), the slot is left out.

    >>> parse_generation("SQL: SELECT * FROM hotel WHERE area = 'north' AND price_range = 'cheap';").state
    {'hotel-area': 'north', 'hotel-pricerange': 'cheap'}
    """
    if style != "auto" and style not in PARSERS:
        raise ValueError(f"unknown generation style {style!r}: expected auto or one of {', '.join(STYLES)}")
    names = frozenset(schema) if schema is not None else None
    if not isinstance(text, str):
        return ParsedState({}, UNPARSED, "unparsed")
    if not text.strip():
        return ParsedState({}, UNPARSED if style == "auto" else style, "empty")
    body, hint, head = _unwrap(text)
    for candidate in [style] if style != "auto" else _detect(body, hint):
        items = _Items(context)  # a fresh one per style: a style that fails leaves nothing behind
        if EMPTY_OBJECT.fullmatch(body):  # {}: no change, in every style
            return _finish(items, candidate, names, deletions)
        try:
            read = PARSERS[candidate](body, items)
        except Exception:  # model output: whatever a parser trips on is an unparsed generation
            read = False
        if candidate == "json" and read:
            items.ignored += sum(_load(head[start:end]) is not None for start, end in _spans(head)[0])
        if read and (items.pairs or items.absent or not items.malformed):
            return _finish(items, candidate, names, deletions)
        if read:  # written in this style, but every slot of it was malformed: nothing was read
            return ParsedState({}, candidate, "unparsed", (), items.malformed, items.ignored)
    return ParsedState({}, UNPARSED if style == "auto" else style, "unparsed")


def outcome_counts(states: Iterable[ParsedState]) -> dict[str, dict[str, int]]:
    """{style: {outcome: generations}} of parsed states (outcomes in the order of `OUTCOMES`)."""
    counts: dict[str, Counter] = {}
    for state in states:
        counts.setdefault(state.style, Counter())[state.outcome] += 1
    return {style: {o: found[o] for o in OUTCOMES if found[o]} for style, found in counts.items()}


def malformed_counts(states: Iterable[ParsedState]) -> dict[str, int]:
    """{style: malformed items} of parsed states, over the styles `outcome_counts` gives (0 included):
    the items skipped as no readable slot or value (`ParsedState.malformed`); a generation read as
    ``unparsed`` counts those of the style it was written in."""
    counts: Counter = Counter()
    for state in states:
        counts[state.style] += state.malformed
    return dict(counts)
